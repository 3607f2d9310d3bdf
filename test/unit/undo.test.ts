// The one undo stack: parts undone last first, each within its bound, failures in words.
import { describe, expect, it } from "vitest";
import { fail, ok } from "../../src/daemon/result.js";
import { Undo } from "../../src/contract/undo.js";

describe("Undo", () => {
  it("undoes every part, the last made first, and is empty after", async () => {
    const undo = new Undo();
    const order: string[] = [];
    for (const part of ["volume", "proxy", "container"]) undo.push({ what: part, run: async () => void order.push(part) });
    expect(await undo.run()).toEqual([]);
    expect(order).toEqual(["container", "proxy", "volume"]);
    expect(undo.size).toBe(0);
  });

  it("goes on past a failed undo and names each that failed, a throw or a failed result", async () => {
    const undo = new Undo();
    const order: string[] = [];
    undo.push({ what: "the volume", run: async () => void order.push("volume") });
    undo.push({ what: "the proxy", run: async () => fail("failed", "the engine said no") });
    undo.push({
      what: "the container",
      run: async () => {
        throw new Error("socket closed");
      },
    });
    expect(await undo.run()).toEqual(["undoing the container failed: socket closed", "undoing the proxy failed: the engine said no"]);
    expect(order).toEqual(["volume"]);
  });

  it("ends an undo at its bound, aborting its signal, even when it ignores the signal", async () => {
    const undo = new Undo();
    let aborted = false;
    undo.push({
      what: "the sandbox",
      ms: 50,
      run: (signal) => {
        signal.addEventListener("abort", () => (aborted = true));
        return new Promise(() => undefined);
      },
    });
    undo.push({ what: "the quick part", run: async () => ok() });
    const started = Date.now();
    expect(await undo.run()).toEqual(["undoing the sandbox did not finish within 0.05 s"]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(aborted).toBe(true);
  });

  it("keeps its parts once kept: nothing is undone", async () => {
    const undo = new Undo();
    let ran = false;
    undo.push({ what: "the container", run: async () => void (ran = true) });
    undo.keep();
    expect(await undo.run()).toEqual([]);
    expect(ran).toBe(false);
  });
  it("words a failed undo in the vendor's words when the part gives them", async () => {
    const undo = new Undo();
    undo.push({
      what: "computer-000000000001",
      run: async () => fail("failed", "E2B answered 500"),
      words: (w) => `killing computer-000000000001 failed: ${w}`,
    });
    expect(await undo.run()).toEqual(["killing computer-000000000001 failed: E2B answered 500"]);
  });
});
