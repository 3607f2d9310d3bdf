// What a person sees while `pulumi up` waits: the Computer's line says what it waits for, read
// here from the engine's own event log (--event-log), as the engine recorded it against the
// resource's URN. (The image build's line is test/docker/computer-progress.test.ts.)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

/** The engine's diagnostic lines about the resource named name, in order. */
function linesAbout(eventLog: string, name: string): string[] {
  return readFileSync(eventLog, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { diagnosticEvent?: { urn?: string; message?: string } })
    .filter((event) => event.diagnosticEvent?.urn?.endsWith(`::${name}`))
    .map((event) => String(event.diagnosticEvent!.message).trim());
}

/** `pulumi up|refresh --event-log`: at v3.248.0 the CLI takes the flag only with PULUMI_DEBUG_COMMANDS set (measured here). */
async function withEventLog(s: TestStack, command: "up" | "refresh", eventLog: string) {
  const run = await execa(`${toolchain().pulumiBin}/pulumi`, [command, "--yes", "--non-interactive", "--stack", "test", "--event-log", eventLog], {
    cwd: s.dir,
    env: { ...s.env, PULUMI_DEBUG_COMMANDS: "true" },
    reject: false,
  });
  return { exitCode: run.exitCode, stderr: String(run.stderr) };
}

describe("progress on a Computer's line", () => {
  let s: TestStack;

  beforeAll(async () => {
    s = await testStack(
      "progress",
      {
        c: { type: "agentrun:index:Computer", properties: { image: toolchain().baseImage, lifetimeMs: 600_000, memoryMb: 256 } },
      },
      { name: "${c.name}" },
    );
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("create says it waits for the computer to start and its daemon to answer, and how long it took", async () => {
    const eventLog = join(s.dir, "up-events.json");
    const up = await withEventLog(s, "up", eventLog);
    expect(up.exitCode, up.stderr).toBe(0);
    s.made.add(String((await s.stack.outputs()).name?.value));
    const lines = linesAbout(eventLog, "c");
    expect(lines[0]).toBe("waiting for the docker computer to start and its daemon to answer");
    expect(lines.at(-1)).toMatch(/^waiting for the docker computer to start and its daemon to answer: done in \d+ s$/);
  }, 300_000);

  // A read answers in milliseconds: its lines are in the log only because the step waits for them.
  test("refresh says which computer it reads back, and how long it took", async () => {
    const name = String((await s.stack.outputs()).name?.value);
    const eventLog = join(s.dir, "refresh-events.json");
    const refresh = await withEventLog(s, "refresh", eventLog);
    expect(refresh.exitCode, refresh.stderr).toBe(0);
    const lines = linesAbout(eventLog, "c");
    expect(lines[0]).toBe(`reading ${name} back from docker`);
    expect(lines.at(-1)).toMatch(new RegExp(`^reading ${name} back from docker: done in \\d+ s$`));
  }, 300_000);
});
