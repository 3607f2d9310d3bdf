// Docker's state, the parts no engine is needed for: a paused container read back as paused, a
// snapshot's image name both ways, a fork's refusals, a take's refusals, and the config a snapshot
// is written with (nothing of the computer's own config in it).
import { describe, expect, it } from "vitest";
import { stateOf, specOf, type Inspected } from "../../src/docker/readback.js";
import { pausedRefusal } from "../../src/docker/run-state.js";
import { engineImageOf, forkRefusal, imageReadBack, snapshotIdOf } from "../../src/docker/snapshot-image.js";
import { browserRecipe } from "../../src/kits/browser/recipe.js";
import { takeProblem } from "../../src/docker/snapshots.js";
import { CAPABILITIES, DESKTOP_CAPABILITIES } from "../../src/docker/context.js";

const ID = "a".repeat(64);
const container = (over: Partial<Inspected> = {}): Inspected => ({
  Id: "c".repeat(64),
  Name: "/computer-0123456789ab",
  Config: { Labels: { "agentrun.computer": "1" } },
  Mounts: [],
  ...over,
});

describe("a paused computer (Docker)", () => {
  it("reads back paused from inspect (Running stays true while paused) and from the list", () => {
    expect(stateOf(container({ State: { Running: true, Paused: true, Status: "paused" } }))).toBe("paused");
    expect(stateOf(container({ State: { Running: true, Paused: false } }))).toBe("running");
    expect(stateOf(container({ State: { Running: false } }))).toBe("stopped");
  });

  it("refuses a connection in words that say it is paused and how to resume", () => {
    const refused = pausedRefusal("computer-0123456789ab");
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.code).toBe("refused");
      expect(refused.error.message).toBe(
        "computer-0123456789ab is paused: its processes are frozen where they stood and its daemon cannot answer; resume it first (declare state running, or call the provider's pause.resume)",
      );
    }
  });

  it("declares a pause that keeps memory, and snapshots, for linux and desktop", () => {
    for (const c of [CAPABILITIES, DESKTOP_CAPABILITIES]) expect([c.pause, c.snapshot]).toEqual(["memory", true]);
  });
});

describe("a snapshot's image (Docker)", () => {
  it("names the engine's image id, and a fork's container reads back as the snapshot", () => {
    expect(snapshotIdOf(`snapshot://docker/${ID}`)).toBe(ID);
    expect(snapshotIdOf(`snapshot://modal/${ID}`)).toBeUndefined();
    expect(snapshotIdOf("snapshot://docker/abc")).toBeUndefined();
    expect(engineImageOf(`snapshot://docker/${ID}`)).toBe(`sha256:${ID}`);
    expect(engineImageOf("debian:12")).toBe("debian:12");
    expect(imageReadBack(`sha256:${ID}`, { "agentrun.snapshot": "1" })).toBe(`snapshot://docker/${ID}`);
    // An image named by its id that is no snapshot stays as it was named.
    expect(imageReadBack(`sha256:${ID}`, {})).toBe(`sha256:${ID}`);
    const fork = container({ Config: { Image: `sha256:${ID}`, Labels: { "agentrun.computer": "1", "agentrun.snapshot": "1" } } });
    expect(specOf(fork).image).toBe(`snapshot://docker/${ID}`);
  });

  it("reads the browser recipe's image back as chromium on a browser and a desktop alone, by the label the recipe writes", () => {
    const hash = "ab".repeat(32);
    const tag = `agentrun-computer:${hash.slice(0, 12)}`;
    const recipe = { "agentrun.computer.recipe": hash, "agentrun.computer.recipe.image": "chromium" };
    expect(browserRecipe("agentrun-base:1")).toContain("LABEL agentrun.computer.recipe.image=chromium");
    expect(imageReadBack(tag, { ...recipe, "agentrun.computer.kind": "browser" })).toBe("chromium");
    expect(imageReadBack(tag, { ...recipe, "agentrun.computer.kind": "desktop" })).toBe("chromium");
    // A linux computer named the tag; a desktop's own recipe (Xvfb alone) carries no such label.
    expect(imageReadBack(tag, recipe)).toBe(tag);
    expect(imageReadBack(tag, { "agentrun.computer.recipe": hash, "agentrun.computer.kind": "desktop" })).toBe(tag);
    // Another image than the recipe's own, carrying the labels.
    expect(imageReadBack("debian:12", { ...recipe, "agentrun.computer.kind": "desktop" })).toBe("debian:12");
  });

  it("refuses a fork of another provider's snapshot, and a Docker one that names no image id, naming the field", () => {
    expect(forkRefusal("debian:12")).toBeUndefined();
    expect(forkRefusal(`snapshot://docker/${ID}`)).toBeUndefined();
    expect(forkRefusal("snapshot://modal/im-1")).toEqual({
      field: "image",
      message:
        "image snapshot://modal/im-1 is a snapshot taken on modal, which a computer on docker cannot start from: fork it on modal, or take a snapshot on docker",
    });
    expect(forkRefusal("snapshot://docker/im-1")?.message).toMatch(/is no Docker snapshot's: one is snapshot:\/\/docker\/<64 hex digits>/);
  });

  it("refuses a container that is not a computer, and one whose run folder its files would hold", () => {
    expect(takeProblem(container({ Config: { Labels: {} } }), false)?.message).toBe(
      "computer-0123456789ab is not a computer (it has no agentrun.computer=1 label), so no snapshot of it was taken",
    );
    expect(takeProblem(container(), true)?.message).toMatch(/run folder \/workspace is not a mount, so a snapshot would capture it; nothing was made/);
    expect(takeProblem(container(), false)).toBeUndefined();
    expect(takeProblem(container({ Mounts: [{ Type: "bind", Source: "/srv/run", Destination: "/workspace", RW: true }] }), true)).toBeUndefined();
  });
});
