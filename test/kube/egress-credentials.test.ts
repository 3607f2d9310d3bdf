// Credentials on a shared egress proxy on the test cluster, as a story on one computer: the proxy
// made with a rule and a key (the key in a Secret beside its ConfigMap, never the ConfigMap); a
// computer joining it whose sidecar alone mounts the Secret (projected beside its list: the Pod
// spec holds its name, never the key); the test's server receiving the header the proxy sets, in
// place of one the computer sent, while the key is nowhere the computer can read (its environment,
// its processes' environments and memory, its files, its Pod's spec); the key rotated while it runs, the new
// one arriving at the server once the update returns and the old never again, the same Pod never
// restarted, neither key in the proxy's log; the Secret changed by hand read back as other
// credentials for the host; every credential removed while it runs; release removing the Secret.
// The server answers which key arrived, never a key (test/support/kube-joined.ts sets the story
// up and removes it). Skipped in words unless AGENTRUN_KUBE_TESTS=1.
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFile } from "../../src/daemon/files.js";
import { credentialsChangedHosts } from "../../src/egress/rules.js";
import { TRUST_BUNDLE } from "../../src/egress/trust-store.js";
import { egresskit } from "../support/egress-upstream.js";
import { getThroughProxy, KUBE_ASKED, KUBE_SKIPPED, must } from "../support/kube.js";
import { joinedStory } from "../support/kube-joined.js";

const UP = "up.kube-keys.test";
const KEY = `k-${randomBytes(12).toString("hex")}`;
const ROTATED = `k-${randomBytes(12).toString("hex")}`;
const CREDENTIAL = { host: UP, header: "X-Api-Key", value: KEY };
const RULES = [{ host: UP, methods: ["GET"] }];

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "credentials on a shared egress proxy on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  const s = joinedStory("kkeys", "kube-keys test", UP, (req) => {
    const got = req.headers["x-api-key"];
    return `${req.method} ${req.url} key=${got === KEY ? "the proxy's" : got === ROTATED ? "the rotated" : got === undefined ? "none" : "another"}`;
  });
  const secretPath = () => `/api/v1/namespaces/${s.ns}/secrets/${s.proxy}-credentials`;

  it("makes the proxy with its key in a Secret beside its ConfigMap, never in the ConfigMap or the words", async () => {
    const m = await s.provider.proxies.make({ allow: [UP], rules: RULES, credentials: [CREDENTIAL], lifetimeMs: 1_800_000 });
    if (!m.ok) throw new Error(m.error.message);
    s.proxy = m.value.name;
    expect(JSON.stringify(m.value)).not.toContain(KEY);
    expect(JSON.stringify(await must(s.cluster.admin, `/api/v1/namespaces/${s.ns}/configmaps/${s.proxy}`))).not.toContain(KEY);
    const secret = await must<{ data: Record<string, string> }>(s.cluster.admin, secretPath());
    expect(Buffer.from(secret!.data.credentials!, "base64").toString()).toContain(KEY);
    const read = await s.provider.proxies.read(s.proxy);
    expect(read.ok && read.value.credentials).toEqual([CREDENTIAL]);
  }, 60_000);

  /** The joined Pod as made: its uid, and each container's restarts. */
  let joined: Awaited<ReturnType<typeof s.podNow>> | undefined;

  it("joins a computer whose sidecar alone mounts the Secret, by name", async () => {
    expect(s.proxy).not.toBe("");
    const pod = await s.join();
    expect(JSON.stringify(pod)).not.toContain(KEY);
    const containers = pod.spec?.containers ?? [];
    const computer = containers.find((x) => x.name === "computer") as { env?: unknown[]; volumeMounts?: Array<{ name: string }> } | undefined;
    const egress = containers.find((x) => x.name === "egress") as { env?: unknown[]; args?: string[]; volumeMounts?: Array<{ name: string }> } | undefined;
    expect(JSON.stringify(computer?.env ?? [])).not.toMatch(/AGENTRUN_EGRESS_CREDENTIALS|secretKeyRef|credentials/);
    expect(egress?.env).toBeUndefined();
    expect(egress?.args?.join(" ")).toContain("--credentials-file /opt/agentrun/egress-list/credentials");
    // The volume holding the Secret is the sidecar's alone.
    const volume = (pod.spec?.volumes ?? []).find((v) => JSON.stringify(v).includes(`${s.proxy}-credentials`));
    expect(volume?.name).toBe("egress-list");
    expect((computer?.volumeMounts ?? []).map((m) => m.name)).not.toContain(volume?.name);
    expect((egress?.volumeMounts ?? []).map((m) => m.name)).toContain(volume?.name);
    joined = await s.podNow();
    expect(joined.restarts).toEqual([0, 0]);
    const read = await s.provider.read({ id: s.computer!.id });
    expect(read.ok && read.value.drift).toEqual([]);
  }, 300_000);

  it("sets the header at the server in place of the computer's own, the key nowhere the computer reads", async () => {
    expect(s.conn).toBeDefined();
    expect(await getThroughProxy(s.conn!, UP, s.port, { path: "/v1/items" })).toMatch(/^HTTP\/1\.1 200[\s\S]*GET \/v1\/items key=the proxy's$/);
    // A header the computer sends is replaced, not passed beside the proxy's.
    const forged = await s.exec(
      `exec 3<>/dev/tcp/127.0.0.1/3128; printf 'GET http://${UP}${s.port === 80 ? "" : `:${s.port}`}/v1/items HTTP/1.1\\r\\nHost: ${UP}\\r\\nX-Api-Key: mine\\r\\nConnection: close\\r\\n\\r\\n' >&3; timeout 10 cat <&3`,
    );
    expect(forged).toMatch(/key=the proxy's$/);
    // Its environment, every process's, and its files: the key given in two halves, so the search's own argv never holds it whole.
    const half = KEY.slice(KEY.length / 2);
    const found = await s.exec(
      `h=${KEY.slice(0, KEY.length / 2)}; k="$h"'${half}'; env | grep -c "$k"; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c "$k"; grep -rlF "$k" / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev 2>/dev/null | head -5; echo end`,
    );
    expect(found.trim().split("\n")).toEqual(["0", "0", "end"]);
    // Nor in the memory of any process the computer's user may read (egresskit memscan, through
    // /proc/<pid>/maps and mem), a keyed request's client still running among them (every program
    // but the daemon's own, which the computer's user cannot read). The needles
    // are given reversed, so they are in no memory but the scanner's; the second, the trust
    // bundle's path, is in every program's environment: found, it shows the memory was read.
    const kit = egresskit();
    const wrote = await writeFile(s.conn!.client, "/tmp/egresskit", readFileSync(kit), { mode: 0o755 });
    expect(wrote.ok ? "written" : wrote.error.message).toBe("written");
    await s.conn!.client.call("process.start", {
      argv: [
        "bash",
        "-c",
        `exec 3<>/dev/tcp/127.0.0.1/3128; printf 'GET http://${UP}${s.port === 80 ? "" : `:${s.port}`}/v1/items HTTP/1.1\\r\\nHost: ${UP}\\r\\n\\r\\n' >&3; read -r line <&3; sleep 60`,
      ],
    });
    await new Promise((r) => setTimeout(r, 1000));
    const needles = [[...KEY].reverse().join(""), [...TRUST_BUNDLE].reverse().join("")];
    const scan = (await s.exec(`/tmp/egresskit memscan ${needles.join(" ")}`)).trim().split("\n");
    expect(scan, scan.join("\n")).toHaveLength(3);
    const [keyAt, pathAt] = needles.map((n, i) => scan[i]!.replace(`needle ${n}:`, "").trim().split(/\s+/).filter(Boolean));
    const procs = Number(/^read (\d+) processes/.exec(scan[2]!)?.[1]);
    // What it could not read is the daemon's own (init, its guards, the exec bridge: not dumpable, or root's).
    const daemon = await s.exec(`for p in /proc/[0-9]*; do case "$(tr '\\0' ' ' < $p/cmdline 2>/dev/null)" in *computerd*) echo \${p#/proc/};; esac; done`);
    const unreadable = [...scan[2]!.matchAll(/(\d+) \(open/g)].map((m) => m[1]);
    expect(keyAt, scan.join("\n")).toEqual([]);
    expect(procs, scan.join("\n")).toBeGreaterThanOrEqual(1);
    expect(pathAt, scan.join("\n")).toHaveLength(procs);
    expect(
      unreadable.filter((pid) => !daemon.split(/\s+/).includes(pid!)),
      `${scan.join("\n")}\n${daemon}`,
    ).toEqual([]);
    rmSync(dirname(kit), { recursive: true, force: true });
  }, 180_000);

  it("rotates the key under the running computer: the new one arrives once the update returns, the old never again, the Pod never restarted", async () => {
    expect(joined).toBeDefined();
    const u = await s.provider.proxies.update(s.proxy, { allow: [UP], rules: RULES, credentials: [{ ...CREDENTIAL, value: ROTATED }] });
    if (!u.ok) throw new Error(u.error.message);
    expect(JSON.stringify(u)).not.toMatch(new RegExp(`${KEY}|${ROTATED}`));
    for (let i = 0; i < 3; i++)
      expect(await getThroughProxy(s.conn!, UP, s.port, { path: `/v1/items/${i}` })).toMatch(
        new RegExp(`^HTTP/1\\.1 200[\\s\\S]*GET /v1/items/${i} key=the rotated$`),
      );
    expect(await s.podNow()).toEqual(joined);
    const read = await s.provider.read({ id: s.computer!.id });
    expect(read.ok && read.value.drift).toEqual([]);
    // Neither key in the computer's environment or files, nor in the proxy's log.
    const half = ROTATED.slice(ROTATED.length / 2);
    const found = await s.exec(
      `h=${ROTATED.slice(0, ROTATED.length / 2)}; k="$h"'${half}'; env | grep -c "$k"; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c "$k"; grep -rlF "$k" / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev 2>/dev/null | head -5; echo end`,
    );
    expect(found.trim().split("\n")).toEqual(["0", "0", "end"]);
    const log = await s.cluster.admin.call<string>(`/api/v1/namespaces/${s.ns}/pods/${s.computer!.name}/log?container=egress`, "reading the sidecar's log", {
      ms: 30_000,
      text: true,
    });
    expect(log.ok && log.value).toMatch(/its settings hold 1 rules .* and 1 credentials \(version [0-9a-f]{16}\)/);
    expect(log.ok && log.value).not.toMatch(new RegExp(`${KEY}|${ROTATED}`));
  }, 300_000);

  it("reads a Secret changed by hand back as other credentials for the host", async () => {
    expect(s.proxy).not.toBe("");
    const other = Buffer.from(JSON.stringify({ version: "by-hand", credentials: [{ ...CREDENTIAL, value: "k-by-hand" }] })).toString("base64");
    await must(s.cluster.admin, secretPath(), { method: "PATCH", body: { data: { credentials: other } } });
    const read = await s.provider.proxies.read(s.proxy);
    expect(read.ok && credentialsChangedHosts([CREDENTIAL], read.value.credentials ?? [])).toEqual([UP]);
  }, 60_000);

  it("removes every credential under the running computer: the next request carries none, the Pod never restarted", async () => {
    expect(joined).toBeDefined();
    const u = await s.provider.proxies.update(s.proxy, { allow: [UP], rules: RULES, credentials: [] });
    if (!u.ok) throw new Error(u.error.message);
    expect(await must(s.cluster.admin, secretPath(), { gone: true })).toBeUndefined();
    expect(await getThroughProxy(s.conn!, UP, s.port, { path: "/v1/items" })).toMatch(/^HTTP\/1\.1 200[\s\S]*GET \/v1\/items key=none$/);
    expect(await s.podNow()).toEqual(joined);
  }, 300_000);

  it("releases the computer, then the proxy with its Secret", async () => {
    expect(s.computer).toBeDefined();
    await s.conn?.close();
    s.conn = undefined;
    expect((await s.provider.release(s.computer!, "delete")).ok).toBe(true);
    s.computer = undefined;
    expect((await s.provider.proxies.release(s.proxy)).ok).toBe(true);
    s.proxy = "";
    const secrets = await must<{ items: unknown[] }>(
      s.cluster.admin,
      `/api/v1/namespaces/${s.ns}/secrets?labelSelector=agentrun.computer%2Fegress-credentials`,
    );
    expect(secrets?.items ?? []).toEqual([]);
  }, 180_000);
});
