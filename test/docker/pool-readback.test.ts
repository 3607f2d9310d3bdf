// A warm pool's computers read back as Computer's are: a ready one (named pool-<hex>) and a
// claimed one are as declared, so `agentrun ls` (listComputers) shows no drift for either.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, fillPool, POOL_LABEL, poolReady, type Claimed } from "../../src/fleet/pool.js";
import { listComputers } from "../../src/fleet/listing.js";
import { docker, provider, spec, withLabel } from "../support/docker-helpers.js";

describe("a warm pool's computers as read back", () => {
  const docker_ = provider();
  const pool = { provider: docker_, id: `pool-${randomBytes(8).toString("hex")}` };
  let claimed: Claimed | undefined;

  beforeAll(async () => {
    const filled = await fillPool(pool, spec({ memoryMb: 128, cpus: 0.5, pids: 128 }), 2);
    expect(filled.ok ? filled.value : filled.error).toHaveLength(2);
  }, 300_000);

  afterAll(async () => {
    await claimed?.close().catch(() => {});
    const names = withLabel({ [POOL_LABEL]: pool.id });
    const ids = names.map((name) => docker("inspect", "--format", "{{.Id}}", name));
    if (names.length) docker("rm", "--force", "--volumes", ...names);
    for (const id of ids) docker("volume", "rm", "--force", `agentrun-claim-${id}`);
    await docker_.engine.close();
  }, 120_000);

  test("a ready computer (pool-<hex>) reads back with no drift", async () => {
    const ready = await poolReady(pool);
    if (!ready.ok) throw new Error(ready.error.message);
    const read = await docker_.read({ id: ready.value[0]!.id });
    expect(read.ok && read.value.drift).toEqual([]);
  }, 120_000);

  test("listed, a ready and a claimed computer are both as declared", async () => {
    const won = await claim(pool, { run: `pool-read-${randomBytes(4).toString("hex")}`, epoch: 1 });
    if (!won.ok) throw new Error(won.error.message);
    claimed = won.value;
    const listed = await listComputers(docker_, { [POOL_LABEL]: pool.id });
    if (!listed.ok) throw new Error(listed.error.message);
    expect(
      listed.value.map((l) => ({ name: l.info.ref.name.split("-")[0], readBack: l.readBack, drift: l.drift })).sort((a, b) => a.name!.localeCompare(b.name!)),
    ).toEqual([
      { name: "computer", readBack: true, drift: [] },
      { name: "pool", readBack: true, drift: [] },
    ]);
  }, 120_000);
});
