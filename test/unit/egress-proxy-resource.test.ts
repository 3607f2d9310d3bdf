// The EgressProxy resource's handlers without the engine, and a Computer's egress input: check
// refuses in words (with the real Docker provider's check, which calls no Docker), chooses the
// proxy's name and keeps it while the proxy stays; diff makes a new list an update and a new
// user or lifetime a replace. The proxy's make, read, update and release on the real engine are
// test/docker/egress-shared.test.ts; through the real Pulumi engine,
// test/pulumi/allowlist-fleet.e2e.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { computer } from "../../provider/resources/computer.js";
import { egressProxy } from "../../provider/resources/egress-proxy.js";
import { resourceOwner, type Context } from "../../provider/resource.js";
import { UNKNOWN, type Props } from "../../provider/secrets.js";
import type { ProxyReadBack, ProxySpec } from "../../src/egress/proxies.js";
import { ownerLabel } from "../../src/contract/labels.js";
import type { ComputerProvider } from "../../src/contract/provider.js";
import { ok } from "../../src/daemon/result.js";
import { testContext } from "../support/context.js";

// The plugin taken for one on the Docker host (no container sign under an empty folder), so an allowlist needs no host addresses given.
const plainHost = mkdtempSync(join(tmpdir(), "agentrun-plain-host-"));
afterAll(() => rmSync(plainHost, { recursive: true, force: true }));
const ctx = testContext({ docker: { user: "1234:1234", testHostRoot: plainHost } });
const good = { allow: ["pypi.org", "*.pythonhosted.org"], lifetimeMs: 7_200_000 };
const failuresOf = async (news: Props, c: Context = ctx, olds: Props = {}) => (await egressProxy.check(c, olds, news)).failures ?? [];

describe("EgressProxy check", () => {
  it("fills the provider and user, and writes a name and the egress value computers take", async () => {
    const r = await egressProxy.check(ctx, {}, good);
    expect(r.failures).toBeUndefined();
    expect(r.inputs).toMatchObject({ ...good, provider: "docker", user: "1234:1234", name: expect.stringMatching(/^proxy-[0-9a-f]{12}$/) });
    expect(r.inputs?.egress).toEqual({ proxy: r.inputs?.name, user: "1234:1234" });
  });

  it("refuses a missing list and lifetime, in words", async () => {
    expect(await failuresOf({})).toEqual([
      { property: "allow", reason: expect.stringMatching(/^allow is required: the names/) },
      { property: "lifetimeMs", reason: expect.stringMatching(/^lifetimeMs is required/) },
    ]);
  });

  it("refuses every bad entry of the list together, each in words", async () => {
    const failures = await failuresOf({ ...good, allow: ["https://pypi.org/simple", "pypi.org:443", "10.0.0.0/8", "1.2.3.4"] });
    expect(failures.map((f) => f.property)).toEqual(["allow", "allow", "allow", "allow"]);
    expect(failures.map((f) => f.reason).join("\n")).toMatch(/URL[\s\S]*port[\s\S]*private[\s\S]*prefix/);
  });

  it("refuses an empty list, a bad user, a bad hint, an unknown field and a name of its own", async () => {
    const failures = await failuresOf({ ...good, allow: [], user: "alice", hint: "caf\u00e9", colour: "blue", name: "proxy-0123456789ab" });
    expect(failures.map((f) => f.property).sort()).toEqual(["allow", "colour", "hint", "name", "user"]);
    expect(failures.find((f) => f.property === "allow")?.reason).toMatch(/ask for none/);
  });

  it("refuses a provider with no egress proxies", async () => {
    const none = { id: "elsewhere", capabilities: () => ({ defaults: {} }) } as unknown as ComputerProvider;
    const c: Context = { settings: {}, vendor: async () => ok(none), signal: new AbortController().signal };
    expect(await failuresOf(good, c)).toEqual([
      { property: "provider", reason: "the elsewhere provider has no shared egress proxy, so an EgressProxy cannot run on it" },
    ]);
  });

  it("leaves a list not known yet to up", async () => {
    const r = await egressProxy.check(ctx, {}, { ...good, allow: UNKNOWN });
    expect(r.failures).toBeUndefined();
  });

  it("names a new proxy the same at every check of the resource (a preview's name is its up's), another resource's otherwise", async () => {
    const at = (urn: string) => ({ ...ctx, urn });
    const urn = "urn:pulumi:test::p::agentrun:index:EgressProxy::egress";
    const preview = (await egressProxy.check(at(urn), {}, good)).inputs!;
    const up = (await egressProxy.check(at(urn), {}, good)).inputs!;
    expect(up.name).toBe(preview.name);
    expect((await egressProxy.check(at(`${urn}2`), {}, good)).inputs!.name).not.toBe(preview.name);
    // Its replacement (a new lifetime) gets a name of its own, the same at its preview and its up.
    const replacement = (await egressProxy.check(at(urn), up, { ...good, lifetimeMs: 9_000_000 })).inputs!;
    expect(replacement.name).not.toBe(up.name);
    expect((await egressProxy.check(at(urn), up, { ...good, lifetimeMs: 9_000_000 })).inputs!.name).toBe(replacement.name);
  });

  it("keeps its name for a new list, and chooses a new one for a new lifetime or user", async () => {
    const first = (await egressProxy.check(ctx, {}, good)).inputs!;
    const narrower = (await egressProxy.check(ctx, first, { ...good, allow: ["pypi.org"] })).inputs!;
    expect([narrower.name, narrower.egress]).toEqual([first.name, first.egress]);
    const longer = (await egressProxy.check(ctx, first, { ...good, lifetimeMs: 9_000_000 })).inputs!;
    expect(longer.name).not.toBe(first.name);
    const other = (await egressProxy.check(ctx, first, { ...good, user: "77" })).inputs!;
    expect(other.egress).toEqual({ proxy: expect.not.stringMatching(String(first.name)), user: "77:77" });
  });
});

describe("EgressProxy diff", () => {
  const olds = {
    provider: "docker",
    allow: ["pypi.org", "*.pythonhosted.org"],
    lifetimeMs: 7_200_000,
    user: "1234:1234",
    name: "proxy-0123456789ab",
    deadline: "2999-01-01T00:00:00.000Z",
    drift: [],
  };
  const news = { provider: "docker", allow: ["pypi.org", "*.pythonhosted.org"], lifetimeMs: 7_200_000, user: "1234:1234", name: "proxy-0123456789ab" };

  it("finds no change in the same list, in another order or case", async () => {
    expect(await egressProxy.diff(ctx, "p", olds, { ...news, allow: ["*.PythonHosted.org", "PYPI.org"] })).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
      detailedDiff: {},
      diffs: [],
    });
  });

  it("makes a new list, a new hint, or drift an update on the same volume, naming the field", async () => {
    for (const [o, n, field] of [
      [olds, { ...news, allow: ["pypi.org"] }, "allow"],
      [olds, { ...news, hint: "ask" }, "hint"],
      [{ ...olds, drift: ["the egress proxy is gone"] }, news, "drift"],
    ] as const) {
      expect(await egressProxy.diff(ctx, "p", o, n)).toMatchObject({ changes: true, replaces: [], deleteBeforeReplace: false, diffs: [field] });
    }
  });

  it("names a proxy stopped by hand state, its drift's sentences shown beside", async () => {
    const stopped = { ...olds, state: "stopped", drift: ["the egress proxy proxy-0123456789ab is stopped: its computers reach nothing"] };
    expect(await egressProxy.diff(ctx, "p", stopped, news)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
      detailedDiff: { drift: "update", state: "update" },
      diffs: ["state"],
    });
  });

  it("makes a new user, lifetime or name, or a deadline passed, a replace", async () => {
    expect((await egressProxy.diff(ctx, "p", olds, { ...news, user: "77:77", lifetimeMs: 1 })).replaces).toEqual(["user", "lifetimeMs"]);
    expect((await egressProxy.diff(ctx, "p", olds, { ...news, name: "proxy-ffffffffffff" })).replaces).toEqual(["name"]);
    expect((await egressProxy.diff(ctx, "p", { ...olds, deadline: "2000-01-01T00:00:00.000Z" }, news)).replaces).toEqual(["deadline"]);
  });
});

describe("EgressProxy read", () => {
  const declared = {
    provider: "docker",
    allow: ["pypi.org"],
    lifetimeMs: 7_200_000,
    user: "1234:1234",
    name: "proxy-0123456789ab",
    deadline: "2999-01-01T00:00:00.000Z",
    drift: [],
  };
  const reading = (answer: ProxyReadBack | undefined): Context => {
    const proxies = { read: async () => (answer ? ok(answer) : { ok: false as const, error: { code: "not_found" as const, message: "gone" } }) };
    const p = { id: "docker", capabilities: () => ({ defaults: {} }), proxies } as unknown as ComputerProvider;
    return { settings: {}, vendor: async () => ok(p), signal: new AbortController().signal };
  };
  const ref = {
    name: "proxy-0123456789ab",
    user: "1234:1234",
    deadline: declared.deadline,
    allow: ["pypi.org"],
    hint: "h",
    hostAddresses: ["192.0.2.1"],
    labels: {},
  };

  it("reads a proxy re-run by hand with a wider list as drift, the list as read back", async () => {
    const wider = { ...ref, allow: ["pypi.org", "github.com"] };
    const r = await egressProxy.read(reading({ ref: wider, state: "running", network: { allow: wider.allow }, drift: [] }), "proxy-0123456789ab", declared);
    expect(r.props).toMatchObject({
      allow: ["pypi.org", "github.com"],
      drift: ["the egress proxy proxy-0123456789ab holds pypi.org, github.com, not the declared pypi.org"],
    });
    expect(r.inputs).toMatchObject({ allow: ["pypi.org", "github.com"], name: "proxy-0123456789ab" });
  });

  it("reads a proxy stopped by hand as drift, said first", async () => {
    const r = await egressProxy.read(reading({ ref, state: "stopped", network: { allow: ref.allow }, drift: [] }), "proxy-0123456789ab", declared);
    expect(r.props).toMatchObject({ state: "stopped", drift: ["the egress proxy proxy-0123456789ab is stopped: its computers reach nothing"] });
    expect((await egressProxy.diff(reading(undefined), "p", r.props!, r.inputs!)).diffs).toEqual(["state"]);
  });

  it("keeps a proxy as made as declared, and drops one whose volume is gone", async () => {
    const same = await egressProxy.read(reading({ ref, state: "running", network: { allow: ref.allow }, drift: [] }), "proxy-0123456789ab", declared);
    expect(same.props).toMatchObject({ drift: [], state: "running", egress: { proxy: "proxy-0123456789ab", user: "1234:1234" } });
    expect(await egressProxy.read(reading(undefined), "proxy-0123456789ab", declared)).toEqual({});
  });
});

describe("EgressProxy create", () => {
  const urn = "urn:pulumi:test::p::agentrun:index:EgressProxy::egress";
  const inputs = { provider: "docker", allow: ["pypi.org"], lifetimeMs: 7_200_000, user: "1234:1234", name: "proxy-0123456789ab" };
  /** A vendor whose name proxy-0123456789ab is held by a proxy labelled as given; what create asked of it, in order. */
  const holding = (labels: Record<string, string>) => {
    const asked: string[] = [];
    let held = true;
    const refOf = (name: string) => ({
      name,
      user: "1234:1234",
      deadline: "2999-01-01T00:00:00.000Z",
      allow: ["pypi.org"],
      hint: "h",
      hostAddresses: [],
      labels,
    });
    const proxies = {
      make: async (spec: ProxySpec, options: { owner?: string }) => {
        asked.push(`make ${spec.name ?? "fresh"}${options.owner === undefined ? "" : " for its owner"}`);
        if (spec.name === "proxy-0123456789ab" && held) return { ok: false as const, error: { code: "exists" as const, message: "taken" } };
        return ok(refOf(spec.name ?? "proxy-fedcba987654"));
      },
      read: async (name: string) => {
        asked.push(`read ${name}`);
        return ok({ ref: refOf(name), state: "running", network: { allow: ["pypi.org"] }, drift: [] });
      },
      release: async (name: string) => {
        asked.push(`release ${name}`);
        held = false;
        return ok(undefined);
      },
    };
    const p = { id: "docker", capabilities: () => ({ defaults: {} }), proxies } as unknown as ComputerProvider;
    const c: Context = { settings: {}, vendor: async () => ok(p), signal: new AbortController().signal, urn };
    return { c, asked };
  };

  it("removes a proxy its own create left under the chosen name (its owner label) and makes it again under that name", async () => {
    const { c, asked } = holding(ownerLabel(resourceOwner({ urn } as Context)!));
    const made = await egressProxy.create(c, inputs);
    expect(made.id).toBe("proxy-0123456789ab");
    expect(asked).toEqual([
      "make proxy-0123456789ab for its owner",
      "read proxy-0123456789ab",
      "release proxy-0123456789ab",
      "make proxy-0123456789ab for its owner",
    ]);
  });

  it("leaves a proxy another made under the chosen name and takes a fresh name", async () => {
    const { c, asked } = holding(ownerLabel("someone else"));
    const made = await egressProxy.create(c, inputs);
    expect(made.id).toBe("proxy-fedcba987654");
    expect(asked).toEqual(["make proxy-0123456789ab for its owner", "read proxy-0123456789ab", "make fresh for its owner"]);
  });
});

describe("a Computer's egress input", () => {
  const egress = { proxy: "proxy-0123456789ab", user: "1234:1234" };
  const base = { image: "agentrun-base:x", lifetimeMs: 600_000 };

  it("joins a proxy as network allow, with no list of its own", async () => {
    const r = await computer.check(ctx, {}, { ...base, egress });
    expect(r.failures).toBeUndefined();
    expect(r.inputs).toMatchObject({ network: "allow", egress });
    expect(r.inputs).not.toHaveProperty("allow");
  });

  it("refuses another network, a list of its own, and another user than the proxy's, in words", async () => {
    const failures = (await computer.check(ctx, {}, { ...base, egress, network: "open", allow: ["pypi.org"], user: "77" })).failures ?? [];
    expect(failures).toEqual(
      expect.arrayContaining([
        { property: "network", reason: expect.stringMatching(/behind an EgressProxy has network "allow"/) },
        { property: "allow", reason: expect.stringMatching(/takes the proxy's list: change allow on the EgressProxy/) },
        { property: "user", reason: expect.stringMatching(/77:77 is not its EgressProxy's 1234:1234.*same user on both/) },
      ]),
    );
  });

  it("leaves a proxy not made yet to up", async () => {
    expect((await computer.check(ctx, {}, { ...base, egress: UNKNOWN })).failures).toBeUndefined();
  });

  it("reads back which proxy it joined, never its list, so a new list on the proxy changes nothing here", async () => {
    const spec = {
      image: "agentrun-base:x",
      user: "1234:1234",
      network: { allow: ["pypi.org"] },
      egress: egress.proxy,
      cpus: 2,
      memoryMb: 4096,
      pids: 1024,
      workdir: "/work",
      deadline: "2999-01-01T00:00:00.000Z",
    };
    const p = {
      id: "docker",
      capabilities: () => ({ kind: "linux", defaults: {} }),
      read: async () => ok({ ref: { id: "abc", name: "computer-0123456789ab", provider: "docker", spec }, state: "running", labels: {}, drift: [] }),
    } as unknown as ComputerProvider;
    const c: Context = { settings: {}, vendor: async () => ok(p), signal: new AbortController().signal };
    const olds = {
      ...base,
      provider: "docker",
      network: "allow",
      egress,
      labels: {},
      kind: "linux",
      user: "1234:1234",
      name: "computer-0123456789ab",
      vendorId: "abc",
    };
    const r = await computer.read(c, "computer-0123456789ab", olds);
    expect(r.inputs).toMatchObject({ network: "allow", egress });
    expect(r.inputs).not.toHaveProperty("allow");
    // An import, with nothing declared, takes the proxy too.
    expect((await computer.read(c, "computer-0123456789ab", {})).inputs).toMatchObject({ network: "allow", egress });
  });

  it("is made again for another proxy", async () => {
    const olds = { ...base, provider: "docker", network: "allow", egress, labels: {}, kind: "linux", user: "1234:1234", state: "running", drift: [] };
    expect((await computer.diff(ctx, "c", olds, { ...olds, egress: { ...egress, proxy: "proxy-ffffffffffff" } })).replaces).toEqual(["egress"]);
    expect((await computer.diff(ctx, "c", olds, { ...olds })).changes).toBe(false);
  });
});
