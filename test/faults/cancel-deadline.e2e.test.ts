// Two faults of an `up`, through the real Pulumi engine on the real Docker engine.
// - The operation cancelled while a create is under way: the CLI gets SIGINT (Ctrl-C; on a local
//   backend `pulumi cancel` only removes the lock, so the CLI's own cancel is the one that
//   reaches the plugin) while the create is held after its container started; what was made is
//   either in the state or removed, and destroy leaves nothing.
// - A computer's deadline passing: the next refresh shows it stopped, the next up replaces it.
// After each, the planted secrets are found nowhere in clear.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";
import { labelled, until } from "./helpers.js";
import { leaks, plant } from "./secrets.js";

process.env.AGENTRUN_COMPUTER_TEST = "1";
process.env.PULUMI_DEBUG_COMMANDS = "true";
const planted = plant();

function computer(run: string, lifetimeMs: number) {
  return {
    type: "agentrun:index:Computer",
    properties: {
      image: toolchain().baseImage, lifetimeMs, network: "none", cpus: 0.5, memoryMb: 256, pids: 128,
      labels: { "agentrun.test": run, planted: { "fn::secret": planted.label } },
    },
  };
}

async function stateComputers(s: TestStack): Promise<Array<{ name: string; state: string }>> {
  const resources = (await s.stack.exportStack()).deployment.resources ?? [];
  return resources
    .filter((r: { type: string }) => r.type === "agentrun:index:Computer")
    .map((r: { outputs?: Record<string, unknown> }) => ({ name: String(r.outputs?.name), state: String(r.outputs?.state) }));
}

describe("an up cancelled while a create is under way", () => {
  const run = `faults-${randomBytes(6).toString("hex")}`;
  let s: TestStack;
  const texts: Record<string, string> = {};

  beforeAll(async () => {
    s = await testStack("faults-cancel", { c: computer(run, 900_000) });
    await s.cli("config", "set", "--path", "--secret", "agentrun:daytona.apiKey", planted.vendorKey);
  }, 120_000);
  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      const left = (await labelled(run)).map((c) => c.name);
      if (left.length) await docker("rm", "--force", "--volumes", ...left);
    }
  }, 300_000);

  test("what was made is in the state or removed, and destroy leaves nothing", async () => {
    const pidFile = join(s.dir, "pid");
    await s.cli("config", "set", "--path", "agentrun:docker.testPause.at", "after-run");
    await s.cli("config", "set", "--path", "agentrun:docker.testPause.file", pidFile);
    const up = execa(`${toolchain().pulumiBin}/pulumi`, ["up", "--yes", "--stack", "test", "--non-interactive", "--event-log", join(s.dir, "events-up.json")], {
      cwd: s.dir, env: s.env, reject: false,
    });
    await until("the create to be held after its container started", async () => (await readFile(pidFile, "utf8").catch(() => "")) || undefined);
    expect((await labelled(run)).length).toBe(1);
    up.kill("SIGINT");
    const cancelled = await up;
    texts.up = `${cancelled.stdout}${cancelled.stderr}`;
    expect(cancelled.exitCode, String(cancelled.stdout).slice(-3000)).not.toBe(0);
    // The engine's cancel reached the plugin: the create ended as aborted and removed its container.
    expect(String(cancelled.stdout)).toMatch(/was aborted.*computer-[0-9a-f]{12} was (deleted|removed)/);
    expect(await labelled(run)).toEqual([]);
    const there = (await labelled(run)).map((c) => c.name);
    const inState = (await stateComputers(s)).map((c) => c.name);
    for (const name of there) expect(inState).toContain(name);
    for (const name of there) s.made.add(name);
    const inside = await leaks(planted, { files: [], texts: {}, containers: there });

    await s.cli("config", "rm", "--path", "agentrun:docker.testPause");
    const destroyed = await s.cli("destroy", "--yes", "--event-log", join(s.dir, "events-destroy.json"));
    texts.destroy = destroyed.stdout + destroyed.stderr;
    expect(destroyed.exitCode, destroyed.stdout.slice(-3000)).toBe(0);
    expect(await labelled(run)).toEqual([]);
    const found = await leaks(planted, { files: ["state", "events-up.json", "events-destroy.json"].map((f) => join(s.dir, f)), texts, containers: [] });
    expect([...inside, ...found]).toEqual([]);
  }, 600_000);
});

describe("a computer whose deadline passes", () => {
  const run = `faults-${randomBytes(6).toString("hex")}`;
  const LIFETIME_MS = 20_000;
  let s: TestStack;
  const texts: Record<string, string> = {};

  beforeAll(async () => {
    s = await testStack("faults-deadline", { c: computer(run, LIFETIME_MS) }, { name: "${c.name}" });
    await s.cli("config", "set", "--path", "--secret", "agentrun:daytona.apiKey", planted.vendorKey);
  }, 120_000);
  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      const left = (await labelled(run)).map((c) => c.name);
      if (left.length) await docker("rm", "--force", "--volumes", ...left);
    }
  }, 300_000);

  test("shows stopped to the next refresh, and the next up replaces it", async () => {
    const up = await s.cli("up", "--yes", "--event-log", join(s.dir, "events-up.json"));
    texts.up = up.stdout + up.stderr;
    expect(up.exitCode, up.stdout.slice(-3000)).toBe(0);
    const first = String((await s.stack.outputs()).name?.value);
    s.made.add(first);
    await until("the computer to stop at its deadline", async () => ((await labelled(run))[0]?.running === false ? true : undefined), 120_000);

    const refreshed = await s.cli("refresh", "--yes", "--event-log", join(s.dir, "events-refresh.json"));
    texts.refresh = refreshed.stdout + refreshed.stderr;
    expect(refreshed.exitCode, refreshed.stdout.slice(-3000)).toBe(0);
    expect(await stateComputers(s)).toEqual([{ name: first, state: "stopped" }]);

    const again = await s.cli("up", "--yes", "--event-log", join(s.dir, "events-again.json"));
    texts.again = again.stdout + again.stderr;
    expect(again.exitCode, again.stdout.slice(-3000)).toBe(0);
    expect(again.stdout).toMatch(/replace/);
    const second = String((await s.stack.outputs()).name?.value);
    s.made.add(second);
    expect(second).not.toBe(first);
    // The stopped one went with the replace; only the new one is there, running (or stopped at its own deadline since).
    expect((await labelled(run)).map((c) => c.name)).toEqual([second]);
    const inside = await leaks(planted, { files: [], texts: {}, containers: [second] });

    const destroyed = await s.cli("destroy", "--yes", "--event-log", join(s.dir, "events-destroy.json"));
    texts.destroy = destroyed.stdout + destroyed.stderr;
    expect(destroyed.exitCode, destroyed.stdout.slice(-3000)).toBe(0);
    expect(await labelled(run)).toEqual([]);
    const found = await leaks(planted, { files: ["state", "events-up.json", "events-refresh.json", "events-again.json", "events-destroy.json"].map((f) => join(s.dir, f)), texts, containers: [] });
    expect([...inside, ...found]).toEqual([]);
  }, 600_000);
});
