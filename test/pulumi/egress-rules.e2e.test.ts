// An EgressProxy's rules through the real engine: up makes the proxy with its rules; a preview of
// a change to them names, among its diagnostics, what the change opens and closes host by host
// (and makes nothing); destroy removes the proxy's container and volume. The list names hosts nothing
// here connects to. A proxy whose rules and key are changed behind the stack's back (through the
// library, as a hand would) is drift naming the host and never the key, which an up with refresh heals.
// Every part made is removed by its exact name, pass or fail.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker, removeEgress } from "../support/docker.js";
import { provider } from "../support/docker-helpers.js";
import { testStack, type TestStack } from "../support/stack.js";

const HOST_ADDRESSES = ["192.0.2.1"]; // the plugin runs in a container here, so it is told the Docker host's addresses
const proxy = (rules: unknown[]) => ({
  proxy: { type: "agentrun:index:EgressProxy", properties: { allow: ["api.example.com", "docs.example.com"], lifetimeMs: 600_000, rules } },
});
const FIRST = [
  { host: "api.example.com", methods: ["GET"], paths: ["/v1/items"] },
  { host: "docs.example.com", methods: ["GET"], paths: ["/"] },
];

/** A stack of one proxy, made before a describe's tests and removed after them (its proxy by its exact name, pass or fail). */
function stackOf(stackName: string, resources: Record<string, unknown>): { s?: TestStack; name: string } {
  const held: { s?: TestStack; name: string } = { name: "" };
  beforeAll(async () => {
    held.s = await testStack(stackName, resources, { name: "${proxy.name}" });
    await held.s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ egress: { hostAddresses: HOST_ADDRESSES } }) });
  }, 300_000);
  afterAll(async () => {
    try {
      await held.s?.dispose();
    } finally {
      if (held.name) await removeEgress(held.name);
    }
  }, 300_000);
  return held;
}

describe("an EgressProxy's rules through the real engine", () => {
  const held = stackOf("egress-rules", proxy(FIRST));

  test("a preview of a change to the rules names what it opens and closes, host by host, and makes nothing", async () => {
    const s = held.s!;
    const up = await s.cli("up", "--yes");
    const name = (held.name = (await s.cli("stack", "output", "name")).stdout.trim());
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

describe("an EgressProxy's rules and key changed by hand", () => {
  const KEY = "Bearer declared-key-5e1d";
  const held = stackOf("egress-rules-hand", {
    proxy: {
      type: "agentrun:index:EgressProxy",
      properties: { ...proxy(FIRST).proxy.properties, credentials: [{ host: "api.example.com", header: "Authorization", value: KEY }] },
    },
  });

  test("is drift naming each host whose rules or key differ, never a key, and an up with refresh heals it", async () => {
    const s = held.s!;
    const up = await s.cli("up", "--yes");
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    const name = (held.name = (await s.cli("stack", "output", "name")).stdout.trim());
    // By hand: POST opened on api.example.com, docs.example.com's rule kept, and another key.
    const byHand = await provider({ egress: { hostAddresses: HOST_ADDRESSES } }).proxies.update(name, {
      allow: ["api.example.com", "docs.example.com"],
      rules: [{ ...FIRST[0]!, methods: ["GET", "POST"] }, FIRST[1]!],
      credentials: [{ host: "api.example.com", header: "Authorization", value: "Bearer by-hand-key-0c4f" }],
    });
    expect(byHand.ok, JSON.stringify(byHand)).toBe(true);
    const drifted = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(drifted.exitCode, drifted.stdout + drifted.stderr).not.toBe(0);
    const said = drifted.stdout + drifted.stderr;
    expect(said).toContain(`the egress proxy ${name} holds other rules for api.example.com than declared`);
    expect(said).toContain(`the egress proxy ${name} holds another credential for api.example.com than declared`);
    expect(said).not.toContain("docs.example.com than declared");
    expect(said).not.toMatch(/by-hand-key|declared-key/);
    const healed = await s.cli("up", "--refresh", "--yes");
    expect(healed.exitCode, healed.stdout + healed.stderr).toBe(0);
    expect((await docker("inspect", "--format", "{{json .Args}}", `${name}-egress`)).stdout).not.toContain("POST");
    const clean = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(clean.exitCode, clean.stdout + clean.stderr).toBe(0);
    expect((await s.cli("destroy", "--yes")).exitCode).toBe(0);
    expect((await docker("inspect", `${name}-egress`)).exitCode).not.toBe(0);
  }, 300_000);
});
