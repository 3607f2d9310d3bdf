// The Computer resource's handlers without the engine: check (every refusal together, the
// provider's own defaults filled in), diff (what replaces) and read (the computer as read back,
// gone, drifted or imported). check runs the real Docker provider's check, which calls no Docker;
// read runs against a provider whose read answers what each test hands it.
import { describe, expect, it } from "vitest";
import { PROVIDER_IDS } from "../../src/providers.js";
import { computer } from "../../provider/resources/computer.js";
import { defaultsOf } from "../../provider/resources/computer-read-back.js";
import type { Context } from "../../provider/resource.js";
import { UNKNOWN, isSecret, secret, type Props } from "../../provider/secrets.js";
import type { Capabilities, ComputerProvider, ReadBack } from "../../src/contract/provider.js";
import { ResultFailure, fail, ok, type Result } from "../../src/daemon/result.js";
import { checkedSpec } from "../../src/contract/checked.js";
import { testContext } from "../support/context.js";

const ctx = testContext({ docker: { user: "1234:1234" } });
const good = { image: "agentrun-base:x", lifetimeMs: 600_000 };
const failuresOf = async (news: Props, c: Context = ctx) => (await computer.check(c, {}, news)).failures ?? [];
const properties = async (news: Props, c?: Context) => (await failuresOf(news, c)).map((f) => f.property);

/** A provider whose capabilities and read answer as the test says; anything else is refused. */
function readingProvider(answer: () => Result<ReadBack>, capabilities: Partial<Capabilities> = {}): ComputerProvider {
  const refused = async () => fail("unsupported", "not in this test");
  return {
    id: "reading",
    version: "0.0.0",
    capabilities: () => ({
      kind: "linux",
      os: "linux",
      daemon: "pid1",
      groups: ["exec", "files", "processes"],
      lifetime: "janitor",
      maxLifetimeMs: 3_600_000,
      network: ["none"],
      release: ["delete"],
      ...capabilities,
    }),
    check: (spec) => checkedSpec(spec, []),
    read: async () => answer(),
    create: refused,
    attach: refused,
    list: refused,
    network: refused,
    connect: refused,
    release: refused,
  };
}

const contextOf = (provider: ComputerProvider): Context => ({ settings: {}, vendor: async () => ok(provider), signal: new AbortController().signal });

describe("Computer check", () => {
  it("fills the provider's own defaults (capabilities().defaults) and writes the user uid:gid", async () => {
    const r = await computer.check(ctx, {}, good);
    expect(r.failures).toBeUndefined();
    expect(r.inputs).toEqual({
      ...good,
      provider: "docker",
      network: "none",
      labels: {},
      kind: "linux",
      cpus: 2,
      memoryMb: 4096,
      pids: 1024,
      workdir: "/work",
      user: "1234:1234",
    });
    expect((await computer.check(ctx, {}, { ...good, user: "77" })).inputs?.user).toBe("77:77");
  });

  it("fills the image the provider names (Docker's image setting), and leaves it out when the provider makes its own", async () => {
    const named = testContext({ docker: { image: "agentrun-base:named" } });
    expect((await computer.check(named, {}, { lifetimeMs: 600_000 })).inputs?.image).toBe("agentrun-base:named");
    expect((await computer.check(named, {}, good)).inputs?.image).toBe(good.image);
    expect((await computer.check(ctx, {}, { lifetimeMs: 600_000 })).inputs).not.toHaveProperty("image");
  });

  it("takes another provider's defaults, and leaves out one it does not name", async () => {
    const provider = readingProvider(() => fail("not_found", "none"), { kind: "linux", defaults: { cpus: 1, workdir: "/home/agent" } });
    const r = await computer.check(contextOf(provider), {}, { ...good, provider: "reading" });
    expect(r.inputs).toEqual({ ...good, provider: "reading", network: "none", labels: {}, kind: "linux", cpus: 1, workdir: "/home/agent" });
    expect(defaultsOf(provider)).not.toHaveProperty("user");
  });

  it("gives a browser on Docker no workdir default: a browser has none, and the check would refuse it", async () => {
    const r = await computer.check(ctx, {}, { image: "chromium", lifetimeMs: 600_000, kind: "browser" });
    expect(r.failures).toBeUndefined();
    expect(r.inputs).not.toHaveProperty("workdir");
    expect(r.inputs).toMatchObject({ kind: "browser", image: "chromium" });
  });

  it.each([
    ["memoryMb", { memoryMb: 256 }, "a browser needs memoryMb of at least 512"],
    ["user", { user: "0:0" }, "a browser runs as a user of its own, never root"],
    ["mount", { mount: { kind: "bind", path: "/var/tmp/x" } }, "a browser takes no run folder"],
    ["allow", { network: "allow", allow: ["http://example.com"] }, '"http://example.com" is a URL'],
  ])("refuses a browser's %s at preview, naming it", async (property, extra, words) => {
    const failures = await failuresOf({ image: "chromium", lifetimeMs: 600_000, kind: "browser", ...extra });
    expect(failures).toContainEqual({ property, reason: expect.stringContaining(words) });
  });

  it("reports an unknown field and a lifetime past the cap together", async () => {
    const failures = await failuresOf({ ...good, colour: "blue", lifetimeMs: 30 * 86_400_000 + 1 });
    expect(failures.map((f) => f.property)).toEqual(["colour", "lifetimeMs"]);
    expect(failures[0]!.reason).toMatch(/^agentrun:index:Computer has no field "colour"/);
    expect(failures[1]!.reason).toMatch(/past this provider's cap of 2592000000 ms \(30 days\)/);
  });

  it("reports a value of the wrong shape beside the provider's refusals, each once", async () => {
    const failures = await failuresOf({ ...good, cpus: "two", user: "agent", kind: "android" });
    expect(failures.map((f) => f.property).sort()).toEqual(["cpus", "kind", "user"]);
  });

  it("says what to ask for when a value has the wrong shape or range, never zod's stock words", async () => {
    expect(await failuresOf({ ...good, cpus: -1 })).toEqual([{ property: "cpus", reason: "cpus must be a number of CPUs above 0, such as 0.5 or 2" }]);
    expect(await failuresOf({ ...good, memoryMb: 1.5, kind: "android" })).toEqual([
      { property: "memoryMb", reason: "memoryMb must be a whole number of MiB above 0, such as 512" },
      { property: "kind", reason: 'kind must be "linux", "desktop", "browser" or "phone"' },
    ]);
    expect(await failuresOf({ ...good, mount: { kind: "bind" } })).toEqual([
      { property: "mount", reason: 'mount must be a Mount\'s mount output ({ kind: "bind", path })' },
    ]);
    // A Mount makes bind folders alone: an archil mount has no path to give.
    expect(await failuresOf({ ...good, mount: { kind: "archil", path: "/var/tmp/x" } })).toEqual([
      { property: "mount", reason: 'mount must be a Mount\'s mount output ({ kind: "bind", path })' },
    ]);
  });

  it("refuses a user past 2^31 - 1 as a Mount does", async () => {
    expect(await failuresOf({ ...good, user: "3000000000" })).toEqual([{ property: "user", reason: "user's ids are at most 2147483647" }]);
  });

  it("refuses an unknown provider beside an unknown field, naming the ones the registry holds", async () => {
    const failures = await failuresOf({ ...good, provider: "fly", colour: 1 });
    expect(failures.map((f) => f.property)).toEqual(["colour", "provider"]);
    expect(failures[1]!.reason).toBe(`there is no provider "fly": the registry holds ${PROVIDER_IDS.join(", ")}`);
  });

  it("names a secret field's refusal without its words", async () => {
    const failures = await failuresOf({ ...good, workdir: secret("relative-hunter2") });
    expect(failures).toEqual([{ property: "workdir", reason: "workdir (a secret) is refused" }]);
  });

  it("checks allow against network", async () => {
    expect(await properties({ ...good, network: "allow" })).toContain("allow");
    expect(await properties({ ...good, network: "none", allow: ["pypi.org"] })).toEqual(["allow"]);
  });

  it("leaves an image to the provider, and a lifetime not known yet to up", async () => {
    expect(await failuresOf({ lifetimeMs: 600_000 })).toEqual([]);
    const r = await computer.check(ctx, {}, { ...good, lifetimeMs: UNKNOWN });
    expect(r.failures).toBeUndefined();
    expect(r.inputs?.lifetimeMs).toBe(UNKNOWN);
  });
});

describe("Computer diff", () => {
  const olds = {
    ...good,
    provider: "docker",
    network: "none",
    labels: {},
    kind: "linux",
    cpus: 2,
    memoryMb: 4096,
    pids: 1024,
    workdir: "/work",
    user: "1234:1234",
    state: "running",
    drift: [],
  };
  const news = {
    ...good,
    provider: "docker",
    network: "none",
    labels: {},
    kind: "linux",
    cpus: 2,
    memoryMb: 4096,
    pids: 1024,
    workdir: "/work",
    user: "1234:1234",
  };

  it("has no change when the computer is as declared", async () => {
    expect(await computer.diff(ctx, "computer-0", olds, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
      detailedDiff: {},
      diffs: [],
    });
  });

  it("names each changed field and how, which is what the engine prints", async () => {
    const { labels: _labels, ...unlabelled } = news;
    expect((await computer.diff(ctx, "c", olds, { ...unlabelled, cpus: 1, workdir: "/w" })).detailedDiff).toEqual({
      cpus: "update-replace",
      workdir: "update-replace",
      labels: "delete-replace",
    });
  });

  it("replaces for any changed field, labels compared by value not key order", async () => {
    expect((await computer.diff(ctx, "c", olds, { ...news, cpus: 1, user: "0:0" })).replaces).toEqual(["cpus", "user"]);
    const a = await computer.diff(ctx, "c", { ...olds, labels: { a: "1", b: "2" } }, { ...news, labels: { b: "2", a: "1" } });
    expect(a.changes).toBe(false);
  });

  it("compares an image left to the provider only once it is declared", async () => {
    const { image: _image, ...undeclared } = news;
    expect((await computer.diff(ctx, "c", olds, undeclared)).changes).toBe(false);
    expect((await computer.diff(ctx, "c", olds, { ...news, image: "other:1" })).replaces).toEqual(["image"]);
  });

  it("replaces a stopped or a drifted computer, naming drift only where no field does", async () => {
    expect((await computer.diff(ctx, "c", { ...olds, state: "stopped" }, news)).replaces).toEqual(["state"]);
    const memory = await computer.diff(ctx, "c", { ...olds, memoryMb: 1024, drift: ["HostConfig.Memory is 1024 MiB"] }, news);
    expect(memory).toMatchObject({ replaces: ["memoryMb"], diffs: ["memoryMb"], detailedDiff: { memoryMb: "update-replace", drift: "update" } });
    expect((await computer.diff(ctx, "c", { ...olds, drift: ["Config.User is 0:0"] }, news)).replaces).toEqual(["drift"]);
  });

  it("names a network read back as no value a stack declares (disconnected by hand) as changed, not removed", async () => {
    const unbridged = { ...olds, network: "other: none", drift: ["the computer is on no network, not its own bridge"] };
    expect((await computer.diff(ctx, "c", unbridged, news)).detailedDiff).toMatchObject({ network: "update-replace" });
  });

  it("sees through secrets on both sides", async () => {
    expect((await computer.diff(ctx, "c", { ...olds, workdir: secret("/work") }, { ...news, workdir: secret("/work") })).changes).toBe(false);
  });
});

describe("Computer read", () => {
  const deadline = new Date(Date.now() + 90_000).toISOString();
  const readBack = (over: Partial<ReadBack> = {}): ReadBack => ({
    ref: {
      id: "f".repeat(64),
      name: "computer-0123456789ab",
      provider: "reading",
      spec: { image: "agentrun-base:x", user: "1234:1234", network: "none", cpus: 2, memoryMb: 4096, pids: 1024, workdir: "/work", deadline },
    },
    state: "running",
    labels: { "agentrun.run": "r1", "agentrun.computer": "1", "agentrun.computer.deadline": deadline, "from.image": "x" },
    hello: { version: "0.0.0", os: "linux", kind: "linux", arch: "amd64", groups: ["exec", "files", "processes"] },
    drift: [],
    ...over,
  });
  const declared = {
    ...good,
    provider: "reading",
    network: "none",
    labels: { "agentrun.run": "r1" },
    kind: "linux",
    cpus: 2,
    memoryMb: 4096,
    pids: 1024,
    workdir: "/work",
    user: "1234:1234",
  };

  it("drops a computer that is gone (no id), so the next up makes it again", async () => {
    expect(await computer.read(contextOf(readingProvider(() => fail("not_found", "no computer"))), "computer-0123456789ab", declared)).toEqual({});
  });

  it("throws any other failure with its code and cause", async () => {
    const failing = readingProvider(() => fail("unreachable", "Docker did not answer in time"));
    const thrown = await computer.read(contextOf(failing), "computer-0123456789ab", declared).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ResultFailure);
    expect(thrown).toMatchObject({ code: "unreachable", message: "Docker did not answer in time" });
  });

  it("reads a computer as declared back equal, its declared labels only", async () => {
    const r = await computer.read(contextOf(readingProvider(() => ok(readBack()))), "computer-0123456789ab", declared);
    expect(r.id).toBe("computer-0123456789ab");
    expect(r.inputs).toEqual(declared);
    expect(r.props).toMatchObject({
      name: "computer-0123456789ab",
      vendorId: "f".repeat(64),
      state: "running",
      drift: [],
      deadline,
      labels: { "agentrun.run": "r1" },
    });
    expect((r.props as Props).hello).toEqual({ version: "0.0.0", arch: "amd64", kind: "linux", groups: ["exec", "files", "processes"] });
  });

  it("reads a browser back with no workdir, though Docker reads back its home", async () => {
    const browser = { ...declared, image: "chromium", kind: "browser" };
    delete (browser as Partial<typeof browser>).workdir;
    const hello = { version: "0.0.0", os: "linux" as const, kind: "browser" as const, arch: "amd64", groups: [] };
    const r = await computer.read(contextOf(readingProvider(() => ok(readBack({ hello })))), "computer-0123456789ab", browser);
    expect(r.inputs).not.toHaveProperty("workdir");
    expect(r.inputs).toMatchObject({ kind: "browser" });
  });

  it("reads back in the shape declared: an image left to the provider stays left out of the inputs", async () => {
    const { image: _image, ...stored } = declared;
    const r = await computer.read(contextOf(readingProvider(() => ok(readBack()))), "computer-0123456789ab", declared, stored);
    expect(r.inputs).not.toHaveProperty("image");
    expect(r.props).toHaveProperty("image");
  });

  it("reads a stopped computer back with its stop in the drift's words, and the diff a replace naming state", async () => {
    const r = await computer.read(contextOf(readingProvider(() => ok(readBack({ state: "stopped", hello: undefined })))), "computer-0123456789ab", declared);
    expect((r.props as Props).state).toBe("stopped");
    expect((r.props as Props).drift).toEqual([`stopped before its deadline ${deadline} (by hand, or its programs ended)`]);
    const d = await computer.diff(ctx, "c", r.props as Props, declared);
    expect(d.replaces).toEqual(["state"]);
    expect(d.detailedDiff).toMatchObject({ state: "update-replace", drift: "update" });
  });

  it("reads a computer whose shared proxy is stopped with that in its own drift: an update (the proxy's up heals it), never a replace", async () => {
    const behind = readBack();
    behind.ref.spec = { ...behind.ref.spec!, network: { allow: [] }, egress: "proxy-0123456789ab" };
    let proxyState: "running" | "stopped" = "stopped";
    const provider: ComputerProvider = {
      ...readingProvider(() => ok(structuredClone(behind))),
      proxies: { read: async () => ok({ state: proxyState }) } as unknown as ComputerProvider["proxies"],
    };
    const egress = { proxy: "proxy-0123456789ab", user: "1234:1234" };
    const behindDeclared = { ...declared, network: "allow", egress };
    const r = await computer.read(contextOf(provider), "computer-0123456789ab", behindDeclared);
    const words = "its egress proxy proxy-0123456789ab is stopped, so it reaches nothing until an up makes the proxy again";
    expect((r.props as Props).drift).toEqual([words]);
    expect(await computer.diff(ctx, "c", r.props as Props, behindDeclared)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
      detailedDiff: { drift: "update" },
    });
    // The update, after the proxy's: read back again, and as declared.
    proxyState = "running";
    const updated = await computer.update(contextOf(provider), "computer-0123456789ab", r.props as Props, behindDeclared);
    expect((updated.outs as Props).drift).toEqual([]);
  });

  it("reads a computer past its deadline as stopped because its deadline passed", async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const over = readBack({ state: "stopped", hello: undefined });
    over.ref.spec = { ...over.ref.spec!, deadline: past };
    const r = await computer.read(contextOf(readingProvider(() => ok(over))), "computer-0123456789ab", declared);
    expect((r.props as Props).drift).toEqual([`stopped: its deadline ${past} has passed`]);
  });

  it("reads a drifted computer back field by field, naming each mismatch", async () => {
    const drifted = readBack({ drift: ["HostConfig.NanoCpus reads 1 CPU, not 2"] });
    drifted.ref.spec = { ...drifted.ref.spec!, cpus: 1, user: "0:0" };
    const r = await computer.read(contextOf(readingProvider(() => ok(drifted))), "computer-0123456789ab", declared);
    expect(r.inputs).toMatchObject({ cpus: 1, user: "0:0" });
    expect((r.props as Props).drift).toEqual(["HostConfig.NanoCpus reads 1 CPU, not 2"]);
    expect((await computer.diff(ctx, "c", r.props as Props, declared)).replaces).toEqual(["cpus", "user"]);
  });

  it("reads back a run folder, an allowlist and a network that is no policy in the resource's own fields", async () => {
    const bound = readBack();
    bound.ref.spec = { ...bound.ref.spec!, mount: { kind: "bind", path: "/var/tmp/runs/r1" }, network: { allow: ["pypi.org"] } };
    const r1 = await computer.read(contextOf(readingProvider(() => ok(bound))), "computer-0123456789ab", declared);
    expect(r1.inputs).toMatchObject({ network: "allow", allow: ["pypi.org"], mount: { kind: "bind", path: "/var/tmp/runs/r1" } });
    const odd = readBack();
    odd.ref.spec = { ...odd.ref.spec!, mount: { other: "a volume at /workspace" }, network: { other: "on a user-defined network" } };
    const r2 = await computer.read(contextOf(readingProvider(() => ok(odd))), "computer-0123456789ab", declared);
    expect(r2.inputs).toMatchObject({ network: "other: on a user-defined network", mount: { kind: "other", path: "a volume at /workspace" } });
    expect((await computer.diff(ctx, "c", r2.props as Props, declared)).replaces).toEqual(expect.arrayContaining(["network", "mount"]));
  });

  it("imports a computer with no outputs: the provider's defaults, the caller's labels, and what is left of its lifetime", async () => {
    const provider = readingProvider(() => ok(readBack()), { defaults: { cpus: 2, memoryMb: 4096, pids: 1024, workdir: "/work" } });
    const r = await computer.read(contextOf(provider), "computer-0123456789ab", {});
    expect(r.inputs).toMatchObject({ provider: "reading", network: "none", kind: "linux", labels: { "agentrun.run": "r1", "from.image": "x" } });
    const lifetime = (r.inputs as Props).lifetimeMs as number;
    expect(lifetime % 1000).toBe(0);
    expect(lifetime).toBeGreaterThan(80_000);
    expect(lifetime).toBeLessThanOrEqual(90_000);
  });

  it("keeps a secret input secret in what it reads back", async () => {
    const r = await computer.read(contextOf(readingProvider(() => ok(readBack()))), "computer-0123456789ab", { ...declared, workdir: secret("/work") });
    expect(isSecret((r.inputs as Props).workdir)).toBe(true);
    expect(isSecret((r.props as Props).spec)).toBe(true);
    expect(isSecret((r.props as Props).cpus)).toBe(false);
  });
});
