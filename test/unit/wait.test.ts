import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { waitUntil } from "../../src/contract/wait.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A read that records when it ran, answering from a list of states. */
function reader<T>(states: T[]) {
  const times: number[] = [];
  const start = Date.now();
  const read = async () => {
    times.push(Date.now() - start);
    return states[Math.min(times.length - 1, states.length - 1)]!;
  };
  return { read, times };
}

describe("waitUntil", () => {
  it("reads at once and returns the first state done accepts", async () => {
    const { read, times } = reader(["finished"]);
    await expect(waitUntil(read, (s) => s === "finished", { boundMs: 10_000 })).resolves.toEqual({ ok: true, value: "finished" });
    expect(times).toEqual([0]);
  });

  it("pauses 250 ms, doubling to 5 s, between reads", async () => {
    const { read, times } = reader(["running", "running", "running", "running", "running", "running", "running", "running", "done"]);
    const waiting = waitUntil(read, (s) => s === "done", { boundMs: 60_000 });
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(waiting).resolves.toEqual({ ok: true, value: "done" });
    const pauses = times.slice(1).map((t, i) => t - times[i]!);
    expect(pauses).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it("never pauses past the bound, and is a timeout naming what it waited for and the last state", async () => {
    const { read, times } = reader(["running"]);
    const waiting = waitUntil(read, () => false, { boundMs: 1000, what: "the sandbox to finish", describe: (s) => `poll() ${s}` });
    await vi.advanceTimersByTimeAsync(1000);
    await expect(waiting).resolves.toEqual({
      ok: false,
      error: { code: "timeout", message: "the sandbox to finish did not come within 1000 ms; it last read poll() running" },
    });
    expect(times).toEqual([0, 250, 750]);
  });

  it("takes minMs and maxMs", async () => {
    const { read, times } = reader(["x"]);
    const waiting = waitUntil(read, () => false, { boundMs: 3000, minMs: 500, maxMs: 800 });
    await vi.advanceTimersByTimeAsync(3000);
    await waiting;
    expect(times).toEqual([0, 500, 1300, 2100, 2900]);
  });

  it("does not wait for a read still pending at the bound, and aborts its signal", async () => {
    let seen: AbortSignal | undefined;
    const read = (signal: AbortSignal) => {
      seen = signal;
      return new Promise<string>(() => {});
    };
    const waiting = waitUntil(read, () => true, { boundMs: 2000, what: "the delete" });
    await vi.advanceTimersByTimeAsync(2000);
    await expect(waiting).resolves.toEqual({ ok: false, error: { code: "timeout", message: "the delete did not come within 2000 ms; no read came back" } });
    expect(seen?.aborted).toBe(true);
  });

  it("counts a read that throws as not done, and says why, redacted", async () => {
    let n = 0;
    const read = async () => {
      n++;
      if (n < 3) throw new Error("GET https://api.vendor.example/sandboxes/1?key=abc: 503");
      return "gone";
    };
    const waiting = waitUntil(read, (s) => s === "gone", { boundMs: 10_000 });
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(waiting).resolves.toEqual({ ok: true, value: "gone" });

    const failing = waitUntil(
      async () => Promise.reject(new Error("GET https://api.vendor.example/x failed")),
      () => true,
      { boundMs: 300, what: "x" },
    );
    await vi.advanceTimersByTimeAsync(300);
    await expect(failing).resolves.toEqual({
      ok: false,
      error: { code: "timeout", message: "x did not come within 300 ms; its last read failed: GET <url> failed" },
    });
  });

  it("is aborted on the caller's abort, at once, naming the last state", async () => {
    const controller = new AbortController();
    const { read } = reader(["stopping"]);
    const waiting = waitUntil(read, () => false, { boundMs: 60_000, signal: controller.signal, what: "the stop" });
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await expect(waiting).resolves.toEqual({ ok: false, error: { code: "aborted", message: 'the wait for the stop was aborted; it last read "stopping"' } });
    await expect(waitUntil(read, () => true, { boundMs: 1, signal: AbortSignal.abort(), what: "y" })).resolves.toMatchObject({
      ok: false,
      error: { code: "aborted" },
    });
  });

  it("refuses a bound that is not a number of milliseconds", async () => {
    await expect(
      waitUntil(
        async () => 1,
        () => true,
        { boundMs: Number.NaN },
      ),
    ).resolves.toEqual({
      ok: false,
      error: { code: "invalid", message: "waitUntil: boundMs is a number of milliseconds, 0 or more" },
    });
  });
});
