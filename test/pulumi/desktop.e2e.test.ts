// A desktop through the real Pulumi engine: a Computer of kind desktop with no image gets the
// provider's desktop image, comes up with its display, shows its screen's size among its
// outputs, refreshes with no drift, and is destroyed. Every container made is removed by name.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isRunning } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";

describe("a desktop Computer through the real engine", () => {
  let s: TestStack;
  let name = "";

  beforeAll(async () => {
    s = await testStack(
      "desktop",
      {
        d: { type: "agentrun:index:Computer", properties: { lifetimeMs: 600_000, memoryMb: 512, kind: "desktop" } },
      },
      { name: "${d.name}", screen: "${d.screen}", hello: "${d.hello}", kind: "${d.kind}" },
    );
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("comes up as a desktop with its screen's size among its outputs", async () => {
    const up = await s.stack.up({ color: "never" });
    name = String(up.outputs.name?.value);
    s.made.add(name);
    expect(up.outputs.kind?.value).toBe("desktop");
    expect(up.outputs.screen?.value).toEqual({ width: 1280, height: 800 });
    expect(up.outputs.hello?.value).toMatchObject({ kind: "desktop", groups: ["exec", "files", "processes", "screen", "input.pointer", "input.keys"] });
  }, 600_000);

  test("refreshes with no drift, and is gone after destroy", async () => {
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode, preview.stdout + preview.stderr).toBe(0);
    await s.stack.destroy({ color: "never" });
    expect(await isRunning(name)).toBe(false);
  }, 300_000);
});
