// A fill for an owner makes each computer for the owner, the pool and a free slot (a ready
// computer holds its slot; a claimed one has left it), so a provider that keeps owners adopts one
// computer per slot; clearPool releases every computer no run has claimed. And the WarmPool's
// create fills the pool a cut-off create of the same resource and template was filling (its
// record), else a new one, clearing a cut-off one declared otherwise. The provider is a map in
// memory that keeps the owner's label as Docker does.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, test } from "vitest";
import { dropPending, readPending, writePending } from "../../provider/pool-pending.js";
import { resourceOwner } from "../../provider/resource.js";
import { warmPool } from "../../provider/resources/warm-pool.js";
import { ownerLabels, DECLARATION_LABEL, OWNER_LABEL, ownerLabel, RUN_LABEL } from "../../src/contract/labels.js";
import { clearPool, fillPool, POOL_LABEL, slotOwner } from "../../src/fleet/pool.js";
import type { ComputerInfo, ComputerProvider, ComputerRef, ComputerSpec, CreateOptions } from "../../src/contract/provider.js";
import { ok } from "../../src/daemon/result.js";
import { testContext } from "../support/context.js";

const POOL = "pool-0123456789abcdef";
const OWNER = "/stack\0urn:pulumi:test::p::agentrun:index:WarmPool::pool";
const SPEC: ComputerSpec = { image: "img", lifetimeMs: 60_000, network: "none" };

function inMemory() {
  const computers = new Map<string, { ref: ComputerRef; labels: Record<string, string> }>();
  const owners: Array<string | undefined> = [];
  let next = 0;
  const add = (labels: Record<string, string>, name = `computer-${String(next++).padStart(12, "0")}`) => {
    computers.set(name, { ref: { id: name, name, provider: "memory" }, labels });
    return name;
  };
  const provider = {
    id: "memory",
    create: async (spec: ComputerSpec, options: CreateOptions = {}) => {
      owners.push(options.owner);
      const name = add({ ...spec.labels, ...(options.owner === undefined ? {} : ownerLabel(options.owner)) });
      return ok(computers.get(name)!.ref);
    },
    list: async (labels: Record<string, string> = {}) =>
      ok(
        [...computers.values()]
          .filter((c) => Object.entries(labels).every(([k, v]) => c.labels[k] === v))
          .map((c): ComputerInfo => ({ ...c, deadline: undefined, state: "running", network: "none" })),
      ),
    release: async (ref: ComputerRef) => (computers.delete(ref.name), ok()),
    pool: {
      ready: async (ref: ComputerRef) => {
        const c = computers.get(ref.name)!;
        computers.delete(ref.name);
        const name = ref.name.replace("computer-", "pool-");
        computers.set(name, { ref: { ...c.ref, name }, labels: c.labels });
        return ok({ ...ref, name });
      },
      members: async (pool: string) =>
        ok([...computers.values()].filter((c) => c.labels[POOL_LABEL] === pool && c.ref.name.startsWith("pool-")).map((c) => c.ref)),
      take: async () => ok(undefined as never),
    },
  } as unknown as ComputerProvider;
  return { provider, computers, owners, add };
}

const slotLabel = (pool: string, slot: number) => ownerLabel(slotOwner(OWNER, pool, slot));

describe("a fill for an owner", () => {
  test("makes each computer for the owner, the pool and its slot", async () => {
    const m = inMemory();
    const filled = await fillPool({ provider: m.provider, id: POOL }, SPEC, 3, { owner: OWNER });
    expect(filled.ok && filled.value).toHaveLength(3);
    expect(m.owners).toEqual([0, 1, 2].map((slot) => slotOwner(OWNER, POOL, slot)));
    expect([...m.computers.values()].map((c) => c.labels[OWNER_LABEL]).sort()).toEqual([0, 1, 2].map((slot) => slotLabel(POOL, slot)[OWNER_LABEL]).sort());
  });

  test("makes only the slots no ready computer holds: a claimed computer has left its slot", async () => {
    const m = inMemory();
    m.add({ [POOL_LABEL]: POOL, ...slotLabel(POOL, 0) }, "pool-aaaaaaaaaaaa");
    m.add({ [POOL_LABEL]: POOL, ...slotLabel(POOL, 2) }, "pool-bbbbbbbbbbbb");
    // Slot 1's computer was claimed: renamed and its run's, no longer ready.
    m.add({ [POOL_LABEL]: POOL, ...slotLabel(POOL, 1), [RUN_LABEL]: "r1" }, "computer-cccccccccccc");
    const filled = await fillPool({ provider: m.provider, id: POOL }, SPEC, 4, { owner: OWNER });
    expect(filled.ok && filled.value).toHaveLength(2);
    expect(m.owners).toEqual([slotOwner(OWNER, POOL, 1), slotOwner(OWNER, POOL, 3)]);
  });

  test("another pool's slot is not this pool's: the owner names the pool", () => {
    expect(slotOwner(OWNER, POOL, 0)).not.toBe(slotOwner(OWNER, "pool-fedcba9876543210", 0));
    expect(ownerLabel(slotOwner(OWNER, POOL, 0))).not.toEqual(ownerLabel(slotOwner(OWNER, POOL, 1)));
  });

  test("a fill with no owner makes its computers for none, as before", async () => {
    const m = inMemory();
    await fillPool({ provider: m.provider, id: POOL }, SPEC, 2);
    expect(m.owners).toEqual([undefined, undefined]);
  });

  test("clearPool releases the ready computers and those a cut-off fill left, and keeps the claimed ones", async () => {
    const m = inMemory();
    m.add({ [POOL_LABEL]: POOL }, "pool-aaaaaaaaaaaa");
    m.add({ [POOL_LABEL]: POOL }, "computer-bbbbbbbbbbbb");
    m.add({ [POOL_LABEL]: POOL, [RUN_LABEL]: "r1" }, "computer-cccccccccccc");
    m.add({ [POOL_LABEL]: "pool-fedcba9876543210" }, "pool-dddddddddddd");
    const cleared = await clearPool({ provider: m.provider, id: POOL });
    expect(cleared.ok && cleared.value.sort()).toEqual(["computer-bbbbbbbbbbbb", "pool-aaaaaaaaaaaa"]);
    expect([...m.computers.keys()].sort()).toEqual(["computer-cccccccccccc", "pool-dddddddddddd"]);
  });
});

describe("a WarmPool's create", () => {
  // As a Computer's check gives it: labels filled in.
  const template = { provider: "memory", image: "img", lifetimeMs: 60_000, network: "none", labels: {} };
  const owners: string[] = [];
  afterEach(async () => {
    for (const o of owners.splice(0)) await dropPending(o);
  });
  /** A provider in memory, a step's context for a new WarmPool, and its owner (its record dropped after). */
  const step = () => {
    const m = inMemory();
    const ctx = {
      ...testContext(),
      vendor: async () => ok(m.provider),
      urn: `urn:pulumi:test::p::agentrun:index:WarmPool::pool-${randomBytes(4).toString("hex")}`,
    };
    const owner = resourceOwner(ctx)!;
    owners.push(owner);
    return { m, ctx, owner };
  };

  test("fills the pool a cut-off create of the same template was filling, then drops its record", async () => {
    const { m, ctx, owner } = step();
    await writePending(owner, { poolId: POOL, declaration: ownerLabels(owner, template)[DECLARATION_LABEL]!, provider: "memory" });
    // What the cut-off fill made ready: kept, and only the rest made.
    m.add({ [POOL_LABEL]: POOL, ...ownerLabel(slotOwner(owner, POOL, 0)) }, "pool-aaaaaaaaaaaa");
    const made = await warmPool.create(ctx, { size: 2, template });
    expect(made.id).toBe(POOL);
    expect(made.outs?.ready).toBe(2);
    expect(m.owners).toEqual([slotOwner(owner, POOL, 1)]);
    expect(await readPending(owner)).toBeUndefined();
  });

  test("makes a new pool when the cut-off one was declared otherwise, and clears that one", async () => {
    const { m, ctx, owner } = step();
    await writePending(owner, { poolId: POOL, declaration: ownerLabels(owner, { ...template, image: "other" })[DECLARATION_LABEL]!, provider: "memory" });
    m.add({ [POOL_LABEL]: POOL }, "pool-aaaaaaaaaaaa");
    const made = await warmPool.create(ctx, { size: 1, template });
    expect(made.id).not.toBe(POOL);
    expect([...m.computers.values()].map((c) => c.labels[POOL_LABEL])).toEqual([made.id]);
    expect(await readPending(owner)).toBeUndefined();
  });

  test("records its pool id before its first computer is made", async () => {
    const { m, ctx, owner } = step();
    const seen: Array<string | undefined> = [];
    const create = m.provider.create.bind(m.provider);
    m.provider.create = async (spec, options) => (seen.push((await readPending(owner))?.poolId), create(spec, options));
    const made = await warmPool.create(ctx, { size: 1, template });
    expect(seen).toEqual([made.id]);
  });
});
