import { describe, expect, it } from "vitest";
import { releaseOlder, sweep, sweepPlan } from "../../src/fleet/janitor.js";
import { runLabels } from "../../src/contract/labels.js";
import { JANITOR_VENDOR, MemoryComputers } from "../support/memory-computers.js";

const now = new Date("2026-11-29T12:00:00Z");
const at = (ms: number) => new Date(now.getTime() + ms);
const DAY = 86_400_000;

describe("sweepPlan (sweep --dry-run)", () => {
  it("names what sweep would delete by the same rule, and deletes nothing", async () => {
    const p = new MemoryComputers(JANITOR_VENDOR);
    const past = p.add({}, at(-1), "stopped");
    const missing = p.add({}, null);
    p.add({}, at(1000));
    const planned = await sweepPlan(p, { now });
    expect(planned.ok && planned.value.due.map((info) => info.ref.name)).toEqual([past, missing]);
    expect(planned.ok && planned.value.kept).toBe(1);
    expect(p.store.size).toBe(3);
  });
});

describe("sweep", () => {
  it("deletes computers past, at, missing or unreadable deadlines, keeps the rest", async () => {
    const p = new MemoryComputers(JANITOR_VENDOR);
    const past = p.add({}, at(-1), "stopped");
    const exactly = p.add({}, at(0));
    const missing = p.add({}, null);
    const invalid = p.add({}, new Date(Number.NaN));
    const tooFar = p.add({}, at(30 * DAY + 60_000 + 1));
    p.add({}, at(30 * DAY + 60_000)); // the cap and a minute of skew: still a deadline the provider could write
    p.add({}, at(1000));
    const swept = await sweep(p, { now });
    expect(swept).toEqual({ ok: true, value: { deleted: [past, exactly, missing, invalid, tooFar], kept: 2 } });
    expect(p.store.size).toBe(2);
  });

  it("lists with the labels it is given, and touches nothing else", async () => {
    const p = new MemoryComputers(JANITOR_VENDOR);
    const ours = p.add({ team: "a" }, at(-1));
    const theirs = p.add({ team: "b" }, at(-1));
    expect(await sweep(p, { now, labels: { team: "a" } })).toEqual({ ok: true, value: { deleted: [ours], kept: 0 } });
    expect(p.listed).toEqual([{ team: "a" }]);
    expect(p.store.has(theirs)).toBe(true);
  });

  it("refuses a provider whose vendor ends its computers", async () => {
    const p = new MemoryComputers({ ...JANITOR_VENDOR, lifetime: "vendor" });
    p.add({}, at(-1));
    const swept = await sweep(p, { now });
    expect(swept).toMatchObject({ ok: false, error: { code: "unsupported" } });
    expect(!swept.ok && swept.error.message).toContain('memory declares lifetime "vendor"');
    expect(p.listed).toEqual([]);
  });

  it("goes on past a computer it cannot delete, and fails naming it and what was deleted", async () => {
    const p = new MemoryComputers(JANITOR_VENDOR);
    const a = p.add({}, at(-1));
    const b = p.add({}, at(-1));
    const c = p.add({}, at(-1));
    p.failing.set(b, "docker rm said no");
    expect(await sweep(p, { now })).toEqual({
      ok: false,
      error: { code: "failed", message: `the sweep could not delete ${b} (docker rm said no); deleted ${a}, ${c}` },
    });
  });

  it("starts no further delete once aborted, and says which ran", async () => {
    const p = new MemoryComputers(JANITOR_VENDOR);
    const a = p.add({}, at(-1));
    const b = p.add({}, at(-1));
    const controller = new AbortController();
    p.onRelease = (name) => name === a && controller.abort();
    const swept = await sweep(p, { now, signal: controller.signal });
    expect(swept).toEqual({
      ok: false,
      error: { code: "aborted", message: `the sweep was aborted; deleted none; left ${a} (the release of ${a} was aborted); not started: ${b}` },
    });
    expect(p.store.has(b)).toBe(true);
  });
});

describe("releaseOlder", () => {
  /** Epochs 1, 2 and 3 of run r1, and epoch 1 of run r2. */
  function fleet() {
    const p = new MemoryComputers(JANITOR_VENDOR);
    const e1 = p.add(runLabels("r1", 1));
    const e2 = p.add(runLabels("r1", 2));
    const e3 = p.add(runLabels("r1", 3));
    const other = p.add(runLabels("r2", 1));
    return { p, e1, e2, e3, other };
  }

  it("at epoch 3 releases 1 and 2, keeps 3 and the other run's", async () => {
    const { p, e1, e2, e3, other } = fleet();
    expect(await releaseOlder(p, "r1", 3)).toEqual({ ok: true, value: { released: [e1, e2], kept: [e3], unproven: [] } });
    expect([...p.store.keys()]).toEqual([e3, other]);
    expect(p.listed).toEqual([{ "agentrun.run": "r1" }]);
  });

  it("at epoch 2 after it, is refused as fenced and releases nothing", async () => {
    const { p, e3 } = fleet();
    await releaseOlder(p, "r1", 3);
    const before = [...p.store.keys()];
    const fenced = await releaseOlder(p, "r1", 2);
    expect(fenced).toEqual({
      ok: false,
      error: {
        code: "refused",
        message: `fenced: run "r1" has ${e3} at epoch 3, above this claim's epoch 2; a later claim holds the run, so nothing was released`,
      },
    });
    expect([...p.store.keys()]).toEqual(before);
  });

  it("is fenced before it releases anything, even with older computers listed first", async () => {
    const { p } = fleet();
    const fenced = await releaseOlder(p, "r1", 2);
    expect(fenced.ok).toBe(false);
    expect(p.released).toEqual([]);
  });

  it("releases a computer whose epoch it cannot read, naming it unproven with why", async () => {
    const p = new MemoryComputers(JANITOR_VENDOR);
    const none = p.add({ "agentrun.run": "r1" });
    const bad = p.add({ "agentrun.run": "r1", "agentrun.epoch": "03" });
    const current = p.add(runLabels("r1", 3));
    expect(await releaseOlder(p, "r1", 3)).toEqual({
      ok: true,
      value: {
        released: [none, bad],
        kept: [current],
        unproven: [
          { name: none, why: "the computer has no agentrun.epoch label" },
          { name: bad, why: 'the agentrun.epoch label reads "03", not an epoch: decimal digits with no sign, leading zero or space' },
        ],
      },
    });
  });

  it("holds each listed computer to the run's label again, whatever list gave", async () => {
    const { p, other } = fleet();
    p.list = async () => ({
      ok: true,
      value: [...p.store.values()].map((c) => ({ ref: c.ref, labels: c.labels, deadline: c.deadline, state: c.state, network: "none" as const })),
    });
    const result = await releaseOlder(p, "r1", 3);
    expect(result.ok).toBe(true);
    expect(p.store.has(other)).toBe(true);
  });

  it("attempts every release; a failed one fails the whole, with what was released", async () => {
    const { p, e1, e2 } = fleet();
    p.failing.set(e1, "docker rm timed out");
    expect(await releaseOlder(p, "r1", 3)).toEqual({
      ok: false,
      error: { code: "failed", message: `releaseOlder for run "r1" at epoch 3 left ${e1} (docker rm timed out); released ${e2}` },
    });
  });

  it("starts no further release once aborted, and says which ran", async () => {
    const { p, e1, e2 } = fleet();
    const controller = new AbortController();
    const release = p.release.bind(p);
    p.release = async (ref, how) => {
      const result = await release(ref, how);
      controller.abort(); // the caller gives up while the first release runs
      return result;
    };
    expect(await releaseOlder(p, "r1", 3, { signal: controller.signal })).toEqual({
      ok: false,
      error: { code: "aborted", message: `releaseOlder for run "r1" was aborted; released ${e1}; not started: ${e2}` },
    });
    expect(p.store.has(e2)).toBe(true);
  });

  it("refuses a bad run or epoch in words, listing nothing", async () => {
    const { p } = fleet();
    expect(await releaseOlder(p, "", 1)).toMatchObject({
      ok: false,
      error: { code: "invalid", field: "run", message: "releaseOlder: a run id is a non-empty string" },
    });
    expect(await releaseOlder(p, "r1", -1)).toMatchObject({ ok: false, error: { code: "invalid", field: "epoch" } });
    expect(p.listed).toEqual([]);
  });
});
