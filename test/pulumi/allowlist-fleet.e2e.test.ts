// An EgressProxy shared by two Computers, through the real Pulumi engine, as a story: up makes
// the proxy and the computers behind it; a refresh finds nothing to change; a narrower list is
// an update of the proxy alone (the computers keep their ids and keep running, and the name
// taken off is refused from inside); the proxy removed by hand is drift that preview --refresh
// names (exit 7) and up --refresh heals, keeping the computers (the proxy's drift is its own);
// destroy leaves no container or volume behind. The list names hosts nothing here connects to:
// a name off the list is refused before any lookup, so no traffic leaves the machine. Every part
// made is removed by its exact name at the end.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker, egressParts, removeEgress } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

const computer = (extra: Record<string, unknown> = {}) => ({
  type: "agentrun:index:Computer",
  properties: { image: toolchain().baseImage, lifetimeMs: 600_000, memoryMb: 256, egress: "${proxy.egress}", ...extra },
});
const program = (allow: string[]) => ({
  proxy: { type: "agentrun:index:EgressProxy", properties: { allow, lifetimeMs: 1_200_000, hint: "ask the e2e test" } },
  a: computer(),
  b: computer(),
});
const outputs = {
  proxy: "${proxy.name}",
  allow: "${proxy.allow}",
  a: "${a.vendorId}",
  b: "${b.vendorId}",
  aName: "${a.name}",
  bName: "${b.name}",
  aList: "${a.spec.network}",
  driftA: "${a.drift}",
  driftB: "${b.drift}",
};

describe("an EgressProxy shared by two computers, through the real engine", () => {
  let s: TestStack;
  let proxy = "";
  let ids: string[] = [];
  const names = () => [...(s?.made ?? [])];

  beforeAll(async () => {
    s = await testStack("allowlist-fleet", program(["pypi.org", "files.pythonhosted.org"]), outputs);
    // The plugin runs in a container here, so it is told the Docker host's addresses.
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ egress: { hostAddresses: ["192.0.2.1"] } }) });
  }, 120_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      if (proxy) await removeEgress(proxy);
    }
  }, 300_000);

  const parts = () => egressParts(proxy);
  const started = async () => Promise.all(ids.map(async (id) => (await docker("inspect", "-f", "{{.State.Running}} {{.State.StartedAt}}", id)).stdout));
  /** The first line of the proxy's answer to a GET from inside a computer, through its relay. */
  const fromInside = async (name: string, host: string) =>
    (
      await docker(
        "exec",
        name,
        "bash",
        "-c",
        `exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'GET http://${host}/ HTTP/1.1\\r\\nHost: ${host}\\r\\n\\r\\n' >&3 && timeout 10 cat <&3`,
      )
    ).stdout;

  test("up makes the proxy, then two computers behind it", async () => {
    const up = await s.stack.up({ color: "never" });
    proxy = String(up.outputs.proxy?.value);
    ids = [String(up.outputs.a?.value), String(up.outputs.b?.value)];
    for (const k of ["aName", "bName"]) s.made.add(String(up.outputs[k]?.value));
    expect(proxy).toMatch(/^proxy-[0-9a-f]{12}$/);
    expect(up.outputs.aList?.value).toEqual({ allow: ["files.pythonhosted.org", "pypi.org"] });
    expect(await parts()).toEqual({ containers: `${proxy}-egress`, volumes: `${proxy}-egress` });
    for (const name of names()) {
      expect((await docker("inspect", "-f", "{{range .Mounts}}{{.Name}} {{end}}", name)).stdout.trim()).toBe(`${proxy}-egress`);
    }
  }, 600_000);

  test("a refresh finds nothing to change", async () => {
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode, preview.stdout + preview.stderr).toBe(0);
  }, 300_000);

  test("a narrower list is an update of the proxy alone: the computers keep running, and meet it", async () => {
    const before = await started();
    await s.program(program(["pypi.org"]), outputs);
    // The preview says so too: one update, and no computer made again.
    const preview = await s.cli("preview");
    expect(preview.stdout, preview.stderr).toMatch(/1 to update/);
    expect(preview.stdout).not.toMatch(/replace/);
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toMatchObject({ update: 1, same: 3 });
    expect(up.outputs.proxy?.value).toBe(proxy);
    expect([up.outputs.a?.value, up.outputs.b?.value]).toEqual(ids);
    expect(await started()).toEqual(before);
    expect((await docker("inspect", "-f", "{{json .Config.Cmd}}", `${proxy}-egress`)).stdout).not.toContain("files.pythonhosted.org");
    // Refused by name before any lookup: nothing leaves the machine.
    expect(await fromInside(names()[0]!, "files.pythonhosted.org")).toMatch(
      /^HTTP\/1\.1 403[\s\S]*files\.pythonhosted\.org is not on this box's network list: ask the e2e test/,
    );
    const after = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(after.exitCode, after.stdout + after.stderr).toBe(0);
  }, 600_000);

  test("the proxy removed by hand is drift, named", async () => {
    await docker("rm", "--force", `${proxy}-egress`);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout + preview.stderr).toMatch(/egress proxy proxy-[0-9a-f]{12}-egress is gone/);
    // Each computer behind it says so in its own drift, and is planned as an update, never a replace.
    expect(preview.stdout.match(/its egress proxy proxy-[0-9a-f]{12} is stopped, so it reaches nothing/g)?.length).toBeGreaterThanOrEqual(2);
    expect(preview.stdout).not.toMatch(/\(replace\)/);
  }, 300_000);

  test("up --refresh makes the proxy again on its volume, keeps its computers, and then nothing drifts", async () => {
    const up = await s.stack.up({ color: "never", refresh: true });
    // The proxy made again on its volume; the computers, kept, read back once it runs again.
    expect(up.summary.resourceChanges).toMatchObject({ update: 3, same: 1 });
    expect(up.summary.resourceChanges?.replace).toBeUndefined();
    expect(up.outputs.proxy?.value).toBe(proxy);
    expect([up.outputs.a?.value, up.outputs.b?.value]).toEqual(ids);
    expect((await docker("inspect", "-f", "{{.State.Running}}", `${proxy}-egress`)).stdout).toBe("true");
    expect([up.outputs.driftA?.value, up.outputs.driftB?.value]).toEqual([[], []]);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode, preview.stdout + preview.stderr).toBe(0);
  }, 600_000);

  test("destroy leaves no computer, proxy or volume behind", async () => {
    await s.stack.destroy({ color: "never" });
    expect(await parts()).toEqual({ containers: "", volumes: "" });
    for (const name of names()) expect((await docker("ps", "--all", "--format", "{{.Names}}", "--filter", `name=^${name}$`)).stdout).toBe("");
  }, 300_000);
});
