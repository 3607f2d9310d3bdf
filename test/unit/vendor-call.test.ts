// The one bounded-call helper every vendor's SDK calls go through: the vendor's codes, the bound,
// the caller's abort, and a value that lands late handed over.
import { describe, expect, it } from "vitest";
import { boundedCall } from "../../src/contract/call.js";

const never = <T>() => new Promise<T>(() => undefined);
const codeOf = (error: unknown) => ((error as Error).name === "Gone" ? ("gone" as const) : ("failed" as const));

describe("boundedCall", () => {
  it("codes an SDK's error by the vendor's mapping, in words that name the call", async () => {
    const gone = Object.assign(new Error("it went"), { name: "Gone" });
    expect(await boundedCall(async () => Promise.reject(gone), { what: "read", ms: 1000 }, codeOf)).toEqual({
      ok: false,
      error: { code: "gone", message: "read: Gone: it went" },
    });
  });

  it("gives the call a signal that aborts at its bound, and hands a late value over", async () => {
    let given: AbortSignal | undefined;
    let land!: (v: string) => void;
    const late: string[] = [];
    const timedOut = await boundedCall(
      (signal) => ((given = signal), new Promise<string>((r) => (land = r))),
      { what: "x", ms: 20, late: (v) => late.push(v) },
      codeOf,
    );
    expect(timedOut).toEqual({ ok: false, error: { code: "timeout", message: "x did not answer within 0.02 s" } });
    expect(given?.aborted).toBe(true);
    land("landed");
    await new Promise((r) => setTimeout(r, 10));
    expect(late).toEqual(["landed"]);
  });

  it("is aborted by the caller, before it is sent or while it runs", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await boundedCall(never, { what: "y", ms: 1000, signal: controller.signal }, codeOf)).toEqual({
      ok: false,
      error: { code: "aborted", message: "y was aborted before it was sent" },
    });
    const running = new AbortController();
    const pending = boundedCall(never, { what: "y", ms: 10_000, signal: running.signal }, codeOf);
    running.abort();
    expect(await pending).toEqual({ ok: false, error: { code: "aborted", message: "y was aborted" } });
  });
});
