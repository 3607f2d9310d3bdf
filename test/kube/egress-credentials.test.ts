// Credentials on a shared egress proxy on the test cluster, as a story on one computer: the proxy
// made with a rule and a key (the key in a Secret beside its ConfigMap, never the ConfigMap); a
// computer joining it whose sidecar alone takes the Secret's key (a secretKeyRef: the Pod spec
// holds its name, never the key); the test's server receiving the header the proxy sets, in place
// of one the computer sent, while the key is nowhere the computer can read (its environment, its
// processes' environments, its files, its Pod's spec); a change of key refused while it runs; the
// Secret changed by hand read back as other credentials for the host; release removing the Secret.
// The server answers whether the key arrived, never the key (test/support/kube-joined.ts sets the
// story up and removes it). Skipped in words unless AGENTRUN_KUBE_TESTS=1.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { credentialsChangedHosts } from "../../src/egress/rules.js";
import { getThroughProxy, KUBE_ASKED, KUBE_SKIPPED, must } from "../support/kube.js";
import { joinedStory } from "../support/kube-joined.js";

const UP = "up.kube-keys.test";
const KEY = `k-${randomBytes(12).toString("hex")}`;
const CREDENTIAL = { host: UP, header: "X-Api-Key", value: KEY };
const RULES = [{ host: UP, methods: ["GET"] }];

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "credentials on a shared egress proxy on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  const s = joinedStory("kkeys", "kube-keys test", UP, (req) => {
    const got = req.headers["x-api-key"];
    return `${req.method} ${req.url} key=${got === KEY ? "the proxy's" : got === undefined ? "none" : "another"}`;
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

  it("joins a computer whose sidecar alone takes the key, by reference", async () => {
    expect(s.proxy).not.toBe("");
    const pod = await s.join();
    expect(JSON.stringify(pod)).not.toContain(KEY);
    const containers = pod.spec?.containers ?? [];
    expect(JSON.stringify(containers.find((x) => x.name === "computer"))).not.toMatch(/AGENTRUN_EGRESS_CREDENTIALS|secretKeyRef|credentials/);
    expect((containers.find((x) => x.name === "egress") as { env?: unknown[] } | undefined)?.env).toEqual([
      { name: "AGENTRUN_EGRESS_CREDENTIALS", valueFrom: { secretKeyRef: { name: `${s.proxy}-credentials`, key: "credentials" } } },
    ]);
    expect(JSON.stringify(pod.spec?.volumes)).not.toContain("secret");
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
  }, 180_000);

  it("refuses a change of key while the computer runs, naming credentials and never the key", async () => {
    expect(s.computer).toBeDefined();
    const u = await s.provider.proxies.update(s.proxy, { allow: [UP], rules: RULES, credentials: [{ ...CREDENTIAL, value: `${KEY}-2` }] });
    expect(!u.ok && u.error).toMatchObject({ code: "unsupported", field: "credentials" });
    expect(JSON.stringify(u)).not.toContain(KEY);
  }, 60_000);

  it("reads a Secret changed by hand back as other credentials for the host", async () => {
    expect(s.proxy).not.toBe("");
    const other = Buffer.from(JSON.stringify([{ ...CREDENTIAL, value: "k-by-hand" }])).toString("base64");
    await must(s.cluster.admin, secretPath(), { method: "PATCH", body: { data: { credentials: other } } });
    const read = await s.provider.proxies.read(s.proxy);
    expect(read.ok && credentialsChangedHosts([CREDENTIAL], read.value.credentials ?? [])).toEqual([UP]);
  }, 60_000);

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
