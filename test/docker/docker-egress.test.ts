// An allowlisted computer on the real engine: its volume and proxy made before it, hardened and
// bounded as the spec lists; from inside, the list reached through the proxy variables and
// nothing else; the network read back in full; a stopped proxy read back as other and refused by
// attach; release and a failed create leave nothing with the egress label. The upstream is the
// test's own server (testdata/egresskit) on an --internal Docker network the test made, marked
// reachable by the test-only seam; no public address is ever a target.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFile } from "../../src/daemon/files.js";
import { cleanup, docker, IMAGE, provider, testLabel } from "../support/docker-helpers.js";
import { startUpstream, type Upstream } from "../support/egress-upstream.js";

const made = cleanup();
const id = randomBytes(4).toString("hex");
let up: Upstream;
let kit = "";
let upIP = "";
let gateway = "";

beforeAll(() => {
  up = startUpstream(`agentrun-egress-test-${id}`);
  ({ kit, ip: upIP, gateway } = up);
}, 120_000);

afterAll(() => up?.close());

const egressOf = (labels: Record<string, string>) => ({
  containers: docker(
    "ps",
    "--all",
    "--format",
    "{{.Names}}",
    "--filter",
    `label=${Object.keys(labels)[0]}=${Object.values(labels)[0]}`,
    "--filter",
    "label=agentrun.computer.egress",
  )
    .split("\n")
    .filter(Boolean),
  volumes: docker("volume", "ls", "--format", "{{.Name}}", "--filter", `label=${Object.keys(labels)[0]}=${Object.values(labels)[0]}`)
    .split("\n")
    .filter(Boolean),
});

const testProvider = (extra: Record<string, unknown> = {}) => provider({ egress: { ...up.egress, ...extra } });

describe("an allowlisted Docker computer", () => {
  it("reaches its list through its own proxy, and nothing else", async () => {
    const docker_ = testProvider();
    const labels = testLabel();
    const created = await docker_.create({ image: IMAGE, lifetimeMs: 600_000, network: { allow: [`${upIP}/32`] }, labels });
    if (created.ok) made.track(created.value.name);
    expect(created.ok, JSON.stringify(created)).toBe(true);
    if (!created.ok) return;
    const ref = created.value;
    expect(ref.spec?.network).toEqual({ allow: [`${upIP}/32`] });
    const connected = await docker_.connect(ref);
    if (!connected.ok) throw new Error(connected.error.message);
    const client = connected.value.client;
    try {
      expect((await writeFile(client, "/work/egresskit", readFileSync(kit), { mode: 0o755 })).ok).toBe(true);
      const run = async (...argv: string[]) => {
        const r = (await client.call("exec.run", { argv: ["/work/egresskit", ...argv], timeoutMs: 30_000 })) as { stdout: string };
        return Buffer.from(r.stdout, "base64").toString("utf8");
      };
      expect(await run("get", `http://${upIP}/a`)).toBe("200 hello from upstream /a");
      expect(await run("get", `https://${upIP}/tls`)).toBe("200 hello from upstream /tls");
      expect(await run("get", `http://${gateway}/`)).toMatch(/^403 403 .* is not on this box's network list: ask the test/);
      expect(await run("get", "http://169.254.169.254/")).toMatch(/^403 403 169\.254\.169\.254 is not on this box's network list/);
      expect(await run("direct", `${upIP}:80`)).toMatch(/^no route/);
    } finally {
      await connected.value.close();
    }
    expect(await docker_.network(ref)).toEqual({ ok: true, value: { allow: [`${upIP}/32`] } });
    const listed = await docker_.list(labels);
    expect(listed.ok && listed.value.map((i) => i.network)).toEqual([{ allow: [`${upIP}/32`] }]);
    expect((await docker_.attach({ id: ref.name })).ok).toBe(true);

    docker("stop", "-t", "1", `${ref.name}-egress`);
    expect(await docker_.network(ref)).toEqual({ ok: true, value: { other: expect.stringMatching(/^network allow, but its egress proxy .* is not running/) } });
    expect(await docker_.attach({ id: ref.name })).toMatchObject({ ok: false, error: { code: "refused" } });

    expect((await docker_.release(ref, "delete")).ok).toBe(true);
    expect(egressOf(labels)).toEqual({ containers: [], volumes: [] });
  }, 120_000);

  it("a host address added to egress.hostAddresses after create reads back as the network alone, no follow-on sentence", async () => {
    const labels = testLabel();
    const created = await testProvider().create({ image: IMAGE, lifetimeMs: 600_000, network: { allow: [`${upIP}/32`] }, labels });
    if (created.ok) made.track(created.value.name);
    if (!created.ok) throw new Error(created.error.message);
    const read = await testProvider({ hostAddresses: ["203.0.113.7", "203.0.113.8"] }).read({ id: created.value.name });
    expect((await testProvider().release(created.value, "delete")).ok).toBe(true);
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value.drift).toEqual([
      expect.stringMatching(
        /^the network reads back as other \(network allow, but its egress proxy .* does not refuse the Docker host's addresses 203\.0\.113\.8/,
      ),
    ]);
  }, 120_000);

  it("a proxy that ends before its ready line fails create in its words, removes its parts and runs nothing", async () => {
    const docker_ = testProvider();
    const labels = testLabel();
    // A lifetime that has ended by the time the proxy starts: the proxy refuses to start.
    const created = await docker_.create({ image: IMAGE, lifetimeMs: 1, network: { allow: [`${upIP}/32`] }, labels });
    if (created.ok) made.track(created.value.name);
    expect(created).toMatchObject({
      ok: false,
      error: {
        code: "failed",
        message: expect.stringMatching(
          /ended before it was ready \(exit code 1: computerd egress: its deadline .* has passed\); the proxy, its volume and the computer were removed, and the computer ran nothing/,
        ),
      },
    });
    expect(egressOf(labels)).toEqual({ containers: [], volumes: [] });
    expect(docker("ps", "--all", "--format", "{{.Names}}", "--filter", `label=agentrun.test=${labels["agentrun.test"]}`)).toBe("");
  }, 60_000);

  it("leaves nothing when its computer is removed by hand: release by its name, and the sweep past its deadline", async () => {
    const docker_ = testProvider();
    for (const how of ["release", "sweep"] as const) {
      const labels = testLabel();
      const created = await docker_.create({ image: IMAGE, lifetimeMs: 600_000, network: { allow: [`${upIP}/32`] }, labels });
      if (created.ok) made.track(created.value.name);
      expect(created.ok, JSON.stringify(created)).toBe(true);
      if (!created.ok) return;
      docker("rm", "--force", created.value.name);
      expect(egressOf(labels).containers).toEqual([`${created.value.name}-egress`]);
      if (how === "release") {
        expect(await docker_.release({ id: "", name: created.value.name, provider: "docker" }, "delete")).toEqual({ ok: true, value: undefined });
      } else {
        // Not yet: the computer is gone but its parts are younger than a create could take.
        expect(await docker_.sweep({ labels })).toEqual({ ok: true, value: { removed: [] } });
        const past = new Date(Date.parse(created.value.spec!.deadline!) + 1);
        expect(await docker_.sweep({ labels, now: past })).toEqual({ ok: true, value: { removed: [`${created.value.name}-egress`] } });
      }
      expect(egressOf(labels)).toEqual({ containers: [], volumes: [] });
    }
  }, 120_000);
});
