// Daytona's response schemas against recorded JSON written from its documented shapes
// (daytona/clients openapi-specs, the Sandbox, paginated list, ExecuteResponse and
// SessionExecuteResponse schemas), with the fields the provider reads and the ones it ignores.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { expect as expectAnswer } from "../../src/daytona/api.js";
import { networkOf, stateOf } from "../../src/daytona/readback.js";
import { ExecuteResponse, Sandbox, SandboxPage, SessionExecResponse, SnapshotDto } from "../../src/daytona/schemas.js";
import { sandboxDrift } from "../../src/daytona/drift.js";

const recorded = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/daytona/${name}`, import.meta.url), "utf8")) as Record<string, unknown>;

describe("Daytona's recorded JSON", () => {
  it("a sandbox parses, reads back none and running", () => {
    const sandbox = Sandbox.parse(recorded("sandbox.json"));
    expect(sandbox.labels["agentrun.computer"]).toBe("1");
    expect(networkOf(sandbox)).toBe("none");
    expect(stateOf(sandbox)).toBe("running");
  });

  it("a stopped sandbox reads paused only with the pause's label (archived too), else stopped; a snapshot's state parses", () => {
    const sandbox = Sandbox.parse(recorded("sandbox.json"));
    const paused = { ...sandbox, labels: { ...sandbox.labels, "agentrun.computer.paused": "2026-12-05T03:00:00.000Z" } };
    expect(stateOf({ ...sandbox, state: "stopped" })).toBe("stopped");
    expect(stateOf({ ...paused, state: "stopped" })).toBe("paused");
    expect(stateOf({ ...paused, state: "archived" })).toBe("paused");
    // Started by hand after a pause: running, whatever the label says.
    expect(stateOf({ ...paused, state: "started" })).toBe("running");
    expect(SnapshotDto.parse({ id: "s1", name: "n", state: "active", size: 0.5, createdAt: "2026-12-05T03:00:00Z", imageName: "x" })).toMatchObject({
      state: "active",
      size: 0.5,
    });
    expect(SnapshotDto.safeParse({ id: "s1", name: "n", size: 0.5 }).success).toBe(false);
  });

  it("a page, an execute answer and a session command parse", () => {
    expect(SandboxPage.parse(recorded("page.json")).items).toEqual([]);
    expect(ExecuteResponse.parse(recorded("execute.json")).exitCode).toBe(0);
    expect(SessionExecResponse.parse(recorded("session-exec.json")).cmdId).toMatch(/^c1b2/);
  });

  it("a sandbox missing a field the provider reads is a protocol failure in words", () => {
    const { memory: _m, ...rest } = recorded("sandbox.json");
    const answer = expectAnswer({ ok: true, value: { status: 200, json: rest, text: "" } }, "reading the sandbox", Sandbox);
    expect(answer.ok).toBe(false);
    if (!answer.ok) {
      expect(answer.error.code).toBe("protocol");
      expect(answer.error.message).toMatch(/memory/);
    }
  });

  it("a 401 is unauthorized, with Daytona's words and never the key", () => {
    const answer = expectAnswer({ ok: true, value: { status: 401, json: { message: "Invalid API key" }, text: "" } }, "listing", SandboxPage);
    expect(answer).toEqual({ ok: false, error: { code: "unauthorized", message: "listing: Daytona answered 401: Invalid API key" } });
  });

  it("the drift check reads every documented field", () => {
    const sandbox = Sandbox.parse(recorded("sandbox.json"));
    const want = {
      image: "default",
      imageLabel: true,
      labels: { "agentrun.run": "r1" },
      deadline: "2026-12-01T04:00:00.000Z",
      network: "none" as const,
      autoStopInterval: 0,
      autoDeleteInterval: -1,
      sandboxClass: "container",
    };
    expect(sandboxDrift(sandbox, want)).toEqual([]);
    const wide = Sandbox.parse({
      ...recorded("sandbox.json"),
      public: true,
      networkAllowList: "10.0.0.0/8",
      autoDestroyAt: "2026-12-01T05:00:00.000Z",
      gpu: 1,
      kvm: true,
    });
    const words = sandboxDrift(wide, { ...want, image: "my-snapshot" }).join("; ");
    for (const part of ["snapshot reads", "block-all with an allowlist", "autoDestroyAt", "public", "kvm", "GPUs", "agentrun.computer.image"])
      expect(words).toContain(part);
  });
});
