// The Fleet from the generated TypeScript SDK through the real engine: an Automation API inline
// program (no Node language host is needed) declares a RunEpoch and a Fleet of two whose template
// holds the claim's labels; up makes fleet-0 and fleet-1 with them, its outputs typed; preview
// with refresh finds nothing to change; destroy leaves nothing with the run's label. Containers are removed by their exact names at the end, pass or fail.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { projectWithPlugin } from "../../src/fleet/automation.js";
import { Fleet, RunEpoch } from "../../provider/sdk/index.js";
import { docker, isRunning, removeContainers } from "../support/docker.js";
import { pulumiCommand, pulumiEnv } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

describe("a Fleet declared in TypeScript runs through the real engine", () => {
  let dir: string;
  let stack: Stack;
  const made = new Set<string>();
  const run = `e2e-fleet-ts-${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentrun-fleet-ts-"));
    await mkdir(join(dir, "state"));
    await mkdir(join(dir, "home"));
    const program = async () => {
      const claim = new RunEpoch("claim", { run, epoch: 1 });
      const fleet = new Fleet("fleet", {
        size: 2,
        // The claim's labels inside the template: a template that depends on a resource.
        template: { image: toolchain().baseImage, lifetimeMs: 3_600_000, network: "none", memoryMb: 128, cpus: 0.5, labels: claim.labels },
      });
      return { names: fleet.names, drift: fleet.drift };
    };
    stack = await LocalWorkspace.createOrSelectStack(
      { stackName: "test", projectName: "agentrun-fleet-ts", program },
      {
        workDir: dir,
        pulumiCommand: await pulumiCommand(),
        envVars: pulumiEnv(join(dir, "state"), join(dir, "home")),
        projectSettings: projectWithPlugin("agentrun-fleet-ts"),
      },
    );
  }, 120_000);

  afterAll(async () => {
    try {
      await stack?.destroy({ color: "never" });
    } finally {
      await removeContainers(made);
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);

  test("up makes fleet-0 and fleet-1 with the claim's labels, and its outputs are the names and no drift", async () => {
    const up = await stack.up({ color: "never" });
    expect(up.summary.result).toBe("succeeded");
    const names = up.outputs.names?.value as string[];
    for (const name of names) made.add(name);
    expect(names).toHaveLength(2);
    for (const name of names) {
      expect(await isRunning(name)).toBe(true);
      const labels = JSON.parse((await docker("inspect", "--format", "{{json .Config.Labels}}", name)).stdout);
      expect(labels).toMatchObject({ "agentrun.run": run, "agentrun.epoch": "1" });
    }
    expect(up.outputs.drift?.value).toEqual({ count: 0, computers: [], gone: [] });
    const state = await stack.exportStack();
    const children = (state.deployment.resources as Array<{ urn: string; type: string }>).filter((r) => r.type === "agentrun:index:Computer");
    expect(children.map((r) => r.urn.split("::").pop()).sort()).toEqual(["fleet-0", "fleet-1"]);
  }, 300_000);

  test("preview with refresh finds no drift, and destroy leaves nothing with the run's label", async () => {
    const preview = await stack.preview({ refresh: true, expectNoChanges: true, color: "never" });
    expect(preview.changeSummary).not.toHaveProperty("create");
    await stack.destroy({ color: "never" });
    const left = await docker("ps", "-a", "--filter", `label=agentrun.run=${run}`, "--format", "{{.Names}}");
    expect(left.stdout).toBe("");
  }, 300_000);
});
