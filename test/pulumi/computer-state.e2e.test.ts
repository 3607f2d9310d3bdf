// A Computer's `state` through the real engine and Docker: made paused (the engine's pause, read
// back paused, no diff); resumed by hand, which preview --refresh names as `state` and up pauses
// again in place; declared running, an update of that computer alone (the same container, its
// daemon answering); destroy removes it paused or not.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

const paused = async (name: string) => (await docker("inspect", "-f", "{{.State.Paused}} {{.State.Running}}", name)).stdout.trim();
const idOf = async (name: string) => (await docker("inspect", "-f", "{{.Id}}", name)).stdout.trim();
const box = (state?: string) => ({
  box: { type: "agentrun:index:Computer", properties: { image: toolchain().baseImage, lifetimeMs: 600_000, memoryMb: 256, ...(state ? { state } : {}) } },
});

describe("a Computer's state, paused and running, through the real engine", () => {
  let s: TestStack;
  let name = "";
  let id = "";

  beforeAll(async () => {
    s = await testStack("computer-state", box("paused"), { name: "${box.name}", state: "${box.state}" });
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("made paused: the engine's pause, read back paused, and a clean preview", async () => {
    const up = await s.stack.up({ color: "never" });
    name = String(up.outputs.name?.value);
    s.made.add(name);
    id = await idOf(name);
    expect(up.outputs.state?.value).toBe("paused");
    expect(await paused(name)).toBe("true true");
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode, preview.stdout + preview.stderr).toBe(0);
  }, 600_000);

  test("resumed by hand: preview --refresh exits 7 naming state, an update; up pauses it again in place", async () => {
    expect((await docker("unpause", name)).exitCode).toBe(0);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode, preview.stdout).toBe(7);
    expect(preview.stdout).toMatch(/~ agentrun:index:Computer: \(update\)[\s\S]*~ state: "running" => "paused"/);
    expect(preview.stdout).toContain("running, though declared paused: an up pauses it again");
    expect(preview.stdout).not.toMatch(/replace/);
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(up.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(await idOf(name)).toBe(id);
    expect(await paused(name)).toBe("true true");
  }, 600_000);

  test("declared running: an update of that computer alone, the same container resumed, its daemon answering", async () => {
    await s.program(box("running"), { name: "${box.name}", state: "${box.state}" });
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(up.outputs.state?.value).toBe("running");
    expect(await idOf(name)).toBe(id);
    expect(await paused(name)).toBe("false true");
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode, preview.stdout + preview.stderr).toBe(0);
  }, 600_000);

  test("destroy removes it", async () => {
    await s.stack.destroy({ color: "never" });
    expect((await docker("inspect", name)).exitCode).not.toBe(0);
  }, 300_000);
});
