// The state contract's shared refusals (src/contract/state.ts): a declared state, paused where a
// provider cannot pause, and a fork's snapshot held to its provider; each in words naming the field.
import { describe, expect, it } from "vitest";
import { checkRunState, forkProblem, parseSnapshotImage, pauseProblem, snapshotImage } from "../../src/contract/state.js";

describe("a declared state", () => {
  it("is running when absent, and running or paused as given", () => {
    expect(checkRunState(undefined)).toEqual({ ok: true, value: "running" });
    expect(checkRunState("paused")).toEqual({ ok: true, value: "paused" });
    expect(checkRunState("running")).toEqual({ ok: true, value: "running" });
  });

  it("is refused as anything else, naming the field", () => {
    for (const state of ["stopped", "Paused", "", 1, null]) {
      const checked = checkRunState(state);
      expect(checked.ok).toBe(false);
      if (checked.ok) continue;
      expect(checked.error).toMatchObject({ code: "invalid", field: "state" });
      expect(checked.error.message).toBe(`state must be running or paused, not ${JSON.stringify(state)}`);
    }
  });

  it("paused is refused on a provider that cannot pause, naming the provider and the field", () => {
    const refused = pauseProblem("paused", "modal", undefined);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error).toMatchObject({ code: "unsupported", field: "state" });
      expect(refused.error.message).toMatch(/^state paused is refused: modal cannot pause a computer/);
    }
    expect(pauseProblem("paused", "docker", "memory").ok).toBe(true);
    expect(pauseProblem("running", "modal", undefined).ok).toBe(true);
  });
});

describe("a snapshot's image", () => {
  it("names its provider and the vendor's id, and reads back as it was written", () => {
    const image = snapshotImage("docker", "sha256:0123abcd");
    expect(image).toBe("snapshot://docker/sha256:0123abcd");
    expect(parseSnapshotImage(image)).toEqual({ provider: "docker", id: "sha256:0123abcd" });
    expect(parseSnapshotImage("debian:bookworm-slim")).toBeUndefined();
    expect(parseSnapshotImage("snapshot://docker/")).toBeUndefined();
  });

  it("starts a fork on its own provider only: another's is refused naming the field", () => {
    expect(forkProblem("debian:bookworm-slim", "modal").ok).toBe(true);
    expect(forkProblem("snapshot://modal/im-123", "modal").ok).toBe(true);
    const refused = forkProblem("snapshot://docker/sha256:0123abcd", "modal", "template.image");
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error).toMatchObject({ code: "invalid", field: "template.image" });
      expect(refused.error.message).toMatch(
        /^template\.image snapshot:\/\/docker\/sha256:0123abcd is a snapshot taken on docker, which a computer on modal cannot start from/,
      );
    }
  });
});
