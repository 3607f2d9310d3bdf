// The plugin killed (SIGKILL) at each step of a Computer's create, through the real Pulumi engine
// on the real Docker engine: before the container is made, after it is made and started, and
// once its daemon said hello. The create is held at the step by the test-only setting
// agentrun:docker.testPause, which writes the plugin's pid; the test kills that pid. Then `up`
// again makes no duplicate (a whole computer left behind is adopted, the same container), and
// `destroy` leaves nothing. After each, the planted secrets are found nowhere in clear.
import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CREATE_STEPS } from "../../src/docker/pause.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";
import { disposeAll, labelled, until } from "../support/fault-helpers.js";
import { leaks, plant } from "../support/planted-secrets.js";

// The plugin inherits the test flag from this process through the engine.
process.env.AGENTRUN_COMPUTER_TEST = "1";
// The CLI takes --event-log (the engine's event log, searched for secrets) only with this.
process.env.PULUMI_DEBUG_COMMANDS = "true";
const run = `faults-${randomBytes(6).toString("hex")}`;
const planted = plant();

const ours = () => labelled(run);

describe("the plugin killed at each step of a create", () => {
  let s: TestStack;
  const outputs: Record<string, string> = {};

  beforeAll(async () => {
    const computer = {
      type: "agentrun:index:Computer",
      properties: {
        image: toolchain().baseImage,
        lifetimeMs: 900_000,
        network: "none",
        cpus: 0.5,
        memoryMb: 256,
        pids: 128,
        labels: { "agentrun.test": run, planted: { "fn::secret": planted.label } },
      },
    };
    s = await testStack("faults-kill", { c: computer }, { name: "${c.name}" });
    await s.cli("config", "set", "--path", "--secret", "agentrun:daytona.apiKey", planted.vendorKey);
  }, 120_000);

  afterAll(() => disposeAll(s, run), 300_000);

  test.each(CREATE_STEPS)(
    "killed at %s: the up fails, the next up makes no duplicate, destroy leaves nothing",
    async (step) => {
      const pidFile = join(s.dir, `pid-${step}`);
      await s.cli("config", "set", "--path", "agentrun:docker.testPause.at", step);
      await s.cli("config", "set", "--path", "agentrun:docker.testPause.file", pidFile);

      // The held up, then its plugin killed at the step.
      const held = s.cli("up", "--yes", "--event-log", join(s.dir, `events-${step}.json`));
      const reached = until(`the plugin to reach ${step}`, async () => (await readFile(pidFile, "utf8").catch(() => "")).trim() || undefined);
      const ended = held.then((r) =>
        Promise.reject(new Error(`up ended (exit ${r.exitCode}) before its plugin reached ${step}: ${r.stdout.slice(-2000)}${r.stderr}`)),
      );
      const pid = Number(await Promise.race([reached, ended]));
      const before = await ours();
      expect(before.length, `containers at ${step}`).toBe(step === "before-run" ? 0 : 1);
      process.kill(pid, "SIGKILL");
      const failed = await held;
      outputs[`up killed at ${step}`] = failed.stdout + failed.stderr;
      expect(failed.exitCode, failed.stdout.slice(-2000)).not.toBe(0);
      const left = await ours();
      for (const c of left) s.made.add(c.name);
      expect(left.map((c) => c.id)).toEqual(before.map((c) => c.id));

      // Up again, unheld: one computer, and a whole one left behind is the one adopted.
      await s.cli("config", "rm", "--path", "agentrun:docker.testPause");
      const again = await s.cli("up", "--yes", "--event-log", join(s.dir, `events-${step}-again.json`));
      outputs[`up again after ${step}`] = again.stdout + again.stderr;
      expect(again.exitCode, again.stdout.slice(-3000) + again.stderr).toBe(0);
      const after = await ours();
      for (const c of after) s.made.add(c.name);
      expect(after.length).toBe(1);
      expect(after[0]!.running).toBe(true);
      expect(String((await s.stack.outputs()).name?.value)).toBe(after[0]!.name);
      if (before.length === 1) expect(after[0]!.id).toBe(before[0]!.id);
      const inside = await leaks(planted, { files: [], texts: {}, containers: after.map((c) => c.name) });

      const destroyed = await s.cli("destroy", "--yes", "--event-log", join(s.dir, `events-${step}-destroy.json`));
      outputs[`destroy after ${step}`] = destroyed.stdout + destroyed.stderr;
      expect(destroyed.exitCode, destroyed.stdout.slice(-2000)).toBe(0);
      expect(await ours()).toEqual([]);

      const found = await leaks(planted, {
        files: [join(s.dir, "state"), ...["", "-again", "-destroy"].map((x) => join(s.dir, `events-${step}${x}.json`))],
        texts: outputs,
        containers: [],
      });
      expect([...inside, ...found]).toEqual([]);
      await rm(pidFile, { force: true });
    },
    600_000,
  );
});
