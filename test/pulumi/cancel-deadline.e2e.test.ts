// Two faults of an `up`, through the real Pulumi engine on the real Docker engine.
// - The operation cancelled while a create is under way: the CLI gets SIGINT (Ctrl-C; on a local
//   backend `pulumi cancel` only removes the lock, so the CLI's own cancel is the one that
//   reaches the plugin) while the create is held after its container started; what was made is
//   either in the state or removed, and destroy leaves nothing.
// - A computer's deadline passing during an up (the up held past it by a command on another
//   computer): the next refresh shows it stopped, the next up replaces it.
// After each, the planted secrets are found nowhere in clear.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";
import { disposeAll, labelled, until } from "../support/fault-helpers.js";
import { leaks, plant } from "../support/planted-secrets.js";

process.env.AGENTRUN_COMPUTER_TEST = "1";
process.env.PULUMI_DEBUG_COMMANDS = "true";
const planted = plant();

function computer(run: string, lifetimeMs: number) {
  return {
    type: "agentrun:index:Computer",
    properties: {
      image: toolchain().baseImage,
      lifetimeMs,
      network: "none",
      cpus: 0.5,
      memoryMb: 256,
      pids: 128,
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
  afterAll(() => disposeAll(s, run), 300_000);

  test("what was made is in the state or removed, and destroy leaves nothing", async () => {
    const pidFile = join(s.dir, "pid");
    await s.cli("config", "set", "--path", "agentrun:docker.testPause.at", "after-run");
    await s.cli("config", "set", "--path", "agentrun:docker.testPause.file", pidFile);
    const up = execa(`${toolchain().pulumiBin}/pulumi`, ["up", "--yes", "--stack", "test", "--non-interactive", "--event-log", join(s.dir, "events-up.json")], {
      cwd: s.dir,
      env: s.env,
      reject: false,
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

describe("a computer whose deadline passes during an up", () => {
  const run = `faults-${randomBytes(6).toString("hex")}`;
  const LIFETIME_MS = 15_000;
  // The up is held past the short computer's deadline by a command on another computer, made after it.
  const HOLD_SECONDS = 25;
  let s: TestStack;
  const texts: Record<string, string> = {};
  const program = {
    short: computer(run, LIFETIME_MS),
    long: computer(run, 900_000),
    hold: {
      type: "agentrun:index:ComputerCommand",
      properties: { computer: "${long.name}", command: `sleep ${HOLD_SECONDS}` },
      options: { dependsOn: ["${short}"] },
    },
  };

  beforeAll(async () => {
    s = await testStack("faults-deadline", program, { name: "${short.name}", deadline: "${short.deadline}" });
    await s.cli("config", "set", "--path", "--secret", "agentrun:daytona.apiKey", planted.vendorKey);
  }, 120_000);
  afterAll(() => disposeAll(s, run), 300_000);

  test("is stopped by the up's end, shows stopped to the next refresh, and the next up replaces it", async () => {
    const up = await s.cli("up", "--yes", "--event-log", join(s.dir, "events-up.json"));
    const ended = Date.now();
    texts.up = up.stdout + up.stderr;
    expect(up.exitCode, up.stdout.slice(-3000)).toBe(0);
    const outs = await s.stack.outputs();
    const first = String(outs.name?.value);
    s.made.add(first);
    for (const c of await labelled(run)) s.made.add(c.name);
    // The deadline passed while the up ran: before it ended, and the computer stopped by then.
    expect(Date.parse(String(outs.deadline?.value))).toBeLessThan(ended);
    await until(
      "the short computer to stop at its deadline",
      async () => ((await labelled(run)).find((c) => c.name === first)?.running === false ? true : undefined),
      30_000,
    );
    expect((await stateComputers(s)).find((c) => c.name === first)?.state).toBe("running");

    const refreshed = await s.cli("refresh", "--yes", "--event-log", join(s.dir, "events-refresh.json"));
    texts.refresh = refreshed.stdout + refreshed.stderr;
    expect(refreshed.exitCode, refreshed.stdout.slice(-3000)).toBe(0);
    const states = await stateComputers(s);
    expect(states.find((c) => c.name === first)?.state).toBe("stopped");
    expect(states.filter((c) => c.name !== first).map((c) => c.state)).toEqual(["running"]);

    const again = await s.cli("up", "--yes", "--event-log", join(s.dir, "events-again.json"));
    texts.again = again.stdout + again.stderr;
    expect(again.exitCode, again.stdout.slice(-3000)).toBe(0);
    expect(again.stdout).toMatch(/agentrun:index:Computer\s+short\s+replac/);
    expect(again.stdout).not.toMatch(/agentrun:index:Computer\s+long\s+replac/);
    const second = String((await s.stack.outputs()).name?.value);
    s.made.add(second);
    expect(second).not.toBe(first);
    // The stopped one went with the replace; the long one and the new short one are there.
    const there = await labelled(run);
    expect(there.map((c) => c.name)).not.toContain(first);
    expect(there.map((c) => c.name)).toContain(second);
    expect(there).toHaveLength(2);
    const inside = await leaks(planted, { files: [], texts: {}, containers: there.map((c) => c.name) });

    const destroyed = await s.cli("destroy", "--yes", "--event-log", join(s.dir, "events-destroy.json"));
    texts.destroy = destroyed.stdout + destroyed.stderr;
    expect(destroyed.exitCode, destroyed.stdout.slice(-3000)).toBe(0);
    expect(await labelled(run)).toEqual([]);
    const found = await leaks(planted, {
      files: ["state", "events-up.json", "events-refresh.json", "events-again.json", "events-destroy.json"].map((f) => join(s.dir, f)),
      texts,
      containers: [],
    });
    expect([...inside, ...found]).toEqual([]);
  }, 300_000);
});
