// A step's lines reach the engine before the step answers: the engine records a provider's line
// only while its step runs, and a read answers in milliseconds.
import { afterEach, describe, expect, onTestFinished, test, vi } from "vitest";
import { stepLines } from "../../provider/engine-log.js";
import { makeProvider } from "../../provider/plugin.js";
import { engineStandIn, recordedInfo } from "../support/engine-stand-in.js";

/** A log whose lines land only when the test lets them, recording what was said. */
function heldLog() {
  const said: string[] = [];
  const holds: Array<() => void> = [];
  const log = (urn: string, message: string, ephemeral?: boolean) => {
    said.push(`${urn.split("::").at(-1)} ${ephemeral ? "status" : "kept"}: ${message}`);
    return new Promise<void>((resolve) => holds.push(resolve));
  };
  return { said, log, land: () => holds.splice(0).forEach((resolve) => resolve()) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("a step's lines", () => {
  test("landed() waits for every line said", async () => {
    const { log, land } = heldLog();
    const lines = stepLines(log, "urn:pulumi:s::p::t::r");
    lines.say("one");
    lines.say("two");
    let done = false;
    const landed = lines.landed().then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    land();
    await landed;
    expect(done).toBe(true);
  });

  test("landed() gives up on a line the engine never takes, at its bound", async () => {
    vi.useFakeTimers();
    const lines = stepLines(() => new Promise<void>(() => {}), "urn:pulumi:s::p::t::r");
    lines.say("lost");
    let done = false;
    const landed = lines.landed().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(1_999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await landed;
    expect(done).toBe(true);
  });

  test("a Computer's read says which it reads back and answers only once the line landed", async () => {
    const { said, log, land } = heldLog();
    // No container has this id: the read finds it gone, after saying what it read. The engine is a
    // stand-in answering this host's recorded info, empty lists of containers and volumes, and
    // Docker's 404 for the id.
    const id = "0".repeat(64);
    const stand = await engineStandIn((call) => {
      if (call === "GET /v1.41/info") return { status: 200, body: recordedInfo() };
      if (call.startsWith("GET /v1.41/containers/json?")) return { status: 200, body: [] };
      if (call.startsWith("GET /v1.41/volumes?")) return { status: 200, body: { Volumes: [], Warnings: null } };
      return { status: 404, body: { message: `No such container: ${id}` } };
    });
    onTestFinished(() => stand.close());
    const provider = makeProvider({ version: "0.0.0-test", schema: "{}", settings: { ok: true, value: { docker: { engine: stand.engine } } }, log });
    let answered = false;
    const read = provider.read!(id, "urn:pulumi:test::p::agentrun:index:Computer::c", { name: "computer-000000000000", vendorId: id }).then((r) => {
      answered = true;
      return r;
    });
    while (said.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    land();
    expect(await read).toEqual({});
    expect(said).toEqual([
      "c status: reading computer-000000000000 back from docker",
      expect.stringMatching(/^c status: reading computer-000000000000 back from docker: done in \d+ s$/),
    ]);
  });
});
