// The plugin's functions through the real engine: from YAML (fn::invoke, in the CI example
// examples/ci-deadline) and from TypeScript (the generated SDK, in a program the Automation API
// runs inline). The story: one computer of a run of its own, with a short lifetime; the CI check
// passes while it is within its deadline and listComputers reports it running and as declared;
// past its deadline the check fails naming it and a dry-run sweep names it due; the sweep deletes
// it, and the check passes again. The computer is removed by its exact name, pass or fail.
import { randomBytes } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Output } from "@pulumi/pulumi";
import { execa } from "execa";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { computerStack, type ComputerStack } from "../../src/fleet/automation.js";
import { DockerProvider } from "../../src/docker/provider.js";
import { orThrow } from "../../src/daemon/result.js";
import { listComputersOutput, sweepOutput, type ListComputersResult, type SweepResult } from "../../provider/sdk/index.js";
import { exists, removeContainers } from "../support/docker.js";
import { homeEnv, pulumiEnv } from "../support/stack.js";
import { ROOT, toolchain } from "../support/toolchain.js";

// Long enough for the two checks within it on a busy machine; the test waits out the rest.
const LIFETIME_MS = 30_000;

// The program's outputs as it returns them; up hands them back unwrapped.
type Outputs = { listed: Output<ListComputersResult>; swept: Output<SweepResult> };

describe("listComputers and sweep through the real engine, from YAML and TypeScript", () => {
  const run = `invoke-${randomBytes(4).toString("hex")}`;
  const labels = { "agentrun.run": run };
  const docker = new DockerProvider({ daemonPath: toolchain().daemon.amd64 });
  let base: string;
  let name: string;
  let deadline: number;
  let sweeping = false;
  let ts: ComputerStack<Outputs>;
  let env: Record<string, string>;

  /** The CI example's check.sh, in a copy of its folder whose stack reads this run. */
  const ciCheck = () => execa(join(base, "ci", "check.sh"), ["ci"], { env, reject: false });

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-invokes-"));
    env = pulumiEnv(join(base, "state"), join(base, "home"));
    await mkdir(join(base, "state"));
    // The CI example with its plugin path made absolute, and a stack for this run.
    await mkdir(join(base, "ci"));
    const doc = parse(await readFile(`${ROOT}/examples/ci-deadline/Pulumi.yaml`, "utf8"));
    doc.plugins.providers = [{ name: "agentrun", path: `${ROOT}/provider/bin` }];
    await writeFile(join(base, "ci", "Pulumi.yaml"), stringify(doc));
    await copyFile(`${ROOT}/examples/ci-deadline/check.sh`, join(base, "ci", "check.sh"));
    await execa("chmod", ["+x", join(base, "ci", "check.sh")]);
    const pulumi = (...args: string[]) => execa(`${toolchain().pulumiBin}/pulumi`, [...args, "--non-interactive"], { cwd: join(base, "ci"), env });
    await pulumi("stack", "init", "ci");
    await pulumi("config", "set", "run", run, "--stack", "ci");

    ts = orThrow(
      await computerStack<Outputs>({
        stack: "ts",
        program: () => ({ listed: listComputersOutput({ labels }), swept: sweepOutput({ labels, dryRun: !sweeping }) }),
        passphrase: env.PULUMI_CONFIG_PASSPHRASE!,
        state: join(base, "state"),
        pulumi: toolchain().pulumiBin,
        env: homeEnv(env.PULUMI_HOME!),
      }),
    );

    const made = orThrow(await docker.create({ image: toolchain().baseImage, lifetimeMs: LIFETIME_MS, network: "none", labels }));
    name = made.name;
    deadline = Date.parse(made.spec!.deadline!);
  }, 180_000);

  afterAll(async () => {
    try {
      await ts?.destroy({ remove: true });
    } finally {
      if (name) await removeContainers([name]);
      await rm(base, { recursive: true, force: true });
    }
  }, 120_000);

  test("within its deadline, the CI check (YAML, fn::invoke) passes", async () => {
    const check = await ciCheck();
    expect(check.stderr).toBe("");
    expect(check.stdout).toContain("deadline check: no computer has outlived its deadline");
    expect(check.exitCode).toBe(0);
  }, 120_000);

  test("within its deadline, listComputers (TypeScript, the SDK) reports it running and as declared, and a dry-run sweep names nothing", async () => {
    const { listed, swept } = orThrow(await ts.up()).outputs;
    expect(listed.overdue).toEqual([]);
    expect(listed.computers).toHaveLength(1);
    expect(listed.computers[0]).toMatchObject({ name, provider: "docker", state: "running", overdue: false, drift: [], readBack: true });
    expect(Date.parse(listed.computers[0]!.deadline!)).toBe(deadline);
    expect(swept).toEqual({ deleted: [], due: [], kept: 1 });
  }, 120_000);

  test("past its deadline, the CI check fails naming it, and a dry-run sweep names it due and deletes nothing", async () => {
    await new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()) + 2_000));
    const check = await ciCheck();
    expect(check.exitCode).toBe(1);
    expect(check.stderr).toContain(`deadline check: these computers have outlived their deadline: ${name}`);
    const { listed, swept } = orThrow(await ts.up()).outputs;
    expect(listed.overdue).toEqual([name]);
    expect(swept).toEqual({ deleted: [], due: [name], kept: 0 });
    expect(await exists(name)).toBe(true);
  }, 180_000);

  test("the sweep deletes it, and the CI check passes again", async () => {
    sweeping = true;
    const { swept } = orThrow(await ts.up()).outputs;
    expect(swept).toEqual({ deleted: [name], due: [name], kept: 0 });
    expect(await exists(name)).toBe(false);
    expect((await ciCheck()).exitCode).toBe(0);
  }, 180_000);
});
