// An allowlisted Computer through the real Pulumi engine: up makes the computer with its own
// egress proxy; a refresh finds nothing to change; the proxy stopped by hand is drift
// (preview --refresh --expect-no-changes exits 7, naming it); destroy leaves no container or
// volume with the egress label. The list names one host nothing here ever connects to, so no
// traffic leaves the machine. Every container made is removed by its exact name at the end.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker, egressParts, removeEgress } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

describe("an allowlisted computer through the real engine", () => {
  let s: TestStack;
  let name = "";

  beforeAll(async () => {
    s = await testStack(
      "allowlist",
      {
        c: {
          type: "agentrun:index:Computer",
          properties: { image: toolchain().baseImage, lifetimeMs: 600_000, memoryMb: 256, network: "allow", allow: ["pypi.org", "*.pythonhosted.org"] },
        },
      },
      { name: "${c.name}", network: "${c.network}", allow: "${c.allow}" },
    );
    // The plugin runs in a container here, so it is told the Docker host's addresses.
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ egress: { hostAddresses: ["192.0.2.1"], hint: "ask the e2e test" } }) });
  }, 120_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      if (name) await removeEgress(name);
    }
  }, 300_000);

  test("up makes the computer and its proxy, and reads the list back", async () => {
    const up = await s.stack.up({ color: "never" });
    name = String(up.outputs.name?.value);
    s.made.add(name);
    expect(up.outputs.network?.value).toBe("allow");
    // The same list read back in its normal form is kept as declared, so a refresh changes nothing.
    expect(up.outputs.allow?.value).toEqual(["pypi.org", "*.pythonhosted.org"]);
    expect(await egressParts(name)).toEqual({ containers: `${name}-egress`, volumes: `${name}-egress` });
  }, 300_000);

  test("a refresh finds nothing to change", async () => {
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode, preview.stdout + preview.stderr).toBe(0);
  }, 300_000);

  test("a proxy stopped by hand is drift, named", async () => {
    await docker("stop", "-t", "1", `${name}-egress`);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).not.toBe(0);
    expect(preview.stdout + preview.stderr).toMatch(/egress proxy .*-egress is not running/);
  }, 300_000);

  test("destroy leaves nothing with the egress label", async () => {
    await s.stack.destroy({ color: "never" });
    expect(await egressParts(name)).toEqual({ containers: "", volumes: "" });
  }, 300_000);
});
