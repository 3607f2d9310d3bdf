// A Mount's drift through the real engine: the folder's mode changed by hand is healed in place,
// and the preview says what the up does: the Mount updated, and no computer on it replaced for
// it (its `mount` is known at preview, the same as the up gives).
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

describe("a Mount's drift previews what its up does", () => {
  let base: string;
  let folder: string;
  let s: TestStack;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-mount-preview-"));
    folder = join(base, "runs/r1");
    const computer = () => ({
      type: "agentrun:index:Computer",
      properties: { image: toolchain().baseImage, lifetimeMs: 600_000, memoryMb: 256, user: "1000:1000", mount: "${runs.mount}" },
    });
    s = await testStack(
      "mount-preview",
      { runs: { type: "agentrun:index:Mount", properties: { path: folder, user: "1000:1000" } }, a: computer(), b: computer() },
      { a: "${a.name}", b: "${b.name}" },
    );
    const up = await s.stack.up({ color: "never" });
    for (const v of Object.values(up.outputs)) s.made.add(String(v.value));
  }, 600_000);

  afterAll(async () => {
    await s?.dispose();
    await rm(base, { recursive: true, force: true });
  }, 300_000);

  test("the folder's mode changed by hand: preview and up both update the Mount and replace no computer", async () => {
    await chmod(folder, 0o755);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).not.toContain("[unknown]");
    const planned = await s.stack.preview({ color: "never", refresh: true });
    const up = await s.stack.up({ color: "never", refresh: true });
    for (const v of Object.values(up.outputs)) s.made.add(String(v.value));
    expect(planned.changeSummary).toEqual({ update: 1, same: 3 });
    expect(up.summary.resourceChanges).toEqual({ update: 1, same: 3 });
  }, 300_000);
});
