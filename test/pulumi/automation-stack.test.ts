// @agentrun/computer/automation against the real Pulumi CLI, making no computer: a setting given
// as { secret } is kept encrypted in the stack's config, and an up the plugin refuses is a result
// in the plugin's words, with nothing made.
import { randomBytes } from "node:crypto";
import { readFile, readdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { computerStack } from "../../src/fleet/automation.js";
import { orThrow } from "../../src/daemon/result.js";
import { Computer } from "../../provider/sdk/index.js";
import { docker } from "../support/docker.js";
import { homeEnv } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

describe("computerStack with the real CLI", () => {
  const run = `auto-${randomBytes(4).toString("hex")}`;
  let base: string;
  const open = (program: () => object, settings = {}) =>
    computerStack({
      stack: run,
      program,
      passphrase: "agentrun-test",
      state: join(base, "state"),
      settings,
      pulumi: toolchain().pulumiBin,
      env: homeEnv(join(base, "home")),
    });

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-auto-"));
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  test("a setting given as { secret } is stored encrypted, and its provider's settings are a secret", async () => {
    // not a list of vendors: a stack's settings for two of them, one with a secret and one without.
    const s = orThrow(await open(() => ({}), { docker: { image: toolchain().baseImage }, modal: { app: "a", tokenSecret: { secret: "as-never-in-clear" } } }));
    expect(await s.stack.getConfig("agentrun:modal")).toMatchObject({ secret: true, value: JSON.stringify({ app: "a", tokenSecret: "as-never-in-clear" }) });
    expect(await s.stack.getConfig("agentrun:docker")).toEqual({ secret: false, value: JSON.stringify({ image: toolchain().baseImage }) });
    const dir = join(base, "state", "projects", "agentrun-computers");
    for (const file of await readdir(dir)) expect(await readFile(join(dir, file), "utf8")).not.toContain("as-never-in-clear");
  }, 120_000);

  test("an up the plugin refuses is a failed result in its words, and nothing is made", async () => {
    const s = orThrow(
      await open(() => {
        new Computer("c", { image: toolchain().baseImage, lifetimeMs: 31 * 86_400_000, labels: { "agentrun.run": run } });
        return {};
      }),
    );
    const up = await s.up();
    expect(up.ok).toBe(false);
    if (up.ok) return;
    expect(up.error.code).toBe("failed");
    expect(up.error.message).toMatch(/^up of the stack .* failed: .*lifetimeMs is past this provider's cap of 2592000000 ms \(30 days\)/);
    expect((await docker("ps", "-a", "--filter", `label=agentrun.run=${run}`, "--format", "{{.Names}}")).stdout).toBe("");
    orThrow(await s.destroy({ remove: true }));
  }, 120_000);
});
