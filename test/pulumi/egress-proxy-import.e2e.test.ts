// `pulumi import` of an egress proxy this provider made, through the real engine, as a
// Computer's import is tested: read takes it by name, with its list, user, hint and what is
// left of its lifetime; destroy then removes its container and volume. The list names a host
// nothing here connects to. Every part made is removed by its exact name, pass or fail.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DockerProvider } from "../../src/docker/index.js";
import { docker, egressParts, removeEgress } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { ROOT } from "../support/toolchain.js";

const HOST_ADDRESSES = ["192.0.2.1"]; // the plugin runs in a container here, so it is told the Docker host's addresses

describe("pulumi import of an egress proxy this provider made", () => {
  let s: TestStack;
  let name = "";
  const parts = () => egressParts(name);

  beforeAll(async () => {
    const provider = new DockerProvider({ daemonPath: `${ROOT}/dist/computerd-linux-amd64`, egress: { hostAddresses: HOST_ADDRESSES } });
    const made = await provider.proxies.make({ allow: ["pypi.org", "*.pythonhosted.org"], lifetimeMs: 600_000, hint: "ask the import test" });
    if (!made.ok) throw new Error(made.error.message);
    name = made.value.name;
    s = await testStack("egress-proxy-import", {});
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ egress: { hostAddresses: HOST_ADDRESSES } }) });
  }, 300_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      if (name) await removeEgress(name);
    }
  }, 300_000);

  test("imports it by name, reading back its list, user and hint, with no drift", async () => {
    const imported = await s.cli("import", "agentrun:index:EgressProxy", "imported", name, "--yes", "--protect=false");
    expect(imported.stderr).toBe("");
    expect(imported.exitCode).toBe(0);
    const p = (await s.stack.exportStack()).deployment.resources.find((r: { urn: string }) => r.urn.endsWith("::imported"));
    expect(p.id).toBe(name);
    expect(p.outputs).toMatchObject({
      name,
      allow: ["*.pythonhosted.org", "pypi.org"],
      hint: "ask the import test",
      egress: { proxy: name, user: expect.stringMatching(/^\d+:\d+$/) },
      hostAddresses: expect.arrayContaining(HOST_ADDRESSES),
      state: "running",
      drift: [],
    });
    expect(p.outputs.lifetimeMs).toBeGreaterThan(500_000);
    expect(p.outputs.lifetimeMs).toBeLessThanOrEqual(600_000);
    // The code import prints is what a stack declares to keep it as it is.
    expect(imported.stdout).toContain("type: agentrun:EgressProxy");
    expect(imported.stdout).toContain("hint: ask the import test");
  }, 120_000);

  test("destroy then removes its container and volume", async () => {
    const destroyed = await s.cli("destroy", "--yes");
    expect(destroyed.exitCode).toBe(0);
    expect(await parts()).toEqual({ containers: "", volumes: "" });
  }, 120_000);
});
