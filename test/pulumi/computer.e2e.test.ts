// The Computer resource's other promises through the real engine: the stack's docker settings
// reach the computers; a secret input stays a secret in state; `pulumi import` of a computer
// this provider made works through read. Every container made is removed by its exact name.
import { randomBytes } from "node:crypto";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DockerProvider } from "../../src/docker/index.js";
import { docker, removeContainers } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { ROOT, toolchain } from "../support/toolchain.js";

describe("a computer's settings and secrets through the real engine", () => {
  let s: TestStack;
  const secretLabel = `team-${randomBytes(6).toString("hex")}`;

  beforeAll(async () => {
    s = await testStack(
      "computer-settings",
      {
        c: {
          type: "agentrun:index:Computer",
          properties: { lifetimeMs: 600_000, memoryMb: 256, labels: { "fn::secret": { team: secretLabel } } },
        },
      },
      { name: "${c.name}" },
    );
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ user: "1234:1234", image: toolchain().baseImage }) });
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("agentrun:docker's user and image are the computer's when it declares none", async () => {
    const up = await s.stack.up({ color: "never" });
    const name = String(up.outputs.name?.value);
    s.made.add(name);
    const read = await docker("inspect", "--format", "{{.Config.User}} {{.Config.Image}}", name);
    expect(read.stdout).toBe(`1234:1234 ${toolchain().baseImage}`);
  }, 300_000);

  test("a label given as a secret is never in clear in the state", async () => {
    const leaks = await execa("grep", ["-rl", "--", secretLabel, `${s.dir}/state`], { reject: false });
    expect(leaks.exitCode).toBe(1); // grep's "no line matched"
    const c = (await s.stack.exportStack()).deployment.resources.find((r: { urn: string }) => r.urn.endsWith("::c"));
    expect(Object.keys(c.outputs.labels)).toContain("4dabf18193072939515e22adb298388d");
    const labels = JSON.parse((await docker("inspect", "--format", "{{json .Config.Labels}}", String((await s.stack.outputs()).name?.value))).stdout);
    expect(labels.team).toBe(secretLabel);
  }, 120_000);
});

describe("pulumi import of a computer this provider made", () => {
  let s: TestStack;
  let name = "";

  beforeAll(async () => {
    const provider = new DockerProvider({ daemonPath: `${ROOT}/dist/computerd-linux-amd64` });
    const created = await provider.create({ image: toolchain().baseImage, lifetimeMs: 600_000, network: "none", memoryMb: 256, labels: { purpose: "import" } });
    if (!created.ok) throw new Error(created.error.message);
    name = created.value.name;
    s = await testStack("computer-import", {});
  }, 300_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      if (name) await removeContainers([name]);
    }
  }, 300_000);

  test("imports it by name, reading back its spec, with no drift", async () => {
    const imported = await s.cli("import", "agentrun:index:Computer", "imported", name, "--yes", "--protect=false");
    expect(imported.stderr).toBe("");
    expect(imported.exitCode).toBe(0);
    const c = (await s.stack.exportStack()).deployment.resources.find((r: { urn: string }) => r.urn.endsWith("::imported"));
    expect(c.id).toBe(name);
    expect(c.outputs).toMatchObject({
      name,
      vendorId: expect.stringMatching(/^[0-9a-f]{64}$/),
      image: toolchain().baseImage,
      memoryMb: 256,
      network: "none",
      labels: { purpose: "import" },
      state: "running",
      drift: [],
    });
    expect(imported.stdout).toContain("memoryMb: 256");
  }, 120_000);
});

describe("a computer past its deadline", () => {
  let s: TestStack;

  beforeAll(async () => {
    s = await testStack(
      "computer-deadline",
      {
        brief: { type: "agentrun:index:Computer", properties: { image: toolchain().baseImage, lifetimeMs: 8_000, memoryMb: 256 } },
      },
      { name: "${brief.name}" },
    );
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("stops itself; preview --refresh shows it stopped and replaced; up --refresh makes a new one", async () => {
    await s.stack.up({ color: "never" });
    const first = String((await s.stack.outputs()).name?.value);
    s.made.add(first);
    await waitFor(async () => (await docker("inspect", "--format", "{{.State.Running}}", first)).stdout === "false", 30_000);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toMatch(/state\s*:\s*"running" => "stopped"/);
    expect(preview.stdout).toMatch(/\+-\s*agentrun:index:Computer: \(replace\)/);
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(up.summary.resourceChanges).toMatchObject({ replace: 1 });
    const second = String(up.outputs.name?.value);
    s.made.add(second);
    expect(second).not.toBe(first);
    expect((await docker("inspect", "--format", "{{.State.Running}}", second)).stdout).toBe("true");
    // The stopped one was released with the replace: the janitor has nothing left to do.
    expect((await docker("inspect", first)).exitCode).not.toBe(0);
  }, 300_000);
});

async function waitFor(predicate: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > until) throw new Error(`not so within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
