// The fault tests' seam is a test-only setting: refused in words unless the plugin's test flag is
// on, never offered to a stack's user, and it holds a create, a pause or a take at exactly the step it names,
// until the test removes its file.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pauseAt } from "../../src/docker/pause.js";
import { settingsFrom } from "../../provider/config.js";
import { settingsKeys } from "../../src/registry/settings.js";

const config = JSON.stringify({ "agentrun:docker": JSON.stringify({ testPause: { at: "hello", file: "/tmp/x" } }) });

describe("agentrun:docker.testPause", () => {
  it("is refused unless the test flag is on, and then taken", () => {
    const refused = settingsFrom(config);
    expect(refused.ok ? "" : refused.message).toMatch(/testPause .* refused unless the plugin's test flag \(AGENTRUN_COMPUTER_TEST=1\) is on/);
    expect(settingsFrom(config, { test: true })).toEqual({ ok: true, value: { docker: { testPause: { at: "hello", file: "/tmp/x" } } } });
  });

  it("is never offered to a stack's user", () => {
    expect(settingsKeys().docker).not.toContain("testPause");
  });

  it("holds a create only at the step it names, writing this process's id first", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agentrun-pause-"));
    try {
      const pause = pauseAt("after-run", join(dir, "pid"));
      await pause("before-run");
      await expect(readFile(join(dir, "pid"), "utf8")).rejects.toThrow(/ENOENT/);
      void pause("after-run");
      await expect.poll(() => readFile(join(dir, "pid"), "utf8").catch(() => "")).toBe(`${process.pid}\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("lets a held step go on once its file is removed (something done under it first)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agentrun-pause-"));
    try {
      let done = false;
      const held = pauseAt("pausing", join(dir, "pid"))("pausing").then(() => (done = true));
      await expect.poll(() => readFile(join(dir, "pid"), "utf8").catch(() => "")).toBe(`${process.pid}\n`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(done).toBe(false);
      await rm(join(dir, "pid"));
      await held;
      expect(done).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
