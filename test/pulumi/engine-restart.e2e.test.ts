// The Docker engine restarted in the middle of an `up` of ten computers, through the real Pulumi
// engine. The engine is the test's own second dockerd (second-engine.ts), never the shared one:
// the stack points at it with agentrun:docker.engine, and the test restarts it by its pid once a
// few computers are made. The up fails in words; the next `up --refresh` converges to ten
// running computers with no duplicate; destroy leaves nothing on that engine; the planted secrets
// are found nowhere in clear.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { testStack, type TestStack } from "../support/stack.js";
import { labelled } from "../support/fault-helpers.js";
import { leaks, plant } from "../support/planted-secrets.js";
import { type SecondEngine, startSecondEngine } from "../support/second-engine.js";

process.env.PULUMI_DEBUG_COMMANDS = "true";
const run = `faults-${randomBytes(6).toString("hex")}`;
const planted = plant();
const N = 10;

describe("the Docker engine restarted in the middle of an up of ten", () => {
  let engine: SecondEngine;
  let s: TestStack;
  const texts: Record<string, string> = {};

  const ours = () => labelled(run, engine.docker);

  // The shared engine's bridge, which a second dockerd must never touch.
  const docker0 = () => execa("ip", ["link", "show", "docker0"], { reject: false }).then((r) => r.exitCode === 0);
  let hadDocker0 = false;

  beforeAll(async () => {
    hadDocker0 = await docker0();
    engine = await startSecondEngine();
    const resources: Record<string, unknown> = {};
    for (let i = 0; i < N; i += 1) {
      resources[`c${i}`] = {
        type: "agentrun:index:Computer",
        properties: {
          image: engine.image,
          lifetimeMs: 900_000,
          network: "none",
          cpus: 0.25,
          memoryMb: 128,
          pids: 64,
          labels: { "agentrun.test": run, planted: { "fn::secret": planted.label } },
        },
      };
    }
    s = await testStack("faults-engine", resources);
    await s.cli("config", "set", "--path", "agentrun:docker.engine", engine.address);
    await s.cli("config", "set", "--path", "--secret", "agentrun:daytona.apiKey", planted.vendorKey);
  }, 300_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      await engine?.dispose();
    }
  }, 300_000);

  test("the up fails in words, the next up converges with no duplicate, destroy leaves nothing", async () => {
    const up = s.cli("up", "--yes", "--event-log", join(s.dir, "events-up.json"));
    // A few made, the rest still to come: restart the engine under the up.
    const end = Date.now() + 300_000;
    while ((await ours()).length < 3) {
      if (Date.now() > end) throw new Error("no computers were made on the second engine in 300 s");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await engine.restart();
    expect(await docker0()).toBe(hadDocker0);
    const failed = await up;
    texts["up under the restart"] = failed.stdout + failed.stderr;
    expect(failed.exitCode, failed.stdout.slice(-3000)).not.toBe(0);
    // In words: what failed is the Docker engine, not a stack trace.
    expect(failed.stdout).toMatch(/Docker/);
    expect(failed.stdout).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);

    const again = await s.cli("up", "--refresh", "--yes", "--event-log", join(s.dir, "events-again.json"));
    texts["up again"] = again.stdout + again.stderr;
    expect(again.exitCode, again.stdout.slice(-3000)).toBe(0);
    const after = await ours();
    expect(after.filter((c) => c.running).length).toBe(N);
    expect(after.length).toBe(N);
    const inside = await leaks(planted, { files: [], texts: {}, containers: after.map((c) => c.name) });

    const destroyed = await s.cli("destroy", "--yes", "--event-log", join(s.dir, "events-destroy.json"));
    texts.destroy = destroyed.stdout + destroyed.stderr;
    expect(destroyed.exitCode, destroyed.stdout.slice(-3000)).toBe(0);
    expect((await engine.docker("ps", "--all", "--quiet")).stdout).toBe("");
    const found = await leaks(planted, {
      files: ["state", "events-up.json", "events-again.json", "events-destroy.json"].map((f) => join(s.dir, f)),
      texts,
      containers: [],
    });
    expect([...inside, ...found]).toEqual([]);
    expect(await docker0()).toBe(hadDocker0);
  }, 900_000);
});
