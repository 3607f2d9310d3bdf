// An app's steps read as data, never by the words of their failures: the ready check by its exit
// code (exit 1 is the wait's own end, the bound passed; another is the check's own failure, the
// code in the failure's detail), and a service named in words as its caller names it.
import { describe, expect, it } from "vitest";
import type { Session } from "../../src/inside/session.js";
import { startServices, waitReady } from "../../src/inside/app.js";
import { runQuietly } from "../../src/inside/load.js";

/** A session whose daemon answers every exec.run with this exit. */
function exiting(exitCode: number | null, signal: string | null = null): Session {
  const run = { exitCode, signal, stdout: "", stderr: Buffer.from("said something\n").toString("base64"), timedOut: false, truncated: false };
  return { name: "computer-0123456789ab", home: "/home/u", client: { call: async () => run } } as unknown as Session;
}

const ready = { port: 8080, timeoutSeconds: 2 } as const;

describe("waitReady", () => {
  it("is a timeout when the wait ends with exit 1", async () => {
    expect(await waitReady(exiting(1), ready)).toEqual({
      ok: false,
      error: { code: "timeout", message: "computer-0123456789ab: port 8080 on the loopback did not answer within 2 s" },
    });
  });

  it("is the check's own failure, with its code, when the wait ends with another code (11 is not 1)", async () => {
    const waited = await waitReady(exiting(11), ready);
    expect(waited).toMatchObject({ ok: false, error: { code: "failed", detail: { kind: "exited", code: 11 } } });
  });
});

describe("runQuietly", () => {
  it("carries the exit as data beside its words", async () => {
    expect(await runQuietly(exiting(3), ["false"], 1000, "a step", {})).toEqual({
      ok: false,
      error: { code: "failed", message: "computer-0123456789ab: a step exited 3: said something", detail: { kind: "exited", code: 3 } },
    });
    expect(await runQuietly(exiting(null, "KILL"), ["sleep", "9"], 1000, "a step", {})).toMatchObject({
      ok: false,
      error: { message: "computer-0123456789ab: a step exited on KILL: said something", detail: { kind: "exited", code: null, signal: "KILL" } },
    });
  });
});

describe("startServices", () => {
  it("names a service that could not start as its caller names it, else as the service <name>", async () => {
    const refusing = {
      name: "computer-0123456789ab",
      client: {
        call: async () => {
          throw new Error("no such file");
        },
      },
    } as unknown as Session;
    expect(await startServices(refusing, "/home/u/app", { launch: { argv: ["x"], named: "the launch" } }, {})).toEqual({
      ok: false,
      error: { code: "failed", message: "computer-0123456789ab: the launch could not start: no such file" },
    });
    expect(await startServices(refusing, "/home/u/app", { web: { argv: ["x"] } }, {})).toMatchObject({
      ok: false,
      error: { message: "computer-0123456789ab: the service web could not start: no such file" },
    });
  });
});
