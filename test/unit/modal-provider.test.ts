// The Modal provider against an in-memory slice of the SDK (no Docker): check's refusals, the
// tags' round trip, the upload's sha256 refused, the bounds on every call with a late sandbox
// terminated, release's wait, and stop refused. The Docker-backed fake runs the rest
// (test/docker/modal-*.test.ts).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { bounded, codeOf } from "../../src/modal/calls.js";
import { CAPABILITIES, create, ModalProvider } from "../../src/modal/index.js";
import { checkSpec } from "../../src/modal/check.js";
import { UPLOAD } from "../../src/modal/commands.js";
import { DAEMON_PART } from "../../src/kits/daemon-upload/scripts.js";
import { MAX_LIFETIME_MS } from "../../src/modal/constants.js";
import type { ModalProcess, ModalSandbox, ModalSdk } from "../../src/modal/sdk.js";
import { labelsOf, ownTagsOf, tagDrift, tagsOf } from "../../src/modal/tags.js";
import { upload } from "../../src/modal/upload.js";
import { DEFAULT_IMAGE as MODAL_DEFAULT_IMAGE } from "../../src/modal/constants.js";
import { sweep } from "../../src/fleet/janitor.js";
import { DAEMON_IN_COMPUTER } from "../../src/contract/daemon-path.js";

const dir = mkdtempSync(path.join(tmpdir(), "modal-provider-"));
const daemonPath = path.join(dir, "computerd");
writeFileSync(daemonPath, Buffer.alloc(600 * 1024, 7));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const never = <T>() => new Promise<T>(() => undefined);
class NotFoundError extends Error {
  override name = "NotFoundError";
}

/** A sandbox whose exec runs locally under dash, with the daemon's path moved into a directory. */
function localSandbox(id: string, state: { code: number | null; terminated: number }): ModalSandbox {
  return {
    sandboxId: id,
    getTags: async () => ({}),
    poll: async () => state.code,
    terminate: async () => {
      state.terminated++;
      state.code = 137;
    },
    exec: async (argv) => {
      const script = argv[2]!.replaceAll(DAEMON_PART, `${dir}/${id}.part`).replaceAll(DAEMON_IN_COMPUTER, `${dir}/${id}`);
      const child = spawn("dash", ["-c", script, ...argv.slice(3).map((a) => a.replaceAll(DAEMON_IN_COMPUTER, `${dir}/${id}`))]);
      const exited = new Promise<number>((resolve) => child.once("close", (code) => resolve(code ?? 1)));
      return {
        stdin: Writable.toWeb(child.stdin),
        stdout: Readable.toWeb(child.stdout),
        stderr: Readable.toWeb(child.stderr),
        wait: () => exited,
      } as unknown as ModalProcess;
    },
    snapshotFilesystem: never,
  };
}

function sdkWith(sandboxes: Partial<ModalSdk["sandboxes"]>): ModalSdk {
  const image = { imageId: "im-1", dockerfileCommands: () => image };
  return {
    apps: { fromName: async () => ({ appId: "ap-1" }) },
    images: { fromRegistry: () => image, fromId: never, delete: never },
    sandboxes: { create: never, fromId: never, list: async function* () {}, ...sandboxes },
  };
}

const spec = { image: "debian:bookworm-slim", lifetimeMs: 60_000, network: "none" as const };

describe("the SDK's errors as codes", () => {
  // nice-grpc's ClientError, as the real SDK passes a control-plane status on (seen at the wire).
  const grpcError = (code: number, status: string) =>
    Object.assign(new Error(`/modal.client.ModalClient/SandboxCreateV2 ${status}: words`), { name: "ClientError", code, details: "words" });

  it("reads a gRPC status by its code: a 429 is the limit, a 5xx unreachable, a refused token unauthorized", () => {
    expect(codeOf(grpcError(8, "RESOURCE_EXHAUSTED"))).toBe("limit");
    expect(codeOf(grpcError(14, "UNAVAILABLE"))).toBe("unreachable");
    expect(codeOf(grpcError(16, "UNAUTHENTICATED"))).toBe("unauthorized");
    expect(codeOf(grpcError(7, "PERMISSION_DENIED"))).toBe("unauthorized");
    expect(codeOf(grpcError(5, "NOT_FOUND"))).toBe("not_found");
    expect(codeOf(grpcError(3, "INVALID_ARGUMENT"))).toBe("invalid");
    expect(codeOf(grpcError(13, "INTERNAL"))).toBe("failed");
  });

  it("reads the SDK's named errors by name", () => {
    const named = (name: string) => Object.assign(new Error("words"), { name });
    expect(["NotFoundError", "InvalidError", "ConflictError", "ResourceExhaustedError"].map((n) => codeOf(named(n)))).toEqual([
      "not_found",
      "invalid",
      "gone",
      "limit",
    ]);
  });
});

describe("check", () => {
  const refusals = (s: object) => checkSpec(s as never, CAPABILITIES).map((r) => `${r.field}: ${r.message}`);
  it.each([
    ["root by number", { user: "0" }, /^user: a Modal computer never runs as root/],
    ["root with a group", { user: "0:1000" }, /^user: a Modal computer never runs as root/],
    ["root by name", { user: "root" }, /^user: a Modal computer never runs as root/],
    ["root by name with a group", { user: "root:1000" }, /^user: a Modal computer never runs as root/],
    ["root's group", { user: "1000:0" }, /^user: .*root's group/],
    ["pids", { pids: 100 }, /^pids: pids is refused: Modal has no pids limit/],
    ["a GPU", { gpu: "A100" }, /^gpu: a GPU is refused: .*gVisor only/],
    ["past 24 hours", { lifetimeMs: MAX_LIFETIME_MS + 1 }, /^lifetimeMs: lifetimeMs is past this provider's cap of 86400000 ms \(1 day\)/],
    ["network open", { network: "open" }, /^network: network open is refused on Modal for now/],
    ["an allowlist", { network: { allow: ["example.com"] } }, /^network: an allowlist is refused on Modal/],
    ["a mount", { mount: { kind: "bind", path: "/tmp/x" } }, /^mount: this provider does not take a mount of kind bind; it takes no mount/],
    ["cpus under 0.25", { cpus: 0.2 }, /^cpus: cpus is a number of CPUs from 0.25/],
    ["memory under 128 MiB", { memoryMb: 64 }, /^memoryMb: memoryMb is a whole number of MiB from 128/],
    ["a desktop", { kind: "desktop" }, /^kind: Modal makes linux computers, not desktop/],
    // 10 tags: 4 the provider's, so the spec's 6 are a computer's own.
    [
      "seven labels",
      { labels: Object.fromEntries([1, 2, 3, 4, 5, 6, 7].map((n) => [`l${n}`, "v"])) },
      /^labels: a Modal computer takes at most 6 labels of its own \(Modal keeps at most 10 tags a sandbox, and 4 are the provider's\); this spec has 7$/,
    ],
    [
      "the owner label",
      { labels: { "agentrun.owner": "x" } },
      /^labels: the label agentrun.owner is the provider's own \(it ties a computer to the resource it was made for\)/,
    ],
    ["the provider's own tag", { labels: { "agentrun.computer.name": "x" } }, /^labels: the label agentrun.computer.name is in the provider's own namespace/],
  ])("refuses %s, in words, naming the field", (_what, extra, words) => {
    const found = refusals({ ...spec, ...extra });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(words);
  });

  it("takes the spec's 6 labels; for a resource, whose owner and declaration labels take 2 of Modal's 10 tags, 4", async () => {
    const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, "v"]));
    expect(refusals({ ...spec, labels: labels(6) })).toEqual([]);
    expect(checkSpec({ ...spec, labels: labels(4) } as never, CAPABILITIES, true)).toEqual([]);
    const owned = checkSpec({ ...spec, labels: labels(5) } as never, CAPABILITIES, true).map((r) => `${r.field}: ${r.message}`);
    expect(owned).toEqual([
      "labels: a Modal computer made for a resource takes at most 4 labels of its own (Modal keeps at most 10 tags a sandbox: 4 are the provider's, and 2 tie it to the resource it is made for); this spec has 5",
    ]);
    // The provider's check takes who the computer is for; a create for an owner refuses 5 before any Modal call.
    const provider = new ModalProvider({ sdk: sdkWith({}), app: "app", daemonPath });
    expect(provider.check({ ...spec, labels: labels(6) }).ok).toBe(true);
    expect(provider.check({ ...spec, labels: labels(5) }, { owned: true })).toMatchObject({ ok: false, error: { field: "labels" } });
    const made = await provider.create({ ...spec, labels: labels(5) }, { owner: "/work/stack\0urn:five" });
    expect(made).toMatchObject({ ok: false, error: { code: "invalid", message: expect.stringContaining("made for a resource takes at most 4 labels") } });
  });

  it("takes a plain spec, and refuses every field at once", () => {
    expect(refusals({ ...spec, user: "1000:1000", cpus: 0.5, memoryMb: 512, workdir: "/srv", labels: { a: "b" } })).toEqual([]);
    expect(refusals({ image: "", lifetimeMs: 0, network: "open", pids: 1, user: "0" }).map((r) => r.split(":")[0])).toEqual([
      "image",
      "lifetimeMs",
      "network",
      "pids",
      "user",
    ]);
  });

  it("refuses root in create before any Modal call", async () => {
    let calls = 0;
    const provider = new ModalProvider({ sdk: sdkWith({ create: async () => (calls++, never()) }), app: "a", daemonPath });
    const made = await provider.create({ ...spec, user: "root" });
    expect(made).toMatchObject({ ok: false, error: { code: "invalid", field: "user" } });
    expect(calls).toBe(0);
  });

  it("declares the spec's capabilities: vm, pid1, none alone, delete alone, uid only, no vendor agent port", () => {
    const c = new ModalProvider({ sdk: sdkWith({}), app: "a", daemonPath, maxLifetimeMs: 3_600_000 }).capabilities();
    expect(c).toMatchObject({
      kind: "linux",
      daemon: "pid1",
      groups: ["exec", "files", "processes"],
      lifetime: "vendor",
      maxLifetimeMs: 3_600_000,
      network: ["none"],
      networkReadBack: false,
      release: ["delete"],
      user: ["uid"],
      mount: [],
      vendorAgentPorts: [],
    });
    expect(c.defaults).toEqual({ image: MODAL_DEFAULT_IMAGE, workdir: "/work", user: "2510:2510" });
  });

  it("tests its token with one read of the app that makes nothing: a missing app is still a connection", async () => {
    const asked: Array<boolean | undefined> = [];
    const sdk = (found: boolean): ModalSdk => ({
      ...sdkWith({}),
      apps: {
        fromName: async (_name, params) => {
          asked.push(params?.createIfMissing);
          if (!found) throw new NotFoundError("App 'a' not found");
          return { appId: "ap-1" };
        },
      },
    });
    expect(await new ModalProvider({ sdk: sdk(true), app: "a", daemonPath }).testConnection()).toEqual({
      ok: true,
      value: { detail: "Modal answers; the app a is there" },
    });
    expect(await new ModalProvider({ sdk: sdk(false), app: "a", daemonPath }).testConnection()).toEqual({
      ok: true,
      value: { detail: "Modal answers; the app a is not made yet (its first computer makes it)" },
    });
    expect(asked).toEqual([false, false]);
  });

  it("is refused by the janitor's sweep: Modal ends its sandboxes itself", async () => {
    const swept = await sweep(new ModalProvider({ sdk: sdkWith({}), app: "a", daemonPath }));
    expect(swept).toMatchObject({
      ok: false,
      error: { code: "unsupported", message: expect.stringMatching(/declares lifetime "vendor": its vendor ends its computers/) },
    });
  });

  it("refuses options in words: no app, root, a daemonImage by tag, both daemon sources, no token", () => {
    const sdk = sdkWith({});
    expect(() => new ModalProvider({ sdk, app: "" })).toThrow(/app is required/);
    expect(() => new ModalProvider({ sdk, app: "a", user: "0:0" })).toThrow(/never runs as root/);
    expect(() => new ModalProvider({ sdk, app: "a", daemonImage: "r/d:latest" })).toThrow(/pinned by digest/);
    expect(() => new ModalProvider({ sdk, app: "a", daemonPath, daemonImage: `r/d@sha256:${"0".repeat(64)}` })).toThrow(/not both/);
    expect(() => create({ app: "a", tokenId: "ak-x" })).toThrow(/needs tokenSecret/);
    expect(() => create({ tokenId: "ak-x", tokenSecret: "as-secret-value" } as never)).toThrow(/app is required/);
  });
});

describe("tags", () => {
  it("round-trip: the provider's four beside the caller's labels, read back exactly", () => {
    const recorded = { image: "debian:bookworm-slim", user: "2510:2510", network: "none" as const, workdir: "/work", kind: "linux" as const, cpus: 1 };
    const tags = tagsOf("computer-0123456789ab", "2026-12-01T00:00:00.000Z", recorded, { "agentrun.run": "r1" });
    expect(Object.keys(tags).sort()).toEqual([
      "agentrun.computer",
      "agentrun.computer.deadline",
      "agentrun.computer.name",
      "agentrun.computer.spec",
      "agentrun.run",
    ]);
    expect(ownTagsOf(tags)).toEqual({ ok: true, value: { name: "computer-0123456789ab", deadline: "2026-12-01T00:00:00.000Z", spec: recorded } });
    expect(labelsOf(tags)).toEqual({ "agentrun.run": "r1" });
    expect(tagDrift(tags, { ...tags })).toEqual([]);
    expect(tagDrift(tags, { ...tags, "agentrun.run": "r2", extra: "x" })).toEqual([
      "the tag agentrun.run reads another value than was given",
      "the tag extra was not given",
    ]);
    expect(ownTagsOf({ ...tags, "agentrun.computer.spec": "{" })).toEqual({ ok: false, why: "its agentrun.computer.spec tag is not JSON" });
    expect(ownTagsOf({ ...tags, "agentrun.computer": "0" })).toMatchObject({ ok: false });
  });
});

describe("the upload", () => {
  it("puts the daemon in place when its sha256 reads back, and refuses one that does not", async () => {
    const state = { code: null, terminated: 0 };
    const bytes = Buffer.alloc(700 * 1024, 3);
    const { createHash } = await import("node:crypto");
    const sha = createHash("sha256").update(bytes).digest("hex");
    const argv = ["sh", "-c", UPLOAD, "sh", DAEMON_IN_COMPUTER];
    const good = await upload(localSandbox("good", state), { argv: [...argv, sha], bytes, sha256: sha, uploadMs: 20_000, callMs: 5_000 });
    expect(good).toEqual({ ok: true, value: undefined });
    const bad = await upload(localSandbox("bad", state), {
      argv: [...argv, sha],
      bytes: Buffer.from(bytes.subarray(1)),
      sha256: sha,
      uploadMs: 20_000,
      callMs: 5_000,
    });
    expect(bad).toMatchObject({ ok: false, error: { code: "refused" } });
    expect(bad.ok ? "" : bad.error.message).toMatch(/read back sha256 [0-9a-f]{64}, not the provider's/);
  });

  it("is bounded by uploadMs, and create terminates the sandbox and waits for it", async () => {
    const state = { code: null as number | null, terminated: 0 };
    const sandbox: ModalSandbox = { ...localSandbox("slow", state), exec: never };
    const provider = new ModalProvider({
      sdk: sdkWith({ create: async () => sandbox }),
      app: "a",
      daemonPath,
      timeouts: { uploadMs: 300, callMs: 200, releasePollMs: 10 },
    });
    const made = await provider.create(spec);
    expect(made).toMatchObject({ ok: false, error: { code: "timeout" } });
    expect(made.ok ? "" : made.error.message).toMatch(/upload .* did not answer within 0.2 s; sb?.*|slow was terminated/);
    expect(state.terminated).toBe(1);
  });
});

describe("bounds", () => {
  it("a call past its bound is a timeout, one aborted is aborted, and what lands later is handed to late", async () => {
    let resolve!: (v: string) => void;
    const late: string[] = [];
    const timedOut = await bounded(() => new Promise<string>((r) => (resolve = r)), { what: "x", ms: 20, late: (v) => late.push(v) });
    expect(timedOut).toEqual({ ok: false, error: { code: "timeout", message: "x did not answer within 0.02 s" } });
    resolve("landed");
    await new Promise((r) => setTimeout(r, 10));
    expect(late).toEqual(["landed"]);
    const controller = new AbortController();
    const pending = bounded(never, { what: "y", ms: 10_000, signal: controller.signal });
    controller.abort();
    expect(await pending).toEqual({ ok: false, error: { code: "aborted", message: "y was aborted" } });
    const thrown = await bounded(
      async () => {
        throw new NotFoundError("Sandbox sb-1 not found");
      },
      { what: "poll", ms: 1000 },
    );
    expect(thrown).toEqual({ ok: false, error: { code: "not_found", message: "poll: NotFoundError: Sandbox sb-1 not found" } });
  });

  it("a create that gives up terminates the sandbox that lands later", async () => {
    const state = { code: null as number | null, terminated: 0 };
    let land!: (s: ModalSandbox) => void;
    const provider = new ModalProvider({
      sdk: sdkWith({ create: () => new Promise((r) => (land = r)) }),
      app: "a",
      daemonPath,
      timeouts: { createMs: 50, releasePollMs: 10 },
    });
    const made = await provider.create(spec);
    expect(made).toMatchObject({ ok: false, error: { code: "timeout" } });
    land(localSandbox("late", state));
    await new Promise((r) => setTimeout(r, 100));
    expect(state.terminated).toBe(1);
  });

  it("release refuses stop in words, and its wait past releaseMs says what poll() last read", async () => {
    const state = { code: null as number | null, terminated: 0 };
    const tags = tagsOf("computer-0123456789ab", "2026-12-01T00:00:00.000Z", {
      image: "i",
      user: "2510:2510",
      network: "none",
      workdir: "/work",
      kind: "linux",
    });
    const stuck: ModalSandbox = { ...localSandbox("stuck", state), getTags: async () => tags, terminate: async () => void state.terminated++ };
    const provider = new ModalProvider({ sdk: sdkWith({ fromId: async () => stuck }), app: "a", daemonPath, timeouts: { releaseMs: 200, releasePollMs: 20 } });
    const ref = { id: "sb-1", name: "computer-0123456789ab", provider: "modal" };
    expect(await provider.release(ref, "stop")).toMatchObject({ ok: false, error: { code: "unsupported", field: "how" } });
    expect(state.terminated).toBe(0);
    const released = await provider.release(ref, "delete");
    expect(released).toMatchObject({ ok: false, error: { code: "timeout" } });
    expect(released.ok ? "" : released.error.message).toMatch(/may still be ending: .*poll\(\) null: still running/);
    // A sandbox Modal no longer knows is released.
    const gone = new ModalProvider({
      sdk: sdkWith({
        fromId: async () => ({
          ...stuck,
          getTags: async () => {
            throw new NotFoundError("gone");
          },
        }),
      }),
      app: "a",
      daemonPath,
    });
    expect(await gone.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    // One whose tags name another computer is not touched.
    const other = new ModalProvider({ sdk: sdkWith({ fromId: async () => stuck }), app: "a", daemonPath });
    const ended = state.terminated;
    const notIt = { ok: false, error: { code: "not_found", detail: { kind: "not-the-computer", id: "sb-1" } } };
    expect(await other.release({ ...ref, name: "computer-ffffffffffff" }, "delete")).toMatchObject(notIt);
    // Nor is one this provider did not make (no tags of its own).
    const foreign = new ModalProvider({ sdk: sdkWith({ fromId: async () => ({ ...stuck, getTags: async () => ({}) }) }), app: "a", daemonPath });
    expect(await foreign.release(ref, "delete")).toMatchObject(notIt);
    expect(state.terminated).toBe(ended);
  });
});
