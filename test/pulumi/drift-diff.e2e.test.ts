// What `pulumi preview --refresh` prints about a computer, through the real engine: a clean stack
// prints no `[diff:`, and each kind of hand drift the drift check names prints exactly its field.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

/** The `[diff: ...]` field lists of a plan's lines of one step (refresh, replace), by resource name. */
function printedDiffs(stdout: string, step: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.split("\n")) {
    const m = new RegExp(`agentrun:index:\\w+\\s+(\\S+)\\s+${step} \\[diff: ([^\\]]*)\\]`).exec(line);
    if (m) out[m[1]!] = m[2]!.trim();
  }
  return out;
}

describe("preview --refresh names exactly the field that drifted", () => {
  let s: TestStack;
  const names: Record<string, string> = {};

  beforeAll(async () => {
    const computer = () => ({ type: "agentrun:index:Computer", properties: { image: toolchain().baseImage, lifetimeMs: 600_000, memoryMb: 256 } });
    const left = { type: "agentrun:index:Computer", properties: { lifetimeMs: 600_000, memoryMb: 256 } };
    s = await testStack(
      "drift-diff",
      {
        clean: computer(),
        stopped: computer(),
        memory: computer(),
        cpus: computer(),
        pids: computer(),
        unbridged: { ...computer(), properties: { ...computer().properties, network: "open" } },
        renamed: computer(),
        own: left,
      },
      {
        clean: "${clean.name}",
        stopped: "${stopped.name}",
        memory: "${memory.name}",
        cpus: "${cpus.name}",
        pids: "${pids.name}",
        unbridged: "${unbridged.name}",
        renamed: "${renamed.name}",
        own: "${own.name}",
      },
    );
    const up = await s.stack.up({ color: "never" });
    for (const [k, v] of Object.entries(up.outputs)) {
      names[k] = String(v.value);
      s.made.add(names[k]!);
    }
  }, 600_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("a clean stack prints no [diff:", async () => {
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.stdout).not.toContain("[diff:");
    expect(preview.exitCode).toBe(0);
  }, 300_000);

  test("each hand drift prints its field, and only its field, on refresh and on the replace", async () => {
    await docker("stop", "--time", "1", names.stopped!);
    await docker("update", "--memory", "128m", names.memory!);
    await docker("update", "--cpu-quota", "50000", names.cpus!);
    await docker("update", "--pids-limit", "100", names.pids!);
    expect((await docker("network", "disconnect", "bridge", names.unbridged!)).exitCode).toBe(0);
    await docker("rename", names.renamed!, `${names.renamed}-x`);
    s.made.add(`${names.renamed}-x`);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode).toBe(7);
    const want = { stopped: "~state", memory: "~memoryMb", cpus: "~cpus", pids: "~pids", unbridged: "~network", renamed: "~drift" };
    expect(printedDiffs(preview.stdout, "refresh")).toEqual(want);
    expect(printedDiffs(preview.stdout, "replace")).toEqual(want);
    // Under --diff, the drift's sentences are the detail of the field named.
    const detailed = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(detailed.stdout).toMatch(/memoryMb\s*:\s*128 => 256/);
    expect(detailed.stdout).toContain("HostConfig.Memory is 128 MiB, not the 256 MiB");
  }, 300_000);

  test("the memory a docker update changed is the drift's one sentence, not /work's size that follows it", async () => {
    const refreshed = await s.cli("refresh", "--yes", "--skip-preview");
    expect(refreshed.exitCode).toBe(0);
    const memory = (await s.stack.exportStack()).deployment.resources.find((r: { urn: string }) => r.urn.endsWith("::memory"));
    expect(memory.outputs.drift).toEqual(["HostConfig.Memory is 128 MiB, not the 256 MiB the computer was made with (/work's tmpfs is sized for it)"]);
  }, 300_000);
});
