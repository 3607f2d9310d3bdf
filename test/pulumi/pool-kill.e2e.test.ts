// The plugin killed (SIGKILL) in the middle of a WarmPool's fill, through the real Pulumi engine
// on the real Docker engine: its create, and then its update to a larger size. The fill is held
// once its computers are up (the test-only setting agentrun:docker.testPause at hello, which
// writes the plugin's pid); the test kills that pid and stops one of the computers left, so one is
// not whole. The next up fills the same pool: every whole computer left is adopted (the same
// container), the stopped one removed and made again, and the pool holds exactly its size, no
// duplicate. destroy leaves nothing. After each, the planted secrets are found nowhere in clear.
import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { POOL_LABEL } from "../../src/fleet/pool.js";
import { docker } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";
import { disposeAll, labelled, until, type Listed } from "../support/fault-helpers.js";
import { leaks, plant } from "../support/planted-secrets.js";

process.env.AGENTRUN_COMPUTER_TEST = "1";
process.env.PULUMI_DEBUG_COMMANDS = "true";
const run = `faults-${randomBytes(6).toString("hex")}`;
const planted = plant();
const ours = () => labelled(run);

const pool = (size: number) => ({
  pool: {
    type: "agentrun:index:WarmPool",
    properties: {
      size,
      template: {
        image: toolchain().baseImage,
        lifetimeMs: 900_000,
        network: "none",
        cpus: 0.5,
        memoryMb: 128,
        pids: 128,
        labels: { "agentrun.test": run, planted: { "fn::secret": planted.label } },
      },
    },
  },
});
const outputs = { poolId: "${pool.poolId}", ready: "${pool.ready}" };

describe("the plugin killed in the middle of a WarmPool's fill", () => {
  let s: TestStack;
  const texts: Record<string, string> = {};
  const events: string[] = [];

  beforeAll(async () => {
    s = await testStack("faults-pool", pool(4), outputs);
    await s.cli("config", "set", "--path", "--secret", "agentrun:daytona.apiKey", planted.vendorKey);
  }, 120_000);

  afterAll(() => disposeAll(s, run), 300_000);

  /** An up held at hello until `running` new computers are up, its plugin then killed; one left stopped. */
  async function killedUp(step: string, running: number): Promise<{ left: Listed[]; stopped: Listed }> {
    const pidFile = join(s.dir, `pid-${step}`);
    await s.cli("config", "set", "--path", "agentrun:docker.testPause.at", "hello");
    await s.cli("config", "set", "--path", "agentrun:docker.testPause.file", pidFile);
    const before = new Set((await ours()).map((c) => c.id));
    events.push(`events-${step}.json`);
    const held = s.cli("up", "--yes", "--event-log", join(s.dir, `events-${step}.json`));
    const ended = held.then((r) => Promise.reject(new Error(`up ended (exit ${r.exitCode}) before its fill was held: ${r.stdout.slice(-2000)}${r.stderr}`)));
    const upNow = async () => {
      const pid = (await readFile(pidFile, "utf8").catch(() => "")).trim();
      const fresh = (await ours()).filter((c) => !before.has(c.id) && c.running);
      return pid && fresh.length >= running ? Number(pid) : undefined;
    };
    const pid = await Promise.race([until(`${running} computers up and the fill held`, upNow), ended]);
    process.kill(pid, "SIGKILL");
    const failed = await held;
    texts[step] = failed.stdout + failed.stderr;
    expect(failed.exitCode, failed.stdout.slice(-2000)).not.toBe(0);
    const left = (await ours()).filter((c) => !before.has(c.id));
    expect(left).toHaveLength(running);
    // Left by the fill, never made ready: still computer-<hex>.
    for (const c of left) expect(c.name).toMatch(/^computer-[0-9a-f]{12}$/);
    const stopped = left[0]!;
    await docker("stop", "--time", "1", stopped.name);
    await rm(pidFile, { force: true });
    await s.cli("config", "rm", "--path", "agentrun:docker.testPause");
    return { left, stopped };
  }

  async function upAgain(step: string): Promise<{ poolId: string; ready: number }> {
    events.push(`events-${step}-again.json`);
    const again = await s.cli("up", "--yes", "--event-log", join(s.dir, `events-${step}-again.json`));
    texts[`${step} again`] = again.stdout + again.stderr;
    expect(again.exitCode, again.stdout.slice(-3000) + again.stderr).toBe(0);
    const outs = await s.stack.outputs();
    return { poolId: String(outs.poolId?.value), ready: Number(outs.ready?.value) };
  }

  /** The pool's computers now: every one ready (pool-<hex>), running, with the pool's label. */
  async function members(poolId: string): Promise<Listed[]> {
    const all = await ours();
    for (const c of all) {
      expect(c.running, c.name).toBe(true);
      expect(c.name).toMatch(/^pool-[0-9a-f]{12}$/);
      expect((await docker("inspect", "--format", `{{index .Config.Labels "${POOL_LABEL}"}}`, c.name)).stdout).toBe(poolId);
    }
    return all;
  }

  let poolId = "";

  test("killed in its create: the next up fills the same pool, adopting the whole computers, and holds exactly its size", async () => {
    const { left, stopped } = await killedUp("create", 4);
    const leftPool = (await docker("inspect", "--format", `{{index .Config.Labels "${POOL_LABEL}"}}`, left[0]!.name)).stdout;
    const again = await upAgain("create");
    poolId = again.poolId;
    expect(poolId).toBe(leftPool);
    expect(again.ready).toBe(4);
    const now = await members(poolId);
    expect(now).toHaveLength(4);
    const ids = now.map((c) => c.id);
    for (const c of left.filter((l) => l !== stopped)) expect(ids).toContain(c.id);
    expect(ids).not.toContain(stopped.id);
  }, 600_000);

  test("killed in its update to a larger size: the next up adopts the whole computers, and holds exactly the new size", async () => {
    await s.program(pool(7), outputs);
    const kept = (await ours()).map((c) => c.id);
    const { left, stopped } = await killedUp("update", 3);
    const again = await upAgain("update");
    expect(again).toEqual({ poolId, ready: 7 });
    const ids = (await members(poolId)).map((c) => c.id);
    expect(ids).toHaveLength(7);
    for (const id of [...kept, ...left.filter((l) => l !== stopped).map((l) => l.id)]) expect(ids).toContain(id);
    expect(ids).not.toContain(stopped.id);
    const inside = await leaks(planted, { files: [], texts: {}, containers: (await ours()).map((c) => c.name) });
    expect(inside).toEqual([]);
  }, 600_000);

  test("destroy leaves nothing, and the planted secrets are nowhere in clear", async () => {
    const destroyed = await s.cli("destroy", "--yes", "--event-log", join(s.dir, "events-destroy.json"));
    texts.destroy = destroyed.stdout + destroyed.stderr;
    expect(destroyed.exitCode, destroyed.stdout.slice(-2000)).toBe(0);
    expect(await ours()).toEqual([]);
    const found = await leaks(planted, {
      files: [join(s.dir, "state"), ...[...events, "events-destroy.json"].map((e) => join(s.dir, e))],
      texts,
      containers: [],
    });
    expect(found).toEqual([]);
  }, 300_000);
});
