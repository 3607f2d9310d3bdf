// A warm pool's fill for an owner on the real Docker engine: each computer carries the owner label
// of its slot; what a fill cut off left (a whole computer made for a slot but never made ready,
// one stopped since) is adopted or removed by the next fill, one per slot, never more than the
// pool's size; and a computer a run has claimed is never taken back into its slot nor removed
// with the slot's later computer. Everything is removed by the test's own label, by exact name,
// pass or fail, with each claim record.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, test } from "vitest";
import { OWNER_LABEL, ownerLabel } from "../../src/contract/labels.js";
import { claim, drainPool, fillPool, POOL_LABEL, poolReady, slotOwner, type Claimed } from "../../src/fleet/pool.js";
import { docker, provider, spec, testLabel, withLabel } from "../support/docker-helpers.js";

const SMALL = { cpus: 0.5, memoryMb: 128, pids: 128 };
const owner = `/stack/folder\0urn:pulumi:test::pool-adopt::agentrun:index:WarmPool::pool-${randomBytes(4).toString("hex")}`;
const docker1 = provider();
const labelsMade: Array<Record<string, string>> = [];
const claimed: Claimed[] = [];

afterEach(async () => {
  for (const c of claimed.splice(0)) await c.close().catch(() => {});
  for (const labels of labelsMade.splice(0)) {
    for (const name of withLabel(labels)) {
      const id = docker("inspect", "--format", "{{.Id}}", name);
      docker("rm", "--force", "--volumes", name);
      docker("volume", "rm", "--force", `agentrun-claim-${id}`);
    }
  }
});

/** A new pool with a spec carrying the test's own label. */
function newPool() {
  const labels = testLabel();
  labelsMade.push(labels);
  return { pool: { provider: docker1, id: `pool-${randomBytes(8).toString("hex")}` }, s: spec({ labels, ...SMALL }), labels };
}
const slotLabel = (pool: string, slot: number) => ownerLabel(slotOwner(owner, pool, slot))[OWNER_LABEL];
const ownerOf = (name: string) => (JSON.parse(docker("inspect", "--format", "{{json .Config.Labels}}", name)) as Record<string, string>)[OWNER_LABEL];
const readyIds = async (pool: { provider: typeof docker1; id: string }) => {
  const ready = await poolReady(pool);
  return ready.ok ? ready.value.map((r) => r.id).sort() : [];
};

describe("a warm pool filled for an owner", () => {
  test("labels each computer with the owner of its slot", async () => {
    const { pool, s, labels } = newPool();
    const filled = await fillPool(pool, s, 2, { owner });
    expect(filled.ok ? filled.value : filled.error).toHaveLength(2);
    expect(withLabel(labels).map(ownerOf).sort()).toEqual([slotLabel(pool.id, 0), slotLabel(pool.id, 1)].sort());
  }, 180_000);

  test("the next fill adopts the whole computer a cut-off fill left, removes the stopped one, and makes the rest: exactly its size", async () => {
    const { pool, s, labels } = newPool();
    // What a fill cut off after each create left: computers made for slots 0 and 1, never made ready.
    const made = await Promise.all(
      [0, 1].map((slot) => docker1.create({ ...s, labels: { ...s.labels, [POOL_LABEL]: pool.id } }, { owner: slotOwner(owner, pool.id, slot) })),
    );
    const [whole, stopped] = made.map((m) => {
      if (!m.ok) throw new Error(m.error.message);
      return m.value;
    });
    docker("stop", "--time", "1", stopped!.name);
    expect(await readyIds(pool)).toEqual([]);

    const filled = await fillPool(pool, s, 3, { owner });
    expect(filled.ok ? filled.value : filled.error).toHaveLength(3);
    const ready = await readyIds(pool);
    expect(ready).toHaveLength(3);
    expect(ready).toContain(whole!.id);
    expect(ready).not.toContain(stopped!.id);
    // No duplicate: every computer of the pool is a ready one, one per slot.
    expect(withLabel(labels)).toHaveLength(3);
    expect(withLabel(labels).map(ownerOf).sort()).toEqual([0, 1, 2].map((slot) => slotLabel(pool.id, slot)).sort());
  }, 240_000);

  test("a claimed computer is never taken back: its slot's refill is a new computer, and draining that one leaves the claimed one", async () => {
    const { pool, s, labels } = newPool();
    expect((await fillPool(pool, s, 1, { owner })).ok).toBe(true);
    const c = await claim(pool, { run: `pool-adopt-${randomBytes(4).toString("hex")}`, epoch: 1 });
    if (!c.ok) throw new Error(c.error.message);
    claimed.push(c.value);
    // The refill's create for slot 0 has the claimed computer's labels: it must make another.
    expect((await fillPool(pool, s, 1, { owner })).ok).toBe(true);
    const ready = await readyIds(pool);
    expect(ready).toHaveLength(1);
    expect(ready).not.toContain(c.value.ref.id);
    expect(docker("inspect", "--format", "{{.Name}} {{.State.Running}}", c.value.ref.id)).toBe(`/${c.value.ref.name} true`);
    // The ready one's delete removes its owner's earlier computers, but never a claimed one.
    expect((await drainPool(pool, 0)).ok).toBe(true);
    expect(withLabel(labels)).toEqual([c.value.ref.name]);
  }, 240_000);
});
