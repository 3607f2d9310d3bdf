// The Browserbase provider on a host transport (BrowserbaseApi) held in memory: check's refusals
// before any call, failures that name the call and the status alone with the transport's error
// hidden, the create label's recovery when a create's outcome is unknown, list and attach by labels,
// the CDP URL kept out of every ref, list, error and JSON. The same provider against the fake
// Browserbase with real Chromium: test/docker/browserbase-fake.test.ts.
import { describe, expect, it } from "vitest";
import { causeOf, create } from "../../src/browserbase/index.js";
import type { BrowserbaseApi, Session, SessionCreateParams } from "../../src/browserbase/sdk.js";
import { CREATE_LABEL } from "../../src/kits/browser/labels.js";
import { orThrow } from "../../src/daemon/result.js";

const SECRET_URL = "wss://connect.example.test/?signingKey=sk-0123456789abcdefSECRET";

class SdkError extends Error {
  constructor(
    readonly status: number,
    words: string,
  ) {
    super(words);
  }
}

/** Browserbase's sessions in memory, with the SDK's shapes; every call counted. */
class MemoryApi implements BrowserbaseApi {
  readonly sessions = new Map<string, Session>();
  calls: string[] = [];
  /** What the next create does after making its session: answer, throw a 500, or never answer. */
  createFault: "none" | "500" | "hang" | "no-browser" | "400" = "none";
  /** Sessions answer PENDING at create, and RUNNING from their second read on. */
  startsPending = false;
  #reads = new Map<string, number>();
  #n = 0;

  async create(params: SessionCreateParams, options?: { signal?: AbortSignal }) {
    this.calls.push("create");
    if (this.createFault === "400") throw new SdkError(400, "body/timeout must be >= 60 (the vendor's own words)");
    const id = `s-${++this.#n}`;
    const now = new Date().toISOString();
    const session: Session = {
      id,
      createdAt: now,
      updatedAt: now,
      startedAt: now,
      expiresAt: new Date(Date.now() + (params.api_timeout ?? 300) * 1000).toISOString(),
      keepAlive: params.keepAlive ?? false,
      projectId: params.projectId ?? "p",
      status: "RUNNING",
      userMetadata: params.userMetadata ?? {},
    };
    this.sessions.set(id, session);
    if (this.startsPending) session.status = "PENDING";
    if (this.createFault === "500") throw new SdkError(500, "upstream exploded at 10.1.2.3");
    if (this.createFault === "no-browser") return {} as never;
    if (this.createFault === "hang") await new Promise((_, reject) => options?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    return { ...session, connectUrl: SECRET_URL, seleniumRemoteUrl: "x", signingKey: "y" };
  }
  async retrieve(id: string) {
    this.calls.push("retrieve");
    const s = this.sessions.get(id);
    if (!s) throw new SdkError(404, "Session not found");
    const reads = (this.#reads.get(id) ?? 0) + 1;
    this.#reads.set(id, reads);
    if (s.status === "PENDING" && reads >= 2) s.status = "RUNNING";
    // As the SDK's SessionRetrieveResponse: connectUrl while it runs.
    return s.status === "RUNNING" ? { ...s, connectUrl: SECRET_URL } : s;
  }
  async update(id: string) {
    this.calls.push("update");
    const s = this.sessions.get(id);
    if (!s) throw new SdkError(404, "Session not found");
    s.status = "COMPLETED";
    return s;
  }
  async list(query: { status?: string; q?: string }) {
    this.calls.push(`list:${query.status}`);
    const q = query.q ? /^user_metadata\['([^']+)'\]:'([^']*)'$/.exec(query.q) : undefined;
    return [...this.sessions.values()].filter((s) => (!query.status || s.status === query.status) && (!q || s.userMetadata?.[q[1]!] === q[2]));
  }
  async debug() {
    this.calls.push("debug");
    return { debuggerFullscreenUrl: "https://live.example.test/?token=sk-abcdefabcdefabcdef", debuggerUrl: "", wsUrl: "", pages: [] };
  }
}

const spec = { image: "chromium", lifetimeMs: 120_000, network: "open" as const, labels: { "agentrun.test": "bb-unit" } };

function provider(api = new MemoryApi()) {
  return { api, p: create({ api, projectId: "proj-1", pollMs: 1 }) };
}

describe("Browserbase: check refuses before any call", () => {
  it.each([
    ["an image other than chromium", { image: "firefox" }, "image", "a Browserbase browser's image is chromium"],
    ["a lifetime past the cap", { lifetimeMs: 6 * 3_600_000 + 1 }, "lifetimeMs", "past this provider's cap of 21600000 ms (6 hours)"],
    ["a lifetime under the floor", { lifetimeMs: 59_999 }, "lifetimeMs", "below Browserbase's floor of 60000 ms"],
    ["a network other than open", { network: "none" }, "network", "network is open alone"],
    ["a size", { cpus: 2 }, "cpus", "cpus is not something a Browserbase browser has"],
    ["a user", { user: "1000" }, "user", "user is not something"],
    ["a workdir", { workdir: "/w" }, "workdir", "workdir is not something"],
    ["a mount", { mount: { kind: "bind", source: "/tmp/x" } }, "mount", "mount is not something"],
    ["a label key with a character Browserbase refuses", { labels: { team_a: "x" } }, "labels", "a key is letters and digits, parts joined by dots"],
    ["the create label", { labels: { [CREATE_LABEL]: "x" } }, "labels", "is the provider's own"],
  ])("%s", async (_what, extra, field, words) => {
    const { api, p } = provider();
    const made = await p.create({ ...spec, ...extra } as never);
    expect(made.ok).toBe(false);
    if (made.ok) return;
    expect(made.error.refusals?.map((r) => r.field) ?? [made.error.field]).toContain(field);
    expect(made.error.message).toContain(words);
    expect(api.calls).toEqual([]);
  });

  it("joins every refusal in one answer", () => {
    const checked = provider().p.check({ image: "x", lifetimeMs: 0, network: "none", pids: 3 } as never);
    expect(checked.ok ? [] : checked.error.refusals!.map((r) => r.field)).toEqual(["image", "lifetimeMs", "network", "pids"]);
  });
});

describe("Browserbase: options", () => {
  it("refuses a missing key in words that name the option, never a value", () => {
    expect(() => create({ projectId: "p" } as never)).toThrow(/apiKey is required/);
    expect(() => create({ apiKey: "k", projectId: "" })).toThrow(/projectId is required/);
    expect(() => create({ apiKey: "bb_live_secret", projectId: "p", apiUrl: "http://api.example.test" })).toThrow(
      /neither https nor http to this machine's loopback/,
    );
    expect(() => create({ apiKey: "bb_live_secret", projectId: "p", apiUrl: "http://api.example.test" })).not.toThrow(/bb_live_secret/);
  });
});

describe("Browserbase: create, connect, list, release", () => {
  it("makes a keepAlive session with its labels in userMetadata, dots as _", async () => {
    const { api, p } = provider();
    const ref = orThrow(await p.create(spec));
    const session = api.sessions.get(ref.id)!;
    expect(session.keepAlive).toBe(true);
    expect(session.userMetadata).toMatchObject({ agentrun_test: "bb-unit", agentrun_computer: "1", agentrun_computer_name: ref.name });
    expect(Object.keys(session.userMetadata!)).toContain("agentrun_create");
    expect(api.calls.filter((c) => c === "create")).toHaveLength(1);
  });

  it("waits for a session that answers PENDING until it runs", async () => {
    const { api, p } = provider();
    api.startsPending = true;
    const ref = orThrow(await p.create(spec));
    expect(api.sessions.get(ref.id)!.status).toBe("RUNNING");
    expect(api.calls.filter((c) => c === "retrieve").length).toBeGreaterThanOrEqual(2);
  });

  it("gives cdp.url at connect and in no ref, list, or JSON", async () => {
    const { p } = provider();
    const ref = orThrow(await p.create(spec));
    const conn = orThrow(await p.connect(ref));
    expect(conn.cdp!.url).toBe(SECRET_URL);
    expect(JSON.stringify(conn)).not.toContain("signingKey");
    expect(JSON.stringify(ref)).not.toContain("signingKey");
    const listed = orThrow(await p.list({ "agentrun.test": "bb-unit" }));
    expect(JSON.stringify(listed)).not.toContain("signingKey");
    expect(listed[0]!.labels).toEqual({ "agentrun.test": "bb-unit", "agentrun.computer": "1", "agentrun.computer.name": ref.name });
  });

  it("answers hello and ping from the API and refuses every other method in words", async () => {
    const { p } = provider();
    const ref = orThrow(await p.create(spec));
    const conn = orThrow(await p.connect(ref));
    expect(await conn.client.call("hello", {})).toMatchObject({ kind: "browser", os: "linux", groups: [], version: p.version });
    expect(await conn.client.call("ping", {})).toEqual({});
    await expect(conn.client.call("exec.run", { argv: ["true"] })).rejects.toMatchObject({ kind: "unsupported", message: /drive it over CDP/ });
  });

  it("takes at least one label to list or attach by labels", async () => {
    const { api, p } = provider();
    const listed = await p.list({});
    expect(listed.ok ? "" : listed.error.message).toMatch(/take at least one label/);
    const attached = await p.attach({ labels: {} });
    expect(attached.ok).toBe(false);
    expect(api.calls).toEqual([]);
  });

  it("matches every label itself, past the first the vendor was asked by", async () => {
    const { p } = provider();
    orThrow(await p.create({ ...spec, labels: { "agentrun.test": "bb-unit", run: "a" } }));
    orThrow(await p.create({ ...spec, labels: { "agentrun.test": "bb-unit", run: "b" } }));
    expect(orThrow(await p.list({ "agentrun.test": "bb-unit", run: "b" })).map((c) => c.labels.run)).toEqual(["b"]);
    expect(orThrow(await p.attach({ labels: { "agentrun.test": "bb-unit", run: "a" } })).spec).toMatchObject({ image: "chromium", network: "open" });
  });

  it("releases idempotently: an ended or unknown session is released", async () => {
    const { p } = provider();
    const ref = orThrow(await p.create(spec));
    expect(await p.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    expect(await p.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    expect(await p.release({ ...ref, id: "never-was" }, "delete")).toEqual({ ok: true, value: undefined });
    const conn = await p.connect(ref);
    expect(conn.ok ? "" : conn.error.code).toBe("gone");
    expect((await p.release(ref, "stop")).ok).toBe(false);
  });
});

describe("Browserbase: a failed call names the call and the status, never the vendor's words", () => {
  it("a 400 create makes nothing and is not looked for", async () => {
    const { api, p } = provider();
    api.createFault = "400";
    const made = await p.create(spec);
    expect(made.ok ? "" : made.error.message).toBe("POST /v1/sessions: Browserbase answered HTTP 400");
    expect(causeOf(made)).toBeInstanceOf(SdkError);
    expect(JSON.stringify(made)).not.toContain("vendor's own words");
    expect(api.calls).toEqual(["create"]);
  });

  it("a refused key is unauthorized in words", async () => {
    const api = new MemoryApi();
    api.list = async () => {
      throw new SdkError(401, "Invalid API key bb_live_0123456789abcdef");
    };
    const tested = await create({ api, projectId: "p" }).testConnection();
    expect(tested.ok ? "" : tested.error.code).toBe("unauthorized");
    expect(JSON.stringify(tested)).not.toContain("bb_live");
  });
});

describe("Browserbase: a create whose outcome is unknown never sends a second create", () => {
  it.each([
    ["answered 500", "500"],
    ["answered with no browser", "no-browser"],
  ] as const)("%s: it finds what its label made, releases it, and says so", async (_what, fault) => {
    const { api, p } = provider();
    api.createFault = fault;
    const made = await p.create(spec);
    expect(made.ok).toBe(false);
    expect(made.ok ? "" : made.error.message).toMatch(/found 1 browser it made by its create label and released it/);
    expect(api.calls.filter((c) => c === "create")).toHaveLength(1);
    expect([...api.sessions.values()].map((s) => s.status)).toEqual(["COMPLETED"]);
  });

  it("cut off by the caller's signal during the POST: the same", async () => {
    const { api, p } = provider();
    api.createFault = "hang";
    const controller = new AbortController();
    const made = p.create(spec, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const result = await made;
    expect(result.ok ? "" : result.error.code).toBe("aborted");
    expect(result.ok ? "" : result.error.message).toMatch(/released it/);
    expect([...api.sessions.values()].map((s) => s.status)).toEqual(["COMPLETED"]);
  });

  it("aborted before the POST: nothing is sent", async () => {
    const { api, p } = provider();
    const made = await p.create(spec, { signal: AbortSignal.abort() });
    expect(made.ok ? "" : made.error.code).toBe("aborted");
    expect(api.calls).toEqual([]);
  });
});

describe("Browserbase: the owner's idempotent create", () => {
  it("adopts the browser an interrupted create of the same owner and spec left, in a process that did not make it", async () => {
    const api = new MemoryApi();
    const first = orThrow(await create({ api, projectId: "p", pollMs: 1 }).create(spec, { owner: "stack/urn:b" }));
    // A new process (the plugin started again): the same owner and spec find that browser, and make none.
    const again = create({ api, projectId: "p", pollMs: 1 });
    const adopted = orThrow(await again.create(spec, { owner: "stack/urn:b" }));
    expect(adopted.id).toBe(first.id);
    expect(api.calls.filter((c) => c === "create")).toHaveLength(1);
    expect(orThrow(await again.connect(adopted)).cdp!.url).toBe(SECRET_URL);
  });

  it("releases one of the same owner and spec that ended badly (labels changed), and makes another", async () => {
    const api = new MemoryApi();
    const first = orThrow(await create({ api, projectId: "p", pollMs: 1 }).create(spec, { owner: "stack/urn:c" }));
    api.sessions.get(first.id)!.userMetadata!.agentrun_test = "changed";
    // The declaration label still names it, and its labels are not the ones declared: released, and a new one made.
    const made = orThrow(await create({ api, projectId: "p", pollMs: 1 }).create(spec, { owner: "stack/urn:c" }));
    expect(made.id).not.toBe(first.id);
    expect(api.sessions.get(first.id)!.status).toBe("COMPLETED");
  });
});

describe("the live conformance modules are gated", () => {
  it("build no provider without the switch, and never read the vendors' bare variables", async () => {
    const bb = await import("../../src/browserbase/conformance/module.js");
    const kernel = await import("../../src/kernel/conformance/module.js");
    expect(() => bb.createProvider({ COMPUTER_BROWSERBASE_API_KEY: "k", COMPUTER_BROWSERBASE_PROJECT_ID: "p" })).toThrow(
      "a live Browserbase run needs AGENTRUN_COMPUTER_LIVE_BROWSERBASE=1",
    );
    expect(() => bb.createProvider({ AGENTRUN_COMPUTER_LIVE_BROWSERBASE: "1", BROWSERBASE_API_KEY: "bb_live_x", BROWSERBASE_PROJECT_ID: "p" })).toThrow(
      /needs COMPUTER_BROWSERBASE_API_KEY and COMPUTER_BROWSERBASE_PROJECT_ID \(BROWSERBASE_API_KEY is never read/,
    );
    expect(() => kernel.createProvider({ AGENTRUN_COMPUTER_LIVE_KERNEL: "1", KERNEL_API_KEY: "k" })).toThrow(
      /needs COMPUTER_KERNEL_API_KEY \(KERNEL_API_KEY is never read/,
    );
    expect(kernel.createProvider({ AGENTRUN_COMPUTER_LIVE_KERNEL: "1", COMPUTER_KERNEL_API_KEY: "k" }).id).toBe("kernel");
    expect(bb.conformanceImage()).toBe("chromium");
  });
});
