// A warm pool of browsers on the real Docker engine: a pool of two filled from a browser template;
// a claim through a PoolWatch (its bridge held, so no connect) and a claim with none (over the
// computer's own stdio) each hand out a browser at its blank page whose CDP answers at once,
// driven by chrome-remote-interface (pinned, not ours); the pool is empty after. Everything is
// removed at the end by the pool's label, which only this test's computers carry, and each claim
// record by its exact name.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { claim, fillPool, POOL_LABEL, poolReady, PoolWatch, type Claimed } from "../../src/fleet/pool.js";
import { claimedPages } from "../support/browser-computer.js";
import { docker, provider, spec, withLabel } from "../support/docker-helpers.js";

describe("a warm pool of browsers on Docker", () => {
  const docker_ = provider();
  const pool = { provider: docker_, id: `pool-${randomBytes(8).toString("hex")}` };
  const run = `pool-browser-${randomBytes(4).toString("hex")}`;
  const claimed: Claimed[] = [];

  beforeAll(async () => {
    const filled = await fillPool(pool, spec({ kind: "browser", image: "chromium", network: "none" }), 2);
    expect(filled.ok ? filled.value : filled.error).toHaveLength(2);
  }, 600_000);

  afterAll(async () => {
    for (const c of claimed) await c.close().catch(() => {});
    const left = withLabel({ [POOL_LABEL]: pool.id });
    const ids = left.map((name) => docker("inspect", "--format", "{{.Id}}", name));
    if (left.length) docker("rm", "--force", "--volumes", ...left);
    // Each claim's record by its exact name: left behind, another test's sweep would take it.
    for (const id of ids) docker("volume", "rm", "--force", `agentrun-claim-${id}`);
    await docker_.close();
  }, 120_000);

  test("hands out a browser at its blank page, CDP answering, through a watch and without one", async () => {
    const watch = new PoolWatch(pool, { connections: 1, everyMs: 60_000 });
    try {
      await watch.look();
      expect(watch.held()).toHaveLength(1);
      const viaWatch = await claim(watch, { run, epoch: 1 });
      if (!viaWatch.ok) throw new Error(viaWatch.error.message);
      claimed.push(viaWatch.value);
      expect(await claimedPages(viaWatch.value)).toEqual({ product: expect.stringMatching(/^(Headless)?Chrome\//), urls: ["about:blank"] });
    } finally {
      await watch.close();
    }
    const plain = await claim(pool, { run, epoch: 1 });
    if (!plain.ok) throw new Error(plain.error.message);
    claimed.push(plain.value);
    expect(plain.value.ref.id).not.toBe(claimed[0]!.ref.id);
    expect(await claimedPages(plain.value)).toEqual({ product: expect.stringMatching(/^(Headless)?Chrome\//), urls: ["about:blank"] });
    const ready = await poolReady(pool);
    expect(ready.ok && ready.value).toEqual([]);
  }, 120_000);
});
