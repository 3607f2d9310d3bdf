// State cut off half-way, through the real Pulumi engine on a Docker engine of the test's own
// (second-engine.ts, so its restart touches no one else's work and its images are the test's
// alone). The issue's words: "a snapshot or a pause cut off half-way (the plugin killed, the engine
// restarted) leaves no half image and no frozen computer the stack does not know". Held at a step
// by the test-only agentrun:docker.testPause: a take killed after its commit (the part image is
// removed by the next up, which takes it whole); a take killed once its image was loaded (the next
// up adopts that image, no second one); a snapshot removed by hand (preview --refresh plans it,
// up --refresh takes it again); a pause killed after the engine paused (the next up finishes it on
// the same container); the engine restarted as a pause was about to happen (the up fails in words,
// the next up --refresh makes the computer again, paused, and the stopped one is gone). Destroy
// leaves no container and no image but the engine's own.
import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { testStack, type TestStack } from "../support/stack.js";
import { labelled, until } from "../support/fault-helpers.js";
import { type SecondEngine, startSecondEngine } from "../support/second-engine.js";
import type { Step } from "../../src/docker/pause.js";

// The plugin inherits the test flag from this process through the engine.
process.env.AGENTRUN_COMPUTER_TEST = "1";
const run = `state-faults-${randomBytes(6).toString("hex")}`;

describe("a snapshot or a pause cut off half-way", () => {
  let engine: SecondEngine;
  let s: TestStack;
  let imagesBefore: string[] = [];

  const computer = (state: "running" | "paused") => ({
    type: "agentrun:index:Computer",
    properties: { image: "", lifetimeMs: 900_000, network: "none", cpus: 0.25, memoryMb: 128, pids: 64, state, labels: { "agentrun.test": run } },
  });
  const program = (state: "running" | "paused", note?: string) => {
    const c = computer(state);
    c.properties.image = engine.image;
    const snap = note === undefined ? {} : { snap: { type: "agentrun:index:ComputerSnapshot", properties: { computer: "${c.vendorId}", note } } };
    return s.program({ c, ...snap }, { name: "${c.name}", state: "${c.state}", ...(note === undefined ? {} : { image: "${snap.image}" }) });
  };

  const ours = () => labelled(run, engine.docker);
  const ids = async (...filter: string[]) =>
    (await engine.docker("images", "--all", "--no-trunc", "--quiet", ...filter.flatMap((f) => ["--filter", f]))).stdout
      .split("\n")
      .filter(Boolean)
      .map((id) => id.replace(/^sha256:/, ""));
  /** The takes' parts (commits) and the snapshots on the engine, by id. */
  const parts = () => ids("label=agentrun.snapshot.part");
  const snapshots = async () => {
    const part = new Set(await parts());
    return (await ids("label=agentrun.snapshot=1")).filter((id) => !part.has(id));
  };
  const inspect = async (name: string) => (await engine.docker("inspect", "-f", "{{.Id}} {{.State.Status}}", name)).stdout;
  const outputs = async () => Object.fromEntries(Object.entries(await s.stack.outputs()).map(([k, v]) => [k, String(v.value)]));
  const up = async (...more: string[]) => {
    const r = await s.cli("up", "--yes", "--skip-preview", ...more);
    expect(r.exitCode, r.stdout.slice(-3000) + r.stderr).toBe(0);
    return r;
  };

  /** An up held at the step: the plugin's pid once it is there, and the up's end. */
  const heldAt = async (step: Step) => {
    const file = join(s.dir, `pid-${step}`);
    await s.cli("config", "set", "--path", "agentrun:docker.testPause.at", step);
    await s.cli("config", "set", "--path", "agentrun:docker.testPause.file", file);
    const ended = s.cli("up", "--yes", "--skip-preview");
    const reached = until(`the plugin to reach ${step}`, async () => (await readFile(file, "utf8").catch(() => "")).trim() || undefined);
    const early = ended.then((r) =>
      Promise.reject(new Error(`up ended (exit ${r.exitCode}) before its plugin reached ${step}: ${r.stdout.slice(-2000)}${r.stderr}`)),
    );
    const pid = Number(await Promise.race([reached, early]));
    const release = async () => {
      await s.cli("config", "rm", "--path", "agentrun:docker.testPause");
      await rm(file, { force: true });
    };
    return { pid, ended, release };
  };
  /** The plugin killed at the step: the up fails, and the hold is taken off for the next. */
  const killedAt = async (step: Step) => {
    const held = await heldAt(step);
    process.kill(held.pid, "SIGKILL");
    const failed = await held.ended;
    expect(failed.exitCode, failed.stdout.slice(-2000)).not.toBe(0);
    await held.release();
  };

  beforeAll(async () => {
    engine = await startSecondEngine();
    imagesBefore = await ids();
    s = await testStack("state-faults", {});
    await program("running", "one");
    await s.cli("config", "set", "--path", "agentrun:docker.engine", engine.address);
  }, 300_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      await engine?.dispose();
    }
  }, 300_000);

  test("a take killed after its commit: the next up removes the commit and takes it whole", async () => {
    await killedAt("committed");
    const [part] = await parts();
    expect(part, "the commit the killed take left").toBeDefined();
    expect(await snapshots()).toEqual([]);
    await up();
    expect(await parts()).toEqual([]);
    const taken = await snapshots();
    expect(taken).toHaveLength(1);
    expect((await outputs()).image).toBe(`snapshot://docker/${taken[0]}`);
  }, 600_000);

  test("a take killed once its image was loaded: the next up adopts that image, and no second is made", async () => {
    const [first] = await snapshots();
    await program("running", "two");
    await killedAt("loaded");
    const left = (await snapshots()).filter((id) => id !== first);
    expect(left, "the image the killed take loaded").toHaveLength(1);
    await up();
    expect(await parts()).toEqual([]);
    expect(await snapshots()).toEqual(left);
    expect((await outputs()).image).toBe(`snapshot://docker/${left[0]}`);
  }, 600_000);

  test("a snapshot removed by hand: preview --refresh plans it again, up --refresh takes it again", async () => {
    const [gone] = await snapshots();
    expect((await engine.docker("rmi", `sha256:${gone}`)).exitCode).toBe(0);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode, preview.stdout + preview.stderr).toBe(7);
    expect(preview.stdout).toMatch(/\+\s+agentrun:index:ComputerSnapshot\s+snap\s+create/);
    await up("--refresh");
    const again = await snapshots();
    expect(again).toHaveLength(1);
    expect(again[0]).not.toBe(gone);
    expect((await outputs()).image).toBe(`snapshot://docker/${again[0]}`);
  }, 600_000);

  test("a pause killed after the engine paused: the computer is frozen, and the next up finishes the pause on it", async () => {
    const name = (await outputs()).name!;
    const [id] = (await inspect(name)).split(" ");
    await program("paused", "two");
    await killedAt("paused");
    expect(await inspect(name)).toBe(`${id} paused`);
    await up();
    expect(await inspect(name)).toBe(`${id} paused`);
    expect(await outputs()).toMatchObject({ name, state: "paused" });
    expect(await ours()).toHaveLength(1);
  }, 600_000);

  test("the engine restarted as a pause was about to happen: the up fails in words, the next up --refresh makes it again paused, none stopped left", async () => {
    // Resumed, its snapshot removed (a paused computer cannot be taken again, as its replace would ask).
    await program("running");
    await up();
    expect(await snapshots()).toEqual([]);
    const name = (await outputs()).name!;
    await program("paused");
    const held = await heldAt("pausing");
    await engine.restart();
    await held.release();
    const failed = await held.ended;
    expect(failed.exitCode, failed.stdout.slice(-2000)).not.toBe(0);
    expect(failed.stdout).toMatch(new RegExp(`${name} is stopped, and only a running computer pauses`));
    await up("--refresh");
    const after = await ours();
    expect(after).toHaveLength(1);
    expect(after[0]!.name).not.toBe(name);
    expect((await inspect(after[0]!.name)).split(" ")[1]).toBe("paused");
    expect(await outputs()).toMatchObject({ name: after[0]!.name, state: "paused" });

    const destroyed = await s.cli("destroy", "--yes", "--skip-preview");
    expect(destroyed.exitCode, destroyed.stdout.slice(-2000)).toBe(0);
    expect(await ours()).toEqual([]);
    expect((await ids()).sort()).toEqual([...imagesBefore].sort());
  }, 900_000);
});
