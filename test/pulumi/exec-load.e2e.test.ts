// Forty ComputerCommands at once through one plugin process, ten in each of four computers, as a
// story: up runs them all, every one of a computer's ten running before any of them ends (each
// waits inside until all ten have started), with no bridge into that computer (the plugin reaches
// init's socket from this machine: no `computerd stdio` runs inside while they wait), and each
// reads back its own output; destroy leaves no computer. A plugin that serialised a computer's
// runs (a lock, a cap below ten) would leave the first run waiting for the others until its
// timeout, and the up would fail; the engine's own default parallelism (4 x GOMAXPROCS: 8 on two
// cores) would too, so the up asks for all 44 resources at once. The 200-run version is a bench:
// bench/exec-load.mjs.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker, exists } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

const COMPUTERS = 4;
const EACH = 10;
const CALLS = COMPUTERS * EACH;

/**
 * Marks its start in the home, waits (at most its timeout) until all of its computer's ten have,
 * then prints its token and how many bridges are running in the computer (an argv ending "stdio"; the pattern is
 * written so that grep's own argv does not match it): none, as the plugin reaches init's socket
 * straight from this machine; that the ten share one connection is test/unit/session-share.test.ts's.
 */
const barrier = (i: number) =>
  `mkdir -p started && : > started/${i} && while [ "$(ls started | wc -l)" -lt ${EACH} ]; do sleep 0.1; done; ` +
  `echo "cmd-${i} bridges $(grep -lsxz 'std[i]o' /proc/[0-9]*/cmdline | wc -l)"`;

describe("forty ComputerCommands at once through one plugin process", () => {
  let s: TestStack;
  let names: string[] = [];
  const resources: Record<string, unknown> = {};
  for (let c = 0; c < COMPUTERS; c++) {
    resources[`c${c}`] = { type: "agentrun:index:Computer", properties: { lifetimeMs: 900_000, network: "none", cpus: 0.5, memoryMb: 256 } };
  }
  for (let i = 0; i < CALLS; i++) {
    resources[`cmd${i}`] = {
      type: "agentrun:index:ComputerCommand",
      properties: { computer: `\${c${i % COMPUTERS}.name}`, command: barrier(i), timeoutSeconds: 60 },
    };
  }
  const outputs = {
    names: Array.from({ length: COMPUTERS }, (_, c) => `\${c${c}.name}`),
    stdout: Array.from({ length: CALLS }, (_, i) => `\${cmd${i}.stdout}`),
  };

  beforeAll(async () => {
    s = await testStack("exec-load", resources, outputs);
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ image: toolchain().baseImage }) });
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("up runs all forty, each computer's ten at once with no bridge, each with its own output", async () => {
    const up = await s.stack.up({ color: "never", parallel: COMPUTERS + CALLS });
    names = up.outputs.names?.value as string[];
    for (const name of names) s.made.add(name);
    expect(up.summary.resourceChanges).toEqual({ create: COMPUTERS + CALLS + 1 });
    expect(up.outputs.stdout?.value).toEqual(Array.from({ length: CALLS }, (_, i) => `cmd-${i} bridges 0\n`));
    for (const name of names) expect((await docker("exec", name, "sh", "-c", "ls ~/started | wc -l")).stdout).toBe(String(EACH));
  }, 300_000);

  test("destroy leaves no computer", async () => {
    await s.stack.destroy({ color: "never", parallel: COMPUTERS + CALLS });
    for (const name of names) expect(await exists(name)).toBe(false);
  }, 300_000);
});
