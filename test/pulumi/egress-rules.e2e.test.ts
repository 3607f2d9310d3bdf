// An EgressProxy's rules through the real engine: up makes the proxy with its rules; a preview of
// a change to them names, among its diagnostics, what the change opens and closes host by host
// (and makes nothing); destroy removes the proxy's container and volume. The list names hosts nothing
// here connects to. Every part made is removed by its exact name, pass or fail.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker, removeEgress } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";

const HOST_ADDRESSES = ["192.0.2.1"]; // the plugin runs in a container here, so it is told the Docker host's addresses
const proxy = (rules: unknown[]) => ({
  proxy: { type: "agentrun:index:EgressProxy", properties: { allow: ["api.example.com", "docs.example.com"], lifetimeMs: 600_000, rules } },
});
const FIRST = [
  { host: "api.example.com", methods: ["GET"], paths: ["/v1/items"] },
  { host: "docs.example.com", methods: ["GET"], paths: ["/"] },
];

describe("an EgressProxy's rules through the real engine", () => {
  let s: TestStack;
  let name = "";

  beforeAll(async () => {
    s = await testStack("egress-rules", proxy(FIRST), { name: "${proxy.name}" });
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ egress: { hostAddresses: HOST_ADDRESSES } }) });
  }, 300_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      if (name) await removeEgress(name);
    }
  }, 300_000);

  test("a preview of a change to the rules names what it opens and closes, host by host, and makes nothing", async () => {
    const up = await s.cli("up", "--yes");
    name = (await s.cli("stack", "output", "name")).stdout.trim();
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    await s.program(
      proxy([
        { host: "api.example.com", methods: ["GET", "POST"], paths: ["/v1/items"] },
        { host: "docs.example.com", methods: ["GET"], paths: ["/guide/"] },
      ]),
      { name: "${proxy.name}" },
    );
    const preview = await s.cli("preview");
    expect(preview.exitCode, preview.stderr).toBe(0);
    // Among the preview's diagnostics, under the proxy, in the order of its hosts.
    const diagnostics = preview.stdout.split("\nDiagnostics:\n")[1] ?? "";
    expect(diagnostics).toContain(
      "  agentrun:index:EgressProxy (proxy):\n    rules for api.example.com: opens POST /v1/items\n    rules for docs.example.com: closes GET /\n",
    );
    expect(preview.stdout).toMatch(/~ 1 to update/);
    expect((await docker("inspect", "--format", "{{.Args}}", `${name}-egress`)).stdout).not.toContain("POST");
    const down = await s.cli("destroy", "--yes");
    expect(down.exitCode).toBe(0);
    expect((await docker("inspect", `${name}-egress`)).exitCode).not.toBe(0);
  }, 300_000);
});
