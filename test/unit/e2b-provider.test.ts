// The E2B provider with no call: check's refusals, the options' rules (the key never echoed, an
// ambient E2B_SANDBOX_URL refused, publicStream refused whatever its value), the connection options
// against the real SDK's ConnectionConfig with every ambient variable set, the read-back's drift,
// the conformance module's names, the plugin's test-only setting, and state: a paused sandbox
// reads paused, a fork's template is its snapshot's id, another provider's snapshot is refused, and
// what a snapshot's read gives back is held in its name (E2B's snapshot carries no metadata).
import { ConnectionConfig, SandboxError } from "e2b";
import { afterEach, describe, expect, it } from "vitest";
import { settingsFrom } from "../../provider/config.js";
import { conformanceImage, createProvider, liveProblem, settingsFromEnv } from "../../src/e2b/conformance/module.js";
import { codeOf } from "../../src/e2b/calls.js";
import { connectionOf } from "../../src/e2b/client.js";
import { create } from "../../src/e2b/create.js";
import { settle } from "../../src/e2b/options.js";
import { OWNER_LABEL, ownerLabel } from "../../src/contract/labels.js";
import { infoDrift, networkOf, ownKeysOf, stateOf, vendorTemplate } from "../../src/e2b/readback.js";
import type { E2BSandboxInfo } from "../../src/e2b/sdk.js";
import { snapshotName, snapshotOf } from "../../src/e2b/state.js";

const KEY = "e2b_0123456789abcdef0123456789abcdef";
const provider = () => create({ apiKey: KEY });
const spec = { image: "base", lifetimeMs: 600_000, network: "none" as const };
const fields = (s: object) => {
  const r = provider().check(s as never);
  return r.ok ? [] : (r.error.refusals ?? [r.error]).map((x) => x.field);
};
const words = (s: object) => {
  const r = provider().check(s as never);
  return r.ok ? "" : (r.error.refusals ?? [r.error]).map((x) => x.message).join(" | ");
};

afterEach(() => {
  for (const name of ["E2B_SANDBOX_URL", "E2B_API_KEY", "E2B_DOMAIN", "E2B_API_URL", "E2B_DEBUG"]) delete process.env[name];
});

describe("check", () => {
  it("takes a template, a lifetime within Hobby's hour, network none, labels and kind linux", () => {
    expect(provider().check({ ...spec, labels: { team: "a" }, kind: "linux" })).toMatchObject({
      ok: true,
      value: { spec: { ...spec, labels: { team: "a" }, kind: "linux" } },
    });
    // The daemon's own user and workdir, which the Pulumi resource passes back.
    expect(provider().check({ ...spec, user: "2510:2510", workdir: "/work" })).toMatchObject({
      ok: true,
      value: { spec: { ...spec, user: "2510:2510", workdir: "/work" } },
    });
  });

  it("refuses every field it cannot hold, together, each by its field", () => {
    expect(
      fields({ image: "", lifetimeMs: 3_600_001, network: "open", cpus: 2, memoryMb: 512, pids: 64, user: "1000", workdir: "/tmp", color: "red" }),
    ).toEqual(expect.arrayContaining(["image", "lifetimeMs", "network", "cpus", "memoryMb", "pids", "user", "workdir", "color"]));
    expect(words({ ...spec, network: { allow: ["pypi.org"] } })).toMatch(/none alone for now.*proxy/);
    expect(words({ ...spec, cpus: 2 })).toMatch(/template's own/);
    expect(words({ ...spec, labels: { "agentrun.computer.name": "x" } })).toMatch(/provider's own namespace/);
    expect(words({ ...spec, labels: { "agentrun.owner": "x" } })).toMatch(
      /the label agentrun.owner is the provider's own \(it ties a computer to the resource it was made for\)/,
    );
    expect(words({ ...spec, network: undefined })).toMatch(/network is required/);
  });

  it("takes kind desktop, and refuses any kind but linux and desktop in words", () => {
    expect(provider().check({ ...spec, kind: "desktop" }).ok).toBe(true);
    expect(fields({ ...spec, kind: "android" })).toEqual(["kind"]);
    expect(words({ ...spec, kind: "android" })).toBe("E2B makes linux and desktop computers, not android");
  });

  it("is a desktop unless told otherwise, as the spec's E2B is: kind desktop, its groups", () => {
    const caps = provider().capabilities();
    expect(caps.kind).toBe("desktop");
    expect(caps.groups).toEqual(["exec", "files", "processes", "screen", "input.pointer", "input.keys"]);
    expect(create({ apiKey: KEY, kind: "linux" }).capabilities()).toMatchObject({ kind: "linux", groups: ["exec", "files", "processes"] });
  });

  it("gives a spec that names no template the one of its kind: desktop, base for kind linux, with no call", async () => {
    // No default image among the capabilities: a host fills it in by the spec's kind through image().
    expect(provider().capabilities().defaults?.image).toBeUndefined();
    expect(await provider().image()).toEqual({ ok: true, value: "desktop" });
    expect(await provider().image({ kind: "linux" })).toEqual({ ok: true, value: "base" });
    expect(await create({ apiKey: KEY, kind: "linux" }).image()).toEqual({ ok: true, value: "base" });
    expect(await create({ apiKey: KEY, kind: "linux" }).image({ kind: "desktop" })).toEqual({ ok: true, value: "desktop" });
    expect(await provider().image({ kind: "android" })).toMatchObject({ ok: false, error: { code: "invalid", field: "kind" } });
  });

  it("caps the lifetime at maxLifetimeMs, up to Pro's 24 hours", () => {
    expect(create({ apiKey: KEY, maxLifetimeMs: 86_400_000 }).check({ ...spec, lifetimeMs: 86_400_000 }).ok).toBe(true);
    expect(() => create({ apiKey: KEY, maxLifetimeMs: 86_400_001 })).toThrow(/24 hours/);
  });
});

describe("options", () => {
  it("refuses a missing key in words that name the option, and never echoes a key", () => {
    expect(() => create({} as never)).toThrow(/apiKey option.*E2B_API_KEY is never read/);
    for (const bad of [{ domain: "not a domain" }, { daemonUser: "0:0" }, { kind: "android" }, { probeTargets: [] }, { timeouts: { nope: 1 } }]) {
      let message = "";
      try {
        create({ apiKey: KEY, ...bad } as never);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).not.toBe("");
      expect(message).not.toContain(KEY);
    }
  });

  it("takes no publicStream option, whatever its value", () => {
    for (const value of [true, false, undefined]) expect(() => create({ apiKey: KEY, publicStream: value } as never)).toThrow(/publicStream/);
  });

  it("refuses to start while E2B_SANDBOX_URL is set", () => {
    process.env.E2B_SANDBOX_URL = "https://elsewhere.example";
    expect(() => provider()).toThrow(/E2B_SANDBOX_URL is set/);
  });

  it("gives the real SDK's ConnectionConfig its own key, domain, API URL and debug, over every ambient variable", () => {
    process.env.E2B_API_KEY = "e2b_ambient_key";
    process.env.E2B_DOMAIN = "ambient.example";
    process.env.E2B_API_URL = "https://api.ambient.example";
    process.env.E2B_DEBUG = "true";
    const config = new ConnectionConfig(connectionOf(settle({ apiKey: KEY })));
    expect({ apiKey: config.apiKey, domain: config.domain, apiUrl: config.apiUrl, debug: config.debug }).toEqual({
      apiKey: KEY,
      domain: "e2b.app",
      apiUrl: "https://api.e2b.app",
      debug: false,
    });
  });

  it("points the real SDK's API and every sandbox's envd at the apiUrl and sandboxUrl given (a loopback server of one's own)", () => {
    const config = new ConnectionConfig(connectionOf(settle({ apiKey: KEY, apiUrl: "http://127.0.0.1:4100/", sandboxUrl: "http://127.0.0.1:4101" })));
    expect(config.apiUrl).toBe("http://127.0.0.1:4100");
    expect(config.getSandboxUrl("isb1", { sandboxDomain: "e2b.app", envdPort: 49983 })).toBe("http://127.0.0.1:4101");
    // Unset, envd is the SDK's own: E2B's sandbox proxy for its domains.
    expect(new ConnectionConfig(connectionOf(settle({ apiKey: KEY }))).getSandboxUrl("isb1", { sandboxDomain: "e2b.app", envdPort: 49983 })).toBe(
      "https://sandbox.e2b.app",
    );
  });

  it("takes apiUrl and sandboxUrl only as https://, or http:// on the loopback, with no query or login", () => {
    for (const key of ["apiUrl", "sandboxUrl"])
      for (const bad of ["http://api.example.com", "https://api.example.com/?v=1", "https://u:p@api.example.com", "ftp://127.0.0.1:1", "http://10.0.0.1:80", 7])
        expect(() => create({ apiKey: KEY, [key]: bad } as never)).toThrow(new RegExp(key));
    expect(() => create({ apiKey: KEY, apiUrl: "https://api.example.com/v1", sandboxUrl: "http://localhost:4101" })).not.toThrow();
  });
});

const info = (over: Partial<E2BSandboxInfo> = {}): E2BSandboxInfo => ({
  sandboxId: "isb1",
  templateId: "rki5dems9wqfm4r03t7g",
  name: "base",
  metadata: { team: "a" },
  startedAt: new Date("2026-12-01T00:00:00Z"),
  endAt: new Date("2026-12-01T00:10:00Z"),
  state: "running",
  cpuCount: 2,
  memoryMB: 512,
  envdVersion: "0.2.0",
  allowInternetAccess: false,
  network: { denyOut: ["0.0.0.0/0"], allowPublicTraffic: false },
  lifecycle: { onTimeout: "kill", autoResume: false },
  ...over,
});

describe("the read-back", () => {
  it("reads network none only with no internet and no public traffic in", () => {
    expect(networkOf(info())).toBe("none");
    expect(networkOf(info({ allowInternetAccess: undefined }))).toBe("none");
    expect(networkOf(info({ network: { denyOut: ["0.0.0.0/0"], allowPublicTraffic: true } }))).toEqual({ other: "public traffic is allowed in" });
    expect(networkOf(info({ network: { denyOut: ["0.0.0.0/0"] } }))).toEqual({ other: "E2B reads back no allowPublicTraffic" });
    expect(networkOf(info({ allowInternetAccess: true, network: { allowPublicTraffic: false } }))).toBe("open");
    expect(networkOf(info({ network: { allowOut: ["1.1.1.1"], allowPublicTraffic: false } }))).toEqual({ allow: ["1.1.1.1"] });
    expect(networkOf(info({ allowInternetAccess: undefined, network: { allowPublicTraffic: false } }))).toMatchObject({ other: expect.any(String) });
  });

  it("holds the template by id or alias, the metadata, the lifecycle, the state and the end to what create asked", () => {
    const want = { template: "base", metadata: { team: "a" }, timeoutS: 600 };
    expect(infoDrift(info(), want)).toEqual([]);
    expect(infoDrift(info(), { ...want, template: "rki5dems9wqfm4r03t7g" })).toEqual([]);
    const drift = infoDrift(
      info({ name: "other", metadata: {}, lifecycle: { onTimeout: "pause", autoResume: true }, state: "paused", endAt: new Date("2026-12-01T00:20:00Z") }),
      want,
    ).join(" | ");
    for (const part of ["template", "metadata team", "onTimeout", "autoResume", "paused", "end"]) expect(drift).toContain(part);
  });

  it("reads a computer made before desktops (no kind key) as kind linux, whatever the provider's default", () => {
    const own = {
      "agentrun.computer": "1",
      "agentrun.computer.name": "computer-0123456789ab",
      "agentrun.computer.deadline": "2026-12-02T15:00:00.000Z",
      "agentrun.computer.image": "base",
      "agentrun.computer.timeout": "600",
      "agentrun.computer.max": "2026-12-02T15:50:00.000Z",
    };
    expect(ownKeysOf(own)).toMatchObject({ ok: true, value: { kind: "linux", image: "base" } });
    expect(ownKeysOf({ ...own, "agentrun.computer.kind": "desktop" })).toMatchObject({ ok: true, value: { kind: "desktop" } });
  });

  it("reads the SDK's errors by name", () => {
    const named = (name: string) => Object.assign(new Error("x"), { name });
    expect(
      ["SandboxNotFoundError", "AuthenticationError", "TimeoutError", "RateLimitError", "InvalidArgumentError", "SandboxError"].map((n) => codeOf(named(n))),
    ).toEqual(["not_found", "unauthorized", "timeout", "limit", "invalid", "failed"]);
  });

  it("reads the SDK's SandboxError by the API's status it carries: 400 invalid, 404 not found, any other failed", () => {
    const answered = (statusCode: number) => Object.assign(new SandboxError(`${statusCode}: x`), { statusCode });
    expect([400, 404, 409, 500].map((s) => codeOf(answered(s)))).toEqual(["invalid", "not_found", "failed", "failed"]);
  });
});

describe("the conformance module and the plugin's settings", () => {
  it("runs a desktop on E2B's desktop template unless --kind sandbox or COMPUTER_E2B_KIND says linux", () => {
    const live = { AGENTRUN_COMPUTER_LIVE_E2B: "1", COMPUTER_E2B_API_KEY: KEY };
    const linux = { ...live, COMPUTER_E2B_KIND: "linux" };
    expect([conformanceImage({}, live), createProvider(live).capabilities().kind]).toEqual(["desktop", "desktop"]);
    expect([conformanceImage({ kind: "sandbox" }, live), createProvider(live, { kind: "sandbox" }).capabilities().kind]).toEqual(["base", "linux"]);
    expect([conformanceImage({}, linux), createProvider(linux).capabilities().kind]).toEqual(["base", "linux"]);
    expect([conformanceImage({ kind: "desktop" }, linux), createProvider(linux, { kind: "desktop" }).capabilities().kind]).toEqual(["desktop", "desktop"]);
    expect(conformanceImage({}, { ...live, COMPUTER_E2B_TEMPLATE: "mine" })).toBe("mine");
  });

  it("reads COMPUTER_E2B_* alone, the live switch first, and never E2B_API_KEY", () => {
    expect(liveProblem({ COMPUTER_E2B_API_KEY: KEY })).toMatch(/AGENTRUN_COMPUTER_LIVE_E2B=1/);
    expect(liveProblem({ AGENTRUN_COMPUTER_LIVE_E2B: "1", E2B_API_KEY: KEY })).toMatch(/COMPUTER_E2B_API_KEY.*E2B_API_KEY is never read/);
    expect(liveProblem({ AGENTRUN_COMPUTER_LIVE_E2B: "1", COMPUTER_E2B_API_KEY: KEY })).toBeUndefined();
    expect(
      settingsFromEnv({ COMPUTER_E2B_API_KEY: KEY, COMPUTER_E2B_DOMAIN: "e2b.dev", COMPUTER_E2B_MAX_LIFETIME_MS: "600000", COMPUTER_E2B_USER: "3000:3000" }),
    ).toEqual({
      apiKey: KEY,
      domain: "e2b.dev",
      maxLifetimeMs: 600_000,
      daemonUser: "3000:3000",
    });
    expect(() => settingsFromEnv({ COMPUTER_E2B_API_KEY: KEY, E2B_SANDBOX_URL: "https://x.example" })).toThrow(/E2B_SANDBOX_URL/);
  });

  it("takes agentrun:e2b's key and domain, and testSdk only with the plugin's test flag", () => {
    const config = JSON.stringify({ "agentrun:e2b": JSON.stringify({ apiKey: KEY, domain: "e2b.app" }) });
    expect(settingsFrom(config)).toEqual({ ok: true, value: { e2b: { apiKey: KEY, domain: "e2b.app" } } });
    const test = JSON.stringify({ "agentrun:e2b": JSON.stringify({ apiKey: KEY, testSdk: "/x/fake.js" }) });
    expect(settingsFrom(test)).toMatchObject({ ok: false, message: expect.stringMatching(/for tests only/) });
    expect(settingsFrom(test, { test: true }).ok).toBe(true);
  });
});

describe("E2BProvider.create with a daemon that cannot be read", () => {
  it("is refused on daemonPath in words before any call, and reads again on the next", async () => {
    const sdk = {
      create: () => {
        throw new Error("create made a call");
      },
    };
    const p = create({ apiKey: KEY, daemonPath: "/nonexistent/computerd", sdk: sdk as never });
    for (let attempt = 0; attempt < 2; attempt++) {
      const made = await p.create(spec);
      expect(made).toMatchObject({ ok: false, error: { code: "invalid", field: "daemonPath" } });
      if (!made.ok)
        expect(made.error.message).toBe("the daemon at /nonexistent/computerd could not be read (ENOENT); build it with npm run setup, or give daemonPath");
    }
  });
});

describe("E2BProvider.connect of a ref whose id is not its computer", () => {
  it("is not_found with a not-the-computer detail, never gone, and connects to nothing", async () => {
    // Another computer of this provider's, then a sandbox it did not make.
    const metadata = {
      "agentrun.computer": "1",
      "agentrun.computer.name": "computer-ffffffffffff",
      "agentrun.computer.deadline": "2026-12-01T00:10:00.000Z",
      "agentrun.computer.max": "2026-12-02T00:00:00.000Z",
      "agentrun.computer.timeout": "600",
    };
    for (const given of [metadata, { team: "a" }]) {
      const sdk = {
        create: () => {
          throw new Error("create made a call");
        },
        getInfo: async () => info({ metadata: given }),
        connect: () => {
          throw new Error("connect made a call");
        },
      };
      const p = create({ apiKey: KEY, sdk: sdk as never });
      const connected = await p.connect({ id: "isb1", name: "computer-0123456789ab", provider: "e2b" });
      expect(connected).toMatchObject({ ok: false, error: { code: "not_found", detail: { kind: "not-the-computer", id: "isb1" } } });
    }
  });
});

describe("E2B's state", () => {
  it("reads a paused sandbox as paused, a running one as running", () => {
    expect(stateOf(info({ state: "paused" }))).toBe("paused");
    expect(stateOf(info())).toBe("running");
  });

  it("makes a fork from its snapshot's id, and reads the template back with or without the snapshot's tag", () => {
    expect(vendorTemplate("snapshot://e2b/team/prepared:default")).toBe("team/prepared:default");
    expect(vendorTemplate("base")).toBe("base");
    expect(infoDrift(info({ templateId: "snapabc", name: undefined }), { template: "snapshot://e2b/snapabc:default", metadata: {} })).toEqual([]);
    expect(
      infoDrift(info({ templateId: "snapabc", name: "team/prepared:default" }), { template: "snapshot://e2b/team/prepared:default", metadata: {} }),
    ).toEqual([]);
    expect(infoDrift(info({ templateId: "snapabc", name: undefined }), { template: "snapshot://e2b/snapother:default", metadata: {} }).join()).toMatch(
      /the template reads "snapabc", not "snapother:default"/,
    );
  });

  it("refuses another provider's snapshot at check, naming the image; its own passes", () => {
    const spec = { lifetimeMs: 600_000, network: "none" as const, kind: "linux" as const };
    const refused = provider().check({ ...spec, image: "snapshot://modal/im-123" });
    expect(refused).toMatchObject({ ok: false });
    expect(JSON.stringify(refused)).toMatch(/image snapshot:\/\/modal\/im-123 is a snapshot taken on modal, which a computer on e2b cannot start from/);
    expect(refused.ok ? [] : refused.error.refusals?.map((r) => r.field)).toEqual(["image"]);
    expect(provider().check({ ...spec, image: "snapshot://e2b/team/prepared:default" })).toMatchObject({ ok: true });
  });

  it("holds the computer, the owner's hash and the time taken in the snapshot's name, and reads them back", () => {
    const at = Date.parse("2026-12-05T03:00:00.123Z");
    const name = snapshotName("computer-0123456789ab", "stack/urn", at, 0xbeef);
    expect(name).toBe(`agentrun-0123456789ab-${ownerLabel("stack/urn")[OWNER_LABEL]}-${at.toString(36)}-beef`);
    expect(snapshotOf({ snapshotId: `team/${name}:default`, names: [`team/${name}:default`] })).toMatchObject({
      image: `snapshot://e2b/team/${name}:default`,
      computer: "computer-0123456789ab",
      takenAt: "2026-12-05T03:00:00.123Z",
      labels: { "agentrun.snapshot": "1", [OWNER_LABEL]: ownerLabel("stack/urn")[OWNER_LABEL] },
    });
    expect(snapshotOf({ snapshotId: `team/${snapshotName("computer-0123456789ab", undefined, at)}:default`, names: [] })?.labels).toEqual({
      "agentrun.snapshot": "1",
    });
    // A snapshot another took is none of this provider's.
    expect(snapshotOf({ snapshotId: "abc123:default", names: ["team/mine:default"] })).toBeUndefined();
  });
});
