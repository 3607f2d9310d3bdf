// A shared egress proxy on the real engine, as a story: made apart from any computer; two
// computers join it and reach its list; a new list is an update on the same volume (the
// computers keep running, and their next connection meets it); a computer of another user, or
// one that would outlive the proxy, is refused; a proxy stopped by hand is its own drift (not its
// computers') that update heals; a computer's release leaves the proxy; the proxy's release
// waits for its computers and then leaves nothing. The upstream is the test's own server on an
// --internal network of its own, marked reachable by the test-only seam; the other list names a
// host never dialled.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DockerEngine, type Asked } from "../../src/docker/api.js";
import type { DockerProvider } from "../../src/docker/index.js";
import { writeFile } from "../../src/daemon/files.js";
import type { ComputerRef } from "../../src/contract/provider.js";
import { OWNER_LABEL, ownerLabel } from "../../src/contract/labels.js";
import { docker, IMAGE, provider, testLabel } from "../support/docker-helpers.js";
import { startUpstream, type Upstream } from "../support/egress-upstream.js";

const id = randomBytes(4).toString("hex");
let up: Upstream | undefined;
const labels = testLabel();
const names = new Set<string>();
let kit = "";
let upIP = "";
let p: DockerProvider;
let egressOptions: NonNullable<Parameters<typeof provider>[0]>["egress"];
let proxy = "";
let user = "";
let rooted = "";
const computers: ComputerRef[] = [];
const keys = [`Bearer key-one-${id}`, `Bearer key-two-${id}`];

const egressParts = () => ({
  containers: docker(
    "ps",
    "--all",
    "--format",
    "{{.Names}}",
    "--filter",
    `label=agentrun.test=${labels["agentrun.test"]}`,
    "--filter",
    "label=agentrun.computer.egress",
  )
    .split("\n")
    .filter(Boolean),
  volumes: docker("volume", "ls", "--format", "{{.Name}}", "--filter", `label=agentrun.test=${labels["agentrun.test"]}`).split("\n").filter(Boolean),
});

/** egresskit inside a computer: what a GET through the proxy variables answers. */
const get = (ref: ComputerRef, url: string) => kitRun(ref, ["get", url]);

/** egresskit inside a computer, run with args (after before: a program that starts it): what it prints. */
async function kitRun(ref: ComputerRef, args: string[], before: string[] = []): Promise<string> {
  const connected = await p.connect(ref);
  if (!connected.ok) throw new Error(connected.error.message);
  try {
    const client = connected.value.client;
    expect((await writeFile(client, "/work/egresskit", readFileSync(kit), { mode: 0o755 })).ok).toBe(true);
    const r = (await client.call("exec.run", { argv: [...before, "/work/egresskit", ...args], timeoutMs: 30_000 })) as { stdout: string };
    return Buffer.from(r.stdout, "base64").toString("utf8");
  } finally {
    await connected.value.close();
  }
}

beforeAll(async () => {
  up = startUpstream(`agentrun-egress-shared-${id}`, { alias: "up.egress.test", env: [`EGRESSKIT_KEYS=${keys.join(",")}`] });
  ({ kit, ip: upIP, egress: egressOptions } = up);
  p = provider({ egress: egressOptions });
  user = p.capabilities().defaults!.user!;
}, 120_000);

afterAll(() => {
  for (const name of names) execFileSync("docker", ["rm", "--force", "--volumes", name], { stdio: "ignore" });
  if (proxy) {
    execFileSync("docker", ["rm", "--force", `${proxy}-egress`], { stdio: "ignore" });
    execFileSync("docker", ["volume", "rm", "--force", `${proxy}-egress`], { stdio: "ignore" });
  }
  if (rooted) execFileSync("docker", ["rmi", "--force", rooted], { stdio: "ignore" });
  up?.close();
}, 60_000);

describe("a shared egress proxy", () => {
  it("is made apart from any computer, keyed by its own name, and read back as made, its owner label on its parts", async () => {
    const made = await p.proxies.make({ allow: [`${upIP}/32`], lifetimeMs: 900_000, labels }, { owner: "the test's resource" });
    expect(made.ok, JSON.stringify(made)).toBe(true);
    if (!made.ok) return;
    proxy = made.value.name;
    expect(proxy).toMatch(/^proxy-[0-9a-f]{12}$/);
    expect(made.value).toMatchObject({ user, allow: [`${upIP}/32`], hint: "ask the test" });
    expect(egressParts()).toEqual({ containers: [`${proxy}-egress`], volumes: [`${proxy}-egress`] });
    const owned = ownerLabel("the test's resource")[OWNER_LABEL];
    for (const [kind, labelsAt] of [
      ["container", ".Config.Labels"],
      ["volume", ".Labels"],
    ] as const)
      expect(docker(kind, "inspect", "--format", `{{index ${labelsAt} "${OWNER_LABEL}"}}`, `${proxy}-egress`)).toBe(owned);
    const read = await p.proxies.read(proxy);
    expect(read).toMatchObject({
      ok: true,
      value: {
        state: "running",
        network: { allow: [`${upIP}/32`] },
        drift: [],
        ref: { name: proxy, user, allow: [`${upIP}/32`], deadline: made.value.deadline, labels: { ...labels, [OWNER_LABEL]: owned } },
      },
    });
  }, 120_000);

  it("serves two computers that join it, each reaching its list", async () => {
    for (let i = 0; i < 2; i++) {
      const created = await p.create({ image: IMAGE, lifetimeMs: 600_000, network: { allow: [] }, egress: proxy, labels });
      if (created.ok) names.add(created.value.name);
      expect(created.ok, JSON.stringify(created)).toBe(true);
      if (!created.ok) return;
      expect(created.value.spec).toMatchObject({ network: { allow: [`${upIP}/32`] }, egress: proxy });
      computers.push(created.value);
    }
    for (const c of computers) expect(await get(c, `http://${upIP}/a`)).toBe("200 hello from upstream /a");
    expect((await p.attach({ id: computers[0]!.name })).ok).toBe(true);
  }, 300_000);

  it("is read by list once for all its computers: one list of every proxy, one inspect of it", async () => {
    const asked: Asked[] = [];
    const counted = provider({ engine: new DockerEngine(undefined, (a) => asked.push(a)), egress: egressOptions });
    const listed = await counted.list(labels);
    expect(listed.ok && listed.value.map((i) => i.network)).toEqual([{ allow: [`${upIP}/32`] }, { allow: [`${upIP}/32`] }]);
    const proxyId = docker("inspect", "-f", "{{.Id}}", `${proxy}-egress`);
    // The computers' list and the proxies' list, whatever the number of computers.
    expect(asked.filter((a) => a.method === "GET" && a.path === "/containers/json")).toHaveLength(2);
    expect(asked.filter((a) => a.path === `/containers/${proxyId}/json`)).toHaveLength(1);
  }, 120_000);

  it("takes a new list as an update on the same volume: the computers keep running and meet it", async () => {
    const started = computers.map((c) => docker("inspect", "-f", "{{.State.StartedAt}}", c.id));
    const updated = await p.proxies.update(proxy, { allow: ["pypi.org"] });
    expect(updated).toMatchObject({ ok: true, value: { name: proxy, allow: ["pypi.org"] } });
    expect(computers.map((c) => docker("inspect", "-f", "{{.State.StartedAt}}", c.id))).toEqual(started);
    expect(await get(computers[0]!, `http://${upIP}/a`)).toMatch(/^403 403 .* is not on this box's network list: ask the test/);
    expect(await p.network(computers[1]!)).toEqual({ ok: true, value: { allow: ["pypi.org"] } });
    expect((await p.proxies.update(proxy, { allow: [`${upIP}/32`] })).ok).toBe(true);
    expect(await get(computers[1]!, `http://${upIP}/a`)).toBe("200 hello from upstream /a");
  }, 300_000);

  it("takes rules and a key as an update, the key in the proxy's environment alone, and a rotated key at the computers' next request", async () => {
    const started = computers.map((c) => docker("inspect", "-f", "{{.State.StartedAt}}", c.id));
    const change = (key: string) => ({
      allow: [`${upIP}/32`, "up.egress.test"],
      rules: [{ host: "up.egress.test", methods: ["GET"], paths: ["/v1/items"] }],
      credentials: [{ host: "up.egress.test", header: "Authorization", value: key }],
    });
    expect(await p.proxies.update(proxy, change(keys[0]!))).toMatchObject({ ok: true, value: { rules: ["up.egress.test GET /v1/items"] } });
    expect(await get(computers[0]!, "http://up.egress.test/v1/items")).toBe("200 hello from upstream /v1/items key=1");
    expect(await get(computers[1]!, "http://up.egress.test/v2")).toBe(
      "403 403 GET /v2 is not allowed for up.egress.test on this box's network list: ask the test\n",
    );
    const inspected = docker("inspect", "-f", "{{json .Args}} {{json .Config.Labels}}", `${proxy}-egress`);
    expect(inspected).not.toContain("key-one");
    expect(docker("inspect", "-f", "{{json .Config.Env}}", `${proxy}-egress`)).toContain("key-one");
    expect(await p.proxies.read(proxy)).toMatchObject({
      ok: true,
      value: { drift: [], ref: { rules: ["up.egress.test GET /v1/items"] }, credentials: change(keys[0]!).credentials },
    });
    // HTTPS to the ruled host is opened by the proxy: a computer that joins now trusts its CA, and
    // a client verifying TLS is judged and keyed as plain HTTP is.
    const joined = await p.create({ image: IMAGE, lifetimeMs: 600_000, network: { allow: [] }, egress: proxy, labels });
    if (joined.ok) names.add(joined.value.name);
    expect(joined.ok, JSON.stringify(joined)).toBe(true);
    if (!joined.ok) return;
    // Its create's ref says what its proxy enforces, as every later read does (below).
    const held = { rules: [{ host: "up.egress.test", methods: ["GET"], paths: ["/v1/items"] }], credentialHosts: ["up.egress.test"] };
    expect(joined.value.spec?.enforced).toEqual({ ...held, trust: "proxy" });
    expect(await kitRun(joined.value, ["sget", "GET", "https://up.egress.test/v1/items/7"])).toBe("200 hello from upstream /v1/items/7 key=1");
    expect(await kitRun(joined.value, ["sget", "POST", "https://up.egress.test/v1/items"])).toBe(
      "403 403 POST /v1/items is not allowed for up.egress.test on this box's network list: ask the test\n",
    );
    expect(docker("inspect", "-f", "{{json .Args}}", `${proxy}-egress`)).toContain('"--ca-file","/opt/agentrun/egress/ca.pem"');
    // The computer's read-back carries what its proxy enforces, the credential's host and never its
    // key, and that the CA its programs trust is its proxy's.
    const enforced = async () => {
      const read = await p.read({ id: joined.value.name });
      expect(JSON.stringify(read)).not.toContain("key-");
      return read.ok ? read.value.ref.spec?.enforced : read.error.message;
    };
    expect(await enforced()).toEqual({ ...held, trust: "proxy" });
    // A new key makes the proxy again with a CA of its own: the computer trusts another until a program next connects.
    expect((await p.proxies.update(proxy, change(keys[1]!))).ok).toBe(true);
    expect(await enforced()).toEqual({ ...held, trust: "other" });
    expect(await kitRun(joined.value, ["sget", "GET", "https://up.egress.test/v1/items"])).toBe("200 hello from upstream /v1/items key=2");
    expect(await enforced()).toEqual({ ...held, trust: "proxy" });
    expect((await p.release(joined.value, "delete")).ok).toBe(true);
    expect(await get(computers[0]!, "http://up.egress.test/v1/items")).toBe("200 hello from upstream /v1/items key=2");
    expect(computers.map((c) => docker("inspect", "-f", "{{.State.StartedAt}}", c.id))).toEqual(started);
    expect((await p.proxies.update(proxy, { allow: [`${upIP}/32`] })).ok).toBe(true);
  }, 300_000);

  it("links an allowlisted computer's system store to its bundle: a program with no variables trusts the proxy's CA, and the store holds the image's roots and that CA alone", async () => {
    // An image with a system bundle of its own (the base has none): one root, the upstream's.
    const root = egressOptions!.testNetwork!.upstreamRoot!;
    const context = mkdtempSync(join(tmpdir(), "agentrun-rooted-"));
    writeFileSync(join(context, "roots.pem"), root);
    writeFileSync(join(context, "Dockerfile"), `FROM ${IMAGE}\nCOPY roots.pem /etc/ssl/certs/ca-certificates.crt\n`);
    rooted = `agentrun-test-rooted:${id}`;
    docker("build", "-q", "-t", rooted, context);
    rmSync(context, { recursive: true, force: true });
    const rules = {
      allow: [`${upIP}/32`, "up.egress.test"],
      rules: [{ host: "up.egress.test", methods: ["GET"], paths: ["/v1/items"] }],
      credentials: [{ host: "up.egress.test", header: "Authorization", value: keys[0]! }],
    };
    expect((await p.proxies.update(proxy, rules)).ok).toBe(true);
    const made = await p.create({ image: rooted, lifetimeMs: 600_000, network: { allow: [] }, egress: proxy, labels });
    if (made.ok) names.add(made.value.name);
    expect(made.ok, JSON.stringify(made)).toBe(true);
    if (!made.ok) return;
    const store = docker("exec", made.value.name, "cat", "/etc/ssl/certs/ca-certificates.crt");
    const ca = docker("exec", made.value.name, "cat", "/opt/agentrun/egress/ca.pem");
    expect(docker("exec", made.value.name, "readlink", "/etc/ssl/certs/ca-certificates.crt")).toBe("/run/agentrun/egress-trust.pem");
    expect(store.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g)).toEqual([root.trim(), ca.trim()]);
    // Its environment cleared but for the proxy's address: the system store alone is what it trusts.
    expect(await kitRun(made.value, ["sget", "GET", "https://up.egress.test/v1/items"], ["/usr/bin/env", "-i", "HTTPS_PROXY=http://127.0.0.1:3128"])).toBe(
      "200 hello from upstream /v1/items key=1",
    );
    expect((await p.release(made.value, "delete")).ok).toBe(true);
    // A computer with no allowlist from the same image keeps the image's own store.
    const open = await p.create({ image: rooted, lifetimeMs: 600_000, network: "none", labels });
    if (open.ok) names.add(open.value.name);
    expect(open.ok, JSON.stringify(open)).toBe(true);
    if (open.ok) {
      expect(docker("exec", open.value.name, "sh", "-c", "test -L /etc/ssl/certs/ca-certificates.crt || cat /etc/ssl/certs/ca-certificates.crt")).toBe(
        root.trim(),
      );
      expect((await p.release(open.value, "delete")).ok).toBe(true);
    }
    expect((await p.proxies.update(proxy, { allow: [`${upIP}/32`] })).ok).toBe(true);
  }, 300_000);

  it("refuses a computer of another user, or one that would outlive it, making nothing", async () => {
    const before = docker("ps", "--all", "-q", "--filter", `label=agentrun.test=${labels["agentrun.test"]}`).split("\n").length;
    const other = await p.create({ image: IMAGE, lifetimeMs: 600_000, network: { allow: [] }, egress: proxy, labels, user: "4242:4242" });
    expect(other).toMatchObject({
      ok: false,
      error: { code: "refused", field: "egress", message: expect.stringMatching(/belongs to .*, not the computer's 4242:4242/) },
    });
    const longer = await p.create({ image: IMAGE, lifetimeMs: 3_600_000, network: { allow: [] }, egress: proxy, labels });
    expect(longer).toMatchObject({
      ok: false,
      error: { code: "refused", field: "egress", message: expect.stringMatching(/ends at .*, before its computer's deadline/) },
    });
    const wrongList = await p.create({ image: IMAGE, lifetimeMs: 600_000, network: { allow: ["pypi.org"] }, egress: proxy, labels });
    expect(wrongList).toMatchObject({ ok: false, error: { code: "refused", field: "network" } });
    expect(docker("ps", "--all", "-q", "--filter", `label=agentrun.test=${labels["agentrun.test"]}`).split("\n").length).toBe(before);
  }, 120_000);

  it("stopped by hand is the proxy's drift (its computers read as declared), and update heals it", async () => {
    docker("stop", "-t", "1", `${proxy}-egress`);
    expect(await p.proxies.read(proxy)).toMatchObject({ ok: true, value: { state: "stopped", drift: [expect.stringMatching(/is not running/)] } });
    expect(await p.network(computers[0]!)).toEqual({ ok: true, value: { other: expect.stringMatching(/egress proxy .* is not running/) } });
    // The proxy's stop is its own drift, not its computers': each reads as declared, reaching nothing.
    const joined = await p.read({ id: computers[0]!.name });
    expect(joined).toMatchObject({ ok: true, value: { drift: [], ref: { spec: { network: { allow: [] }, egress: proxy } } } });
    if (joined.ok) expect(joined.value.ref.spec?.enforced).toBeUndefined(); // a proxy not running enforces nothing
    expect((await p.proxies.update(proxy, { allow: [`${upIP}/32`] })).ok).toBe(true);
    expect(await p.proxies.read(proxy)).toMatchObject({ ok: true, value: { state: "running", drift: [] } });
    expect(await get(computers[0]!, `http://${upIP}/a`)).toBe("200 hello from upstream /a");
  }, 120_000);

  it("outlives a computer's release and the sweep, and its own release waits for its computers", async () => {
    expect((await p.release(computers[0]!, "delete")).ok).toBe(true);
    expect(egressParts()).toEqual({ containers: [`${proxy}-egress`], volumes: [`${proxy}-egress`] });
    expect(await p.sweep({ labels, now: new Date(Date.now() + 600_000) })).toEqual({ ok: true, value: { removed: [] } });
    const early = await p.proxies.release(proxy);
    expect(early).toMatchObject({ ok: false, error: { code: "refused", message: expect.stringContaining(`still serves ${computers[1]!.name}`) } });
    expect((await p.release(computers[1]!, "delete")).ok).toBe(true);
    expect(await p.proxies.release(proxy)).toEqual({ ok: true, value: undefined });
    expect(egressParts()).toEqual({ containers: [], volumes: [] });
    expect(await p.proxies.read(proxy)).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(await p.proxies.release(proxy)).toEqual({ ok: true, value: undefined });
  }, 120_000);
});
