// The EgressProxy resource's rules and credentials without the engine: check refuses bad input
// at preview naming the field (with the real Docker provider's check, which calls no Docker),
// a credential stays a secret in every output, a change of rules or a key is an update, and a
// proxy whose rules were changed by hand reads back as drift naming the host.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { egressProxy } from "../../provider/resources/egress-proxy.js";
import type { Context } from "../../provider/resource.js";
import { isSecret, UNKNOWN } from "../../provider/secrets.js";
import type { ProxyReadBack } from "../../src/egress/proxies.js";
import type { ComputerProvider } from "../../src/contract/provider.js";
import { ok } from "../../src/daemon/result.js";
import { testContext } from "../support/context.js";

const plainHost = mkdtempSync(join(tmpdir(), "agentrun-plain-host-"));
afterAll(() => rmSync(plainHost, { recursive: true, force: true }));
const ctx = testContext({ docker: { user: "1234:1234", testHostRoot: plainHost } });
const rules = [{ host: "api.example.com", methods: ["GET"], paths: ["/v1/items"] }];
const credentials = [{ host: "api.example.com", header: "Authorization", value: "Bearer k-0001" }];
const good = { allow: ["api.example.com", "pypi.org"], lifetimeMs: 7_200_000, rules, credentials };

describe("EgressProxy rules and credentials at check", () => {
  it("takes rules and credentials on listed names, the credentials kept a secret", async () => {
    const r = await egressProxy.check(ctx, {}, good);
    expect(r.failures).toBeUndefined();
    expect(r.inputs?.rules).toEqual(rules);
    expect(isSecret(r.inputs?.credentials)).toBe(true);
    expect(JSON.stringify(r.inputs?.allow)).not.toContain("k-0001");
  });

  it("refuses a rule for a host not on the list, a method that is not one, a path not starting with / and a forbidden header, naming each field", async () => {
    const failures =
      (
        await egressProxy.check(
          ctx,
          {},
          {
            ...good,
            rules: [{ host: "github.com", methods: ["FETCH"], paths: ["v1"] }],
            credentials: [{ host: "api.example.com", header: "Host", value: "Bearer k-0001" }],
          },
        )
      ).failures ?? [];
    expect(failures).toEqual([
      { property: "rules", reason: 'rules[0].host: host "github.com" is not a name or *.suffix on the list as written (lower case)' },
      { property: "rules", reason: 'rules[0].methods[0]: method "FETCH" is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS' },
      { property: "rules", reason: 'rules[0].paths[0]: path "v1" does not start with /' },
      { property: "credentials", reason: expect.stringMatching(/^credentials\[0\]\.header: header "Host" is one the proxy sets or ends itself/) },
    ]);
    expect(JSON.stringify(failures)).not.toContain("k-0001");
  });
});

describe("EgressProxy rules and credentials at diff and read", () => {
  const olds = {
    ...good,
    provider: "docker",
    user: "1234:1234",
    name: "proxy-0123456789ab",
    deadline: "2999-01-01T00:00:00.000Z",
    state: "running",
    drift: [],
  };

  it("makes new rules or a rotated key an update of the proxy alone", async () => {
    const moved = await egressProxy.diff(ctx, "p", olds, { ...olds, rules: [{ ...rules[0]!, methods: ["GET", "POST"] }] });
    expect(moved).toMatchObject({ changes: true, replaces: [], diffs: ["rules"] });
    const rotated = await egressProxy.diff(ctx, "p", olds, { ...olds, credentials: [{ ...credentials[0]!, value: "Bearer k-0002" }] });
    expect(rotated).toMatchObject({ changes: true, replaces: [], diffs: ["credentials"] });
    expect((await egressProxy.diff(ctx, "p", olds, olds)).changes).toBe(false);
  });

  it("tells, among the preview's lines, what a change of rules opens and closes, host by host", async () => {
    const told: string[] = [];
    const next = [
      { host: "api.example.com", methods: ["GET", "POST"], paths: ["/v1/"] },
      { host: "pypi.org", methods: ["GET"], paths: ["/simple/"] },
    ];
    await egressProxy.diff({ ...ctx, tell: (line) => told.push(line) }, "p", olds, { ...olds, rules: next });
    expect(told).toEqual(["rules for api.example.com: opens GET /v1/, POST /v1/\nrules for pypi.org: closes every method and path but GET /simple/"]);
    told.length = 0;
    await egressProxy.diff({ ...ctx, tell: (line) => told.push(line) }, "p", olds, olds);
    expect(told).toEqual([]);
  });

  it("makes rules holding an unknown at a preview (a rule's methods from another output) a change of rules, not a crash", async () => {
    const previewed = await egressProxy.diff(ctx, "p", olds, { ...olds, rules: [{ host: "api.example.com", methods: UNKNOWN }] });
    expect(previewed).toMatchObject({ changes: true, replaces: [], diffs: ["rules"] });
  });

  const reading = (answer: ProxyReadBack): Context => {
    const p = { id: "docker", capabilities: () => ({ defaults: {} }), proxies: { read: async () => ok(answer) } } as unknown as ComputerProvider;
    return { settings: {}, vendor: async () => ok(p), signal: new AbortController().signal };
  };
  const ref = { name: "proxy-0123456789ab", user: "1234:1234", deadline: olds.deadline, allow: good.allow, hint: "", hostAddresses: [], labels: {} };

  it("reads a credential changed by hand as drift naming the host, never the value, and as declared when the same", async () => {
    const held = { ref: { ...ref, rules: ["api.example.com GET /v1/items"] }, state: "running" as const, network: { allow: good.allow }, drift: [] };
    const other = await egressProxy.read(reading({ ...held, credentials: [{ ...credentials[0]!, value: "Bearer by-hand" }] }), "proxy-0123456789ab", olds);
    const plain = (v: unknown) => (isSecret(v) ? v.value : v);
    expect(plain(other.props?.drift)).toEqual(["the egress proxy proxy-0123456789ab holds another credential for api.example.com than declared"]);
    expect(JSON.stringify(other.props?.drift)).not.toContain("by-hand");
    const same = await egressProxy.read(reading({ ...held, credentials }), "proxy-0123456789ab", olds);
    expect(plain(same.props?.drift)).toEqual([]);
  });

  it("reads rules changed by hand as drift naming the host, the rules as read back", async () => {
    const held = ["api.example.com GET,POST /v1/items"];
    const answer: ProxyReadBack = {
      ref: { name: "proxy-0123456789ab", user: "1234:1234", deadline: olds.deadline, allow: good.allow, hint: "", hostAddresses: [], labels: {}, rules: held },
      state: "running",
      network: { allow: good.allow },
      drift: [],
    };
    const p = { id: "docker", capabilities: () => ({ defaults: {} }), proxies: { read: async () => ok(answer) } } as unknown as ComputerProvider;
    const c: Context = { settings: {}, vendor: async () => ok(p), signal: new AbortController().signal };
    const r = await egressProxy.read(c, "proxy-0123456789ab", olds);
    const plain = (v: unknown) => (isSecret(v) ? v.value : v);
    expect(plain(r.props?.drift)).toEqual(["the egress proxy proxy-0123456789ab holds other rules for api.example.com than declared"]);
    expect(plain(r.inputs?.rules)).toEqual([{ host: "api.example.com", methods: ["GET", "POST"], paths: ["/v1/items"] }]);
    expect(isSecret(r.props?.credentials)).toBe(true);
  });
});
