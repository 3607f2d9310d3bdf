// claim's refusals and its one cleanup, each alone, with a provider whose pool hooks are a list in
// memory: a bad pool, run or epoch is refused before the vendor is asked; a provider with no
// atomic claim is refused in words; a computer taken but not reachable is released, not left.
// And the WarmPool's own rules: its size, and a template a pool cannot take.
import { describe, expect, test } from "vitest";
import { poolSizeProblem, poolTemplateProblems } from "../../provider/resources/warm-pool.js";
import { claim } from "../../src/fleet/pool.js";
import type { ComputerProvider, ComputerRef } from "../../src/contract/provider.js";
import { fail, ok } from "../../src/daemon/result.js";

const POOL = "pool-0123456789abcdef";

function inMemory(opts: { connects: boolean; hooks?: boolean; ownWay?: boolean; ownWayFails?: boolean }) {
  const ready: ComputerRef[] = [{ id: "a".repeat(64), name: "pool-aaaaaaaaaaaa", provider: "memory" }];
  const asked: string[] = [];
  const released: string[] = [];
  const provider = {
    id: "memory",
    connect: async (ref: ComputerRef) => (
      asked.push(`connect ${ref.name}`),
      opts.connects ? ok({ client: {}, hello: {}, close: async () => {} }) : fail("gone", `the daemon in ${ref.name} did not answer hello`)
    ),
    release: async (ref: ComputerRef) => (released.push(ref.name), ok()),
    ...(opts.hooks === false
      ? {}
      : {
          pool: {
            ready: async (ref: ComputerRef) => ok(ref),
            members: async () => ok(ready),
            take: async (pool: string, labels: Record<string, string>) => {
              asked.push(`take ${pool} ${JSON.stringify(labels)}`);
              const one = ready.shift();
              if (!one) return fail("not_found", `pool ${pool} has no ready computer`);
              const ref = { ...one, name: one.name.replace("pool-", "computer-") };
              const connect = async () => (
                asked.push(`own way ${ref.name}`),
                opts.ownWayFails
                  ? fail("timeout", `the daemon in ${ref.name} did not say hello within 30 s`)
                  : ok({ client: {}, hello: {}, close: async () => {} })
              );
              return ok({ ref, ...(opts.ownWay ? { connect } : {}) });
            },
          },
        }),
  } as unknown as ComputerProvider;
  return { provider, asked, released };
}

describe("claim", () => {
  test.each([
    [{ id: "pool-x" }, { run: "r1", epoch: 1 }, "pool", /a pool id is pool- and 8 to 32 hex digits/],
    [{ id: POOL }, { run: "", epoch: 1 }, "run", /a run id is a non-empty string/],
    [{ id: POOL }, { run: "r1", epoch: -1 }, "epoch", /an epoch is from 0 to 2\^53 - 1/],
  ])("refuses %o %o in words naming %s, asking the vendor nothing", async (pool, of, field, words) => {
    const m = inMemory({ connects: true });
    const r = await claim({ provider: m.provider, ...pool }, of);
    expect(r.ok ? r : r.error).toMatchObject({ code: "invalid", field, message: expect.stringMatching(words) });
    expect(m.asked).toEqual([]);
  });

  test("takes a ready computer with the run's labels and connects to it", async () => {
    const m = inMemory({ connects: true });
    const r = await claim({ provider: m.provider, id: POOL }, { run: "r1", epoch: 3 });
    expect(r.ok && r.value.ref.name).toBe("computer-aaaaaaaaaaaa");
    expect(m.asked).toEqual([`take ${POOL} {"agentrun.run":"r1","agentrun.epoch":"3"}`, "connect computer-aaaaaaaaaaaa"]);
  });

  test("a take that hands the claim a way of its own to connect (Docker: the computer's own stdio) is connected through it, not through connect", async () => {
    const m = inMemory({ connects: true, ownWay: true });
    const r = await claim({ provider: m.provider, id: POOL }, { run: "r1", epoch: 3 });
    expect(r.ok && r.value.ref).toEqual({ id: "a".repeat(64), name: "computer-aaaaaaaaaaaa", provider: "memory" });
    expect(m.asked).toEqual([`take ${POOL} {"agentrun.run":"r1","agentrun.epoch":"3"}`, "own way computer-aaaaaaaaaaaa"]);
  });

  test("a take's own way that fails (a stdin another attach took first) falls back to connect, and the claim holds", async () => {
    const m = inMemory({ connects: true, ownWay: true, ownWayFails: true });
    const r = await claim({ provider: m.provider, id: POOL }, { run: "r1", epoch: 3 });
    expect(r.ok).toBe(true);
    expect(m.asked.slice(1)).toEqual(["own way computer-aaaaaaaaaaaa", "connect computer-aaaaaaaaaaaa"]);
    expect(m.released).toEqual([]);
  });

  test("an empty pool is not_found, in the provider's words", async () => {
    const m = inMemory({ connects: true });
    await claim({ provider: m.provider, id: POOL }, { run: "r1", epoch: 1 });
    const r = await claim({ provider: m.provider, id: POOL }, { run: "r1", epoch: 1 });
    expect(r.ok ? r : r.error).toMatchObject({ code: "not_found", message: `pool ${POOL} has no ready computer` });
  });

  test("a provider with no atomic claim is refused in words", async () => {
    const m = inMemory({ connects: true, hooks: false });
    const r = await claim({ provider: m.provider, id: POOL }, { run: "r1", epoch: 1 });
    expect(r.ok ? r : r.error).toMatchObject({ code: "unsupported", message: expect.stringMatching(/the memory provider has no warm pools/) });
  });

  test("a computer taken but not reachable is released, and the failure says so", async () => {
    const m = inMemory({ connects: false });
    const r = await claim({ provider: m.provider, id: POOL }, { run: "r1", epoch: 1 });
    expect(r.ok ? r : r.error).toMatchObject({ code: "gone", message: expect.stringMatching(/^claimed computer-aaaaaaaaaaaa from pool .*; it was released$/) });
    expect(m.released).toEqual(["computer-aaaaaaaaaaaa"]);
  });
});

describe("a WarmPool's rules", () => {
  test.each([0, 1, 100])("size %s is taken", (size) => expect(poolSizeProblem(size)).toBeUndefined());
  test.each([-1, 101, 2.5, "4"])("size %s is refused", (size) => expect(poolSizeProblem(size)).toBe("size is a whole number from 0 to 100"));
  test("a template with network allow is refused: the proxy is made for a name a claim changes", () => {
    expect(poolTemplateProblems({ network: "allow", allow: ["pypi.org"] })).toEqual([
      { property: "template", reason: expect.stringMatching(/a warm pool takes network none or open/) },
    ]);
  });
  test("a template joining a shared egress proxy is refused", () => {
    expect(poolTemplateProblems({ egress: { name: "proxy-0123456789ab" } })).toEqual([
      { property: "template", reason: expect.stringMatching(/does not join a shared proxy/) },
    ]);
  });
  test("a template with a run's labels or the pool's is refused, naming each", () => {
    const reasons = poolTemplateProblems({ network: "none", labels: { "agentrun.run": "r1", "agentrun.epoch": "1", "agentrun.pool": "x", team: "a" } }).map(
      (p) => p.reason,
    );
    expect(reasons).toHaveLength(3);
    expect(reasons[0]).toMatch(/template.labels has agentrun.run, which a claim gives/);
  });
  test("a template declaring paused is refused: a pool's computers are running, ready to claim", () => {
    expect(poolTemplateProblems({ network: "none", state: "paused" })).toEqual([
      { property: "template", reason: expect.stringMatching(/^template.state paused is refused: a warm pool keeps its computers running/) },
    ]);
    expect(poolTemplateProblems({ network: "none", state: "running" })).toEqual([]);
  });
  test("a template with network none and the caller's own labels is taken", () =>
    expect(poolTemplateProblems({ network: "none", labels: { team: "a" } })).toEqual([]));
});
