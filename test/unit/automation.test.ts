// @agentrun/computer/automation's refusals, made before any engine call, and the engine's events
// as progress. (The engine runs are in test/pulumi.)
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { computerStack, progressOf } from "../../src/fleet/automation.js";

const URN = "urn:pulumi:r1::agentrun-computers::agentrun:index:Computer::worker-0";
const meta = { op: "create" as const, urn: URN, type: "agentrun:index:Computer", provider: "" };

describe("computerStack refuses before it makes anything", () => {
  test("no passphrase: invalid, naming the field, and no state folder made", async () => {
    const state = join(tmpdir(), `agentrun-never-${process.pid}`);
    const r = await computerStack({ stack: "r1", program: () => ({}), passphrase: "", state });
    expect(r).toMatchObject({ ok: false, error: { code: "invalid", field: "passphrase" } });
    expect(existsSync(state)).toBe(false);
  });

  test("a relative state folder: invalid, naming the field", async () => {
    const r = await computerStack({ stack: "r1", program: () => ({}), passphrase: "p", state: "state" });
    expect(r).toMatchObject({
      ok: false,
      error: { code: "invalid", field: "state", message: "state is a folder's absolute path or a backend's URL, not \"state\"" },
    });
  });
});

describe("progressOf", () => {
  test("a step's start, end and failure, by the resource's type and name", () => {
    expect(progressOf({ sequence: 1, timestamp: 0, resourcePreEvent: { metadata: meta } })).toEqual({
      kind: "step",
      op: "create",
      type: "agentrun:index:Computer",
      name: "worker-0",
      status: "started",
    });
    expect(progressOf({ sequence: 2, timestamp: 0, resOutputsEvent: { metadata: meta } })).toMatchObject({ status: "done" });
    expect(progressOf({ sequence: 3, timestamp: 0, resOpFailedEvent: { metadata: meta, status: 1, steps: 0 } })).toMatchObject({ status: "failed" });
  });

  test("a line said on a resource, with its type and name; one said on none, without", () => {
    const said = { message: "waiting for the docker computer to start\n", color: "never", severity: "info" as const };
    expect(progressOf({ sequence: 1, timestamp: 0, diagnosticEvent: { ...said, urn: URN } })).toEqual({
      kind: "note",
      severity: "info",
      message: "waiting for the docker computer to start",
      type: "agentrun:index:Computer",
      name: "worker-0",
    });
    expect(progressOf({ sequence: 1, timestamp: 0, diagnosticEvent: said })).toEqual({
      kind: "note",
      severity: "info",
      message: "waiting for the docker computer to start",
    });
  });

  test("debug lines and other events are not progress", () => {
    expect(progressOf({ sequence: 1, timestamp: 0, diagnosticEvent: { message: "x", color: "never", severity: "debug" as "info" } })).toBeUndefined();
    expect(progressOf({ sequence: 1, timestamp: 0, stdoutEvent: { message: "x", color: "never" } })).toBeUndefined();
  });
});
