// Rules on a shared egress proxy on the test cluster, as a story on one computer: the proxy made
// with a rule (its ConfigMap's rules key), a computer joining it whose sidecar reads the rule from
// the ConfigMap mounted beside its list and opens TLS with a CA of its own, which init puts in the
// computer's trust bundle; GET allowed and POST and another path refused in the proxy's words,
// over plain HTTP and over HTTPS the proxy opens (the test's server on 443 with a certificate of
// the test's own CA, which the proxy trusts by the test seam); the rules and hint changed while it
// runs, judged anew from inside once the update returns, the same Pod never restarted; the
// ConfigMap's rules changed by hand read back on the proxy (test/support/kube-joined.ts sets the
// story up and removes it). Skipped in words unless AGENTRUN_KUBE_TESTS=1.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { writeFile } from "../../src/daemon/files.js";
import { egresskit } from "../support/egress-upstream.js";
import { getThroughProxy, KUBE_ASKED, KUBE_SKIPPED, must } from "../support/kube.js";
import { joinedStory } from "../support/kube-joined.js";
import { rulesChangedHosts } from "../../src/egress/rules.js";

const UP = "up.kube-rules.test";
const HINT = "kube-rules test: ask the test";
const RULE = { host: UP, methods: ["GET"], paths: ["/v1/items"] };
const NEW_HINT = "kube-rules test: the new words";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "rules on a shared egress proxy on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  const s = joinedStory("krules", HINT, UP, (req) => `${req.method} ${req.url} answered`, true);
  /** egresskit in the computer (the image has no TLS client): a request through the proxy, TLS verified against SSL_CERT_FILE; "<status> <body>". */
  let kit: Buffer | undefined;
  const sget = async (method: string, url: string) => {
    kit ??= readFileSync(egresskit());
    expect((await writeFile(s.conn!.client, "/work/egresskit", kit, { mode: 0o755 })).ok).toBe(true);
    return s.exec(`/work/egresskit ${method === "GET" ? "sget" : "req"} ${method} ${url}`);
  };
  const ask = (method: string, path: string) => getThroughProxy(s.conn!, UP, s.port, { method, path });
  const configMap = () => must<{ data: Record<string, string> }>(s.cluster.admin, `/api/v1/namespaces/${s.ns}/configmaps/${s.proxy}`);

  it("refuses a rule for a host off the list and a method that is not one, naming each field, with nothing made", async () => {
    const bad = await s.provider.proxies.make({
      allow: [UP],
      rules: [
        { host: "other.test", methods: ["GET"] },
        { host: UP, methods: ["FETCH"] },
      ],
      lifetimeMs: 1_800_000,
    });
    expect(!bad.ok && bad.error.refusals?.map((r) => r.field)).toEqual(["rules[0].host", "rules[1].methods[0]"]);
    const cms = await must<{ items: unknown[] }>(s.cluster.admin, `/api/v1/namespaces/${s.ns}/configmaps?labelSelector=agentrun.computer%2Fegress-proxy%3D1`);
    expect(cms?.items ?? []).toEqual([]);
  }, 60_000);

  it("makes the proxy with its rule in the ConfigMap, read back", async () => {
    const m = await s.provider.proxies.make({ allow: [UP], rules: [RULE], lifetimeMs: 1_800_000 });
    if (!m.ok) throw new Error(m.error.message);
    s.proxy = m.value.name;
    expect(m.value.rules).toEqual([`${UP} GET /v1/items`]);
    expect((await configMap())?.data.rules).toBe(`${UP} GET /v1/items\n`);
    const read = await s.provider.proxies.read(s.proxy);
    expect(read.ok && read.value).toMatchObject({ drift: [], ref: { rules: [`${UP} GET /v1/items`] } });
  }, 60_000);

  /** The joined Pod as made: its uid, and each container's restarts. */
  let joined: Awaited<ReturnType<typeof s.podNow>> | undefined;

  it("joins a computer whose sidecar reads the rule from its proxy's ConfigMap and opens TLS, its CA in the computer's trust bundle, with no drift", async () => {
    expect(s.proxy).not.toBe("");
    const pod = await s.join();
    const args = pod.spec?.containers?.find((x) => x.name === "egress")?.args ?? [];
    expect(args.join(" ")).toContain("--rules-file /opt/agentrun/egress-list/rules");
    expect(args.join(" ")).not.toContain("--rule ");
    expect(args.join(" ")).toContain("--ca-file /opt/agentrun/egress/ca.pem");
    joined = await s.podNow();
    expect(joined.restarts).toEqual([0, 0]);
    const read = await s.provider.read({ id: s.computer!.id });
    expect(read.ok && read.value.drift).toEqual([]);
    // A request through the relay makes init's bundle: the image's roots and the proxy's CA.
    expect(await ask("GET", "/v1/items")).toContain("GET /v1/items answered");
    const ca = (await s.exec("cat /opt/agentrun/egress/ca.pem")).trim();
    expect(ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const bundle = await s.exec('printenv SSL_CERT_FILE; cat "$SSL_CERT_FILE"');
    expect(bundle.split("\n")[0]).toBe("/run/agentrun/egress-trust.pem");
    expect(bundle).toContain(ca);
  }, 300_000);

  it("allows GET on the rule's path and refuses POST and another path in the proxy's words", async () => {
    expect(s.conn).toBeDefined();
    expect(await ask("GET", "/v1/items/7")).toMatch(/^HTTP\/1\.1 200[\s\S]*GET \/v1\/items\/7 answered/);
    const post = await ask("POST", "/v1/items");
    expect(post).toMatch(/^HTTP\/1\.1 403/);
    expect(post).toContain(`POST /v1/items is not allowed for ${UP} on this box's network list: ${HINT}`);
    expect(post).not.toContain("answered");
    expect(await ask("GET", "/v2")).toContain(`GET /v2 is not allowed for ${UP}`);
  }, 120_000);

  it("judges HTTPS after the proxy opens it: GET allowed at the server, POST refused in the proxy's words, the computer trusting the proxy's CA", async () => {
    expect(s.conn).toBeDefined();
    expect(await sget("GET", `https://${UP}/v1/items/3`)).toBe("200 GET /v1/items/3 answered");
    const post = await sget("POST", `https://${UP}/v1/items`);
    expect(post).toMatch(/^403 /);
    expect(post).toContain(`POST /v1/items is not allowed for ${UP} on this box's network list: ${HINT}`);
  }, 120_000);

  it("changes the rules and hint under the running computer: judged anew from inside once the update returns, the Pod never restarted", async () => {
    expect(joined).toBeDefined();
    const u = await s.provider.proxies.update(s.proxy, { allow: [UP], rules: [{ ...RULE, methods: ["GET", "POST"] }], hint: NEW_HINT });
    if (!u.ok) throw new Error(u.error.message);
    expect((await configMap())?.data).toMatchObject({ rules: `${UP} GET,POST /v1/items\n`, hint: NEW_HINT });
    // The update returned once the sidecar said it holds them: no wait here.
    expect(await ask("POST", "/v1/items")).toMatch(/^HTTP\/1\.1 200[\s\S]*POST \/v1\/items answered/);
    expect(await sget("POST", `https://${UP}/v1/items`)).toBe("200 POST /v1/items answered");
    expect(await ask("DELETE", "/v1/items")).toContain(`DELETE /v1/items is not allowed for ${UP} on this box's network list: ${NEW_HINT}`);
    expect(await s.podNow()).toEqual(joined);
    const read = await s.provider.read({ id: s.computer!.id });
    expect(read.ok && read.value.drift).toEqual([]);
  }, 300_000);

  it("reads rules changed by hand in the ConfigMap back on the proxy, naming the host", async () => {
    expect(s.computer).toBeDefined();
    await must(s.cluster.admin, `/api/v1/namespaces/${s.ns}/configmaps/${s.proxy}`, {
      method: "PATCH",
      body: { data: { rules: `${UP} GET /v1/items\n` } },
    });
    const read = await s.provider.proxies.read(s.proxy);
    expect(read.ok && rulesChangedHosts([`${UP} GET,POST /v1/items`], read.value.ref.rules ?? [])).toEqual([UP]);
  }, 120_000);
});
