// ModalProvider: the ComputerProvider interface on Modal's VM sandboxes, through the ModalSdk
// slice. The commands, the upload, the bridge, the tags and the drift check live in their own
// files; this one wires them into create, connect, attach, list, network and release.
import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { CallOptions } from "../daemon/client.js";
import type { Hello } from "../daemon/protocol.js";
import type {
  AttachBy,
  Capabilities,
  ComputerInfo,
  ComputerProvider,
  ComputerRef,
  ComputerSpec,
  Connection,
  CreateOptions,
  NetworkPolicy,
  NetworkReadBack,
  ReadBack,
  ReleaseHow,
  SpecReadBack,
  CheckedSpec,
} from "../vendor/provider.js";
import { DEFAULT_IMAGE as MODAL_DEFAULT_IMAGE } from "./constants.js";
import { MAX_PROBE_TARGETS } from "../vendor/probe.js";
import { checkedSpec } from "../vendor/checked.js";
import { fail, ok, OptionError, refuse, type Result, type ResultCode } from "../vendor/result.js";
import { parseUser, userText } from "../vendor/user.js";
import { waitUntil } from "../vendor/wait.js";
import { bounded, codeOf, wordsOf } from "./calls.js";
import { checkSpec, modalUserProblem } from "./check.js";
import { BRIDGE, imageEntrypoint, imageLayer, modalCommands } from "./commands.js";
import { openBridge } from "./connect.js";
import { upload } from "./upload.js";
import {
  COMPUTER_TAG,
  CPU_REQUEST_CORES,
  DEFAULT_USER,
  HOME,
  MAX_LIFETIME_MS,
  MEMORY_REQUEST_MIB,
  NAME_PATTERN,
  NAME_TAG,
  TIMEOUTS,
  type ModalTimeouts,
} from "./constants.js";
import { helloDrift, probeNone, type HelloWant } from "./readback.js";
import type { ModalApp, ModalSandbox, ModalSdk, SandboxCreateParams } from "./sdk.js";
import { labelsOf, ownTagsOf, type OwnTags, type RecordedSpec, tagDrift, tagsOf } from "./tags.js";
import { packageVersion } from "../package.js";
import { packagedDaemon } from "./settings.js";
import { boundedBy } from "../vendor/bound.js";
import { attachedIf } from "../vendor/attach.js";
import { adoptOrClear, type Claims } from "../vendor/adopt.js";
import { labelsWithClaim } from "../vendor/labels.js";

export interface ModalProviderOptions {
  /** The host's own client (new ModalClient(...)), a fake of the slice, or a loader of one (made at the first call). */
  sdk: ModalSdk | (() => Promise<ModalSdk>);
  /** The app every sandbox is made in and listed from. */
  app: string;
  environment?: string;
  /** The daemon to upload: computerd for linux/amd64 (default this package's dist/computerd-linux-amd64). */
  daemonPath?: string;
  /** A registry image holding this version's daemon at /computerd, pinned by digest; then nothing is uploaded. */
  daemonImage?: string;
  /** The computer's user when a spec names none (default 2510:2510); never root. */
  user?: string;
  /** The longest lifetime (default and most 24 hours). */
  maxLifetimeMs?: number;
  /** The probe's targets (default Modal's: three resolvers on 443, DNS over UDP). */
  probeTargets?: string[];
  /** The version hello must report (default this package's); only a drifted provider sets another. */
  version?: string;
  timeouts?: Partial<ModalTimeouts>;
}

export const CAPABILITIES: Capabilities = {
  kind: "linux",
  os: "linux",
  daemon: "pid1",
  groups: ["exec", "files", "processes"],
  lifetime: "vendor",
  maxLifetimeMs: MAX_LIFETIME_MS,
  network: ["none"],
  networkReadBack: false,
  release: ["delete"],
  user: ["uid"],
  mount: [],
  vendorAgentPorts: [],
  isolation: "vm",
  defaults: { image: MODAL_DEFAULT_IMAGE, workdir: HOME, user: DEFAULT_USER },
};

const DIGEST = /@sha256:[0-9a-f]{64}$/;

type Finished = { code: number | null } | { gone: true };
const isFinished = (s: Finished) => "gone" in s || s.code !== null;
const finishedWords = (s: Finished) => ("gone" in s ? "Modal no longer knows it" : s.code === null ? "poll() null: still running" : `exit code ${s.code}`);

export class ModalProvider implements ComputerProvider {
  readonly id = "modal";
  readonly version: string;
  readonly #sdk: () => Promise<ModalSdk>;
  readonly #app: string;
  readonly #environment: string | undefined;
  readonly #daemonPath: string | undefined;
  readonly #daemonImage: string | undefined;
  readonly #user: string;
  readonly #maxLifetimeMs: number;
  readonly #probeTargets: string[] | undefined;
  readonly #t: ModalTimeouts;
  #appRead: Promise<Result<ModalApp>> | undefined;
  #daemon: Promise<{ bytes: Uint8Array; sha256: string }> | undefined;

  constructor(options: ModalProviderOptions) {
    const sdk = options?.sdk as Partial<ModalSdk> | undefined;
    if (
      typeof sdk !== "function" &&
      (!sdk || typeof sdk.sandboxes?.create !== "function" || typeof sdk.apps?.fromName !== "function" || typeof sdk.images?.fromRegistry !== "function")
    ) {
      throw new TypeError("ModalProvider needs sdk: the host's ModalClient (new ModalClient({ tokenId, tokenSecret })), or a fake of the ModalSdk slice");
    }
    if (typeof options.app !== "string" || options.app.length === 0 || options.app.length > 64) {
      throw new TypeError("ModalProvider needs app: the name of the Modal app its sandboxes are made in (up to 64 characters)");
    }
    if (options.daemonImage !== undefined) {
      if (options.daemonPath !== undefined) throw new TypeError("ModalProvider takes daemonImage or daemonPath, not both: the daemon comes from one place");
      if (typeof options.daemonImage !== "string" || !DIGEST.test(options.daemonImage)) {
        throw new OptionError("daemonImage", "ModalProvider's daemonImage", " is a registry image pinned by digest (name@sha256:<64 hex>), never a tag");
      }
    }
    if (options.daemonPath !== undefined && (typeof options.daemonPath !== "string" || options.daemonPath.length === 0)) {
      throw new OptionError("daemonPath", "ModalProvider's daemonPath", " is the path of computerd for linux/amd64");
    }
    if (options.user !== undefined) {
      const problem = modalUserProblem(options.user);
      if (problem) throw new OptionError("user", "ModalProvider's user option", `: ${problem}`);
    }
    const max = options.maxLifetimeMs ?? MAX_LIFETIME_MS;
    if (!Number.isInteger(max) || max < 1000 || max > MAX_LIFETIME_MS) {
      throw new OptionError(
        "maxLifetimeMs",
        "ModalProvider's maxLifetimeMs",
        ` is a whole number of milliseconds from 1000 to ${MAX_LIFETIME_MS} (Modal's 24 hours)`,
      );
    }
    if (options.probeTargets !== undefined) {
      const t = options.probeTargets;
      if (!Array.isArray(t) || t.length === 0 || t.length > MAX_PROBE_TARGETS || !t.every((x) => typeof x === "string" && x.length > 0)) {
        throw new OptionError("probeTargets", "ModalProvider's probeTargets", ` is a list of 1 to ${MAX_PROBE_TARGETS} host:port or host:port/udp targets`);
      }
    }
    for (const [key, value] of Object.entries(options.timeouts ?? {})) {
      if (!(key in TIMEOUTS) || !Number.isInteger(value) || (value as number) <= 0) {
        throw new OptionError(
          `timeouts.${key}`,
          `ModalProvider's timeouts.${key}`,
          ` is not a bound it takes (${Object.keys(TIMEOUTS).join(", ")}, each a whole number of ms)`,
        );
      }
    }
    const given = options.sdk;
    let loaded: Promise<ModalSdk> | undefined;
    this.#sdk =
      typeof given === "function"
        ? () => (loaded ??= given().catch((error: unknown) => ((loaded = undefined), Promise.reject(error))))
        : () => Promise.resolve(given);
    this.#app = options.app;
    this.#environment = options.environment;
    this.#daemonPath = options.daemonPath;
    this.#daemonImage = options.daemonImage;
    const user = parseUser(options.user ?? DEFAULT_USER);
    this.#user = user.ok ? userText(user.value) : DEFAULT_USER;
    this.#maxLifetimeMs = max;
    this.#probeTargets = options.probeTargets ? [...options.probeTargets] : undefined;
    this.#t = { ...TIMEOUTS, ...options.timeouts };
    this.version = options.version ?? packageVersion();
  }

  capabilities(): Capabilities {
    const capabilities = structuredClone(CAPABILITIES);
    capabilities.maxLifetimeMs = this.#maxLifetimeMs;
    capabilities.defaults = { ...capabilities.defaults, user: this.#user };
    return capabilities;
  }

  check(spec: ComputerSpec): Result<CheckedSpec> {
    return checkedSpec(spec, checkSpec(spec, this.capabilities()));
  }

  #want(): HelloWant {
    return { version: this.version, kind: CAPABILITIES.kind, groups: CAPABILITIES.groups };
  }

  /** The provider's app, made if missing, read once; a failed read is not kept. */
  #appOf(signal: AbortSignal | undefined): Promise<Result<ModalApp>> {
    this.#appRead ??= bounded(
      async () => (await this.#sdk()).apps.fromName(this.#app, { createIfMissing: true, ...(this.#environment ? { environment: this.#environment } : {}) }),
      { what: `apps.fromName of ${this.#app}`, ms: this.#t.callMs },
    ).then((r) => {
      if (!r.ok) this.#appRead = undefined;
      return r;
    });
    const read = this.#appRead;
    if (!signal) return read;
    if (signal.aborted) return Promise.resolve(fail("aborted", "reading the Modal app was aborted"));
    return new Promise((resolve) => {
      const onAbort = () => resolve(fail("aborted", "reading the Modal app was aborted"));
      signal.addEventListener("abort", onAbort, { once: true });
      void read.then((result) => {
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      });
    });
  }

  async #daemonBytes(): Promise<Result<{ bytes: Uint8Array; sha256: string }>> {
    const path = this.#daemonPath ?? packagedDaemon();
    this.#daemon ??= readFile(path).then((bytes) => ({ bytes, sha256: createHash("sha256").update(bytes).digest("hex") }));
    try {
      return ok(await this.#daemon);
    } catch (error) {
      this.#daemon = undefined;
      return fail(
        "invalid",
        `the daemon at ${path} could not be read (${(error as NodeJS.ErrnoException).code ?? "error"}); build it with npm run setup, or give daemonPath`,
        { field: "daemonPath" },
      );
    }
  }

  /** Reads poll() until it reports an exit code or Modal no longer knows the sandbox. */
  async #untilFinished(sandbox: ModalSandbox, signal: AbortSignal | undefined): Promise<Result<Finished>> {
    return waitUntil<Finished>(
      async () => {
        try {
          return { code: await sandbox.poll() };
        } catch (error) {
          if (codeOf(error) === "not_found") return { gone: true };
          throw error;
        }
      },
      isFinished,
      {
        boundMs: this.#t.releaseMs,
        minMs: this.#t.releasePollMs,
        maxMs: 5000,
        what: `${sandbox.sandboxId} to finish`,
        describe: finishedWords,
        ...(signal ? { signal } : {}),
      },
    );
  }

  /** terminate, whatever the caller's signal, then the wait, which takes it. */
  async #end(sandbox: ModalSandbox, signal: AbortSignal | undefined): Promise<Result<undefined>> {
    const sent = await bounded(() => sandbox.terminate(), { what: `terminate of ${sandbox.sandboxId}`, ms: this.#t.callMs });
    if (!sent.ok && sent.error.code !== "not_found") return sent;
    const waited = await this.#untilFinished(sandbox, signal);
    if (!waited.ok) return fail(waited.error.code, `${sandbox.sandboxId} may still be ending: ${waited.error.message}`);
    return ok();
  }

  /** A refusal of a sandbox create made: it is terminated and waited for, and the words say so. */
  async #refuseMade(sandbox: ModalSandbox, code: ResultCode, words: string, signal: AbortSignal | undefined): Promise<Result<never>> {
    const ended = await this.#end(sandbox, signal);
    return fail(code, ended.ok ? `${words}; ${sandbox.sandboxId} was terminated` : `${words}; ${ended.error.message}`);
  }

  /** Adoption's lookups: the running sandboxes of a declaration (Modal reads back no creation time), and delete. */
  #claims(): Claims {
    return {
      list: async (tags, options) => {
        const found = await this.#running(tags, options.signal);
        return found.ok
          ? ok(found.value.map(({ sandbox, own }) => ({ ref: { id: sandbox.sandboxId, name: own.name, provider: this.id }, state: "running" as const })))
          : found;
      },
      read: (by, options) => this.read(by, options),
      remove: (ref) => this.release(ref, "delete"),
      defaults: this.capabilities().defaults,
    };
  }

  async create(spec: ComputerSpec, options: CreateOptions = {}): Promise<Result<ComputerRef>> {
    const { signal } = options;
    const checked = this.check(spec);
    if (!checked.ok) return checked;
    if (signal?.aborted) return fail("aborted", "create was aborted before anything was made");
    const app = await this.#appOf(signal);
    if (!app.ok) return fail(app.error.code, `${app.error.message}; nothing was made`);
    const daemon = this.#daemonImage ? undefined : await this.#daemonBytes();
    if (daemon && !daemon.ok) return daemon;
    // A sandbox an interrupted create of the same owner and spec left: adopted when whole, else terminated.
    if (options.owner !== undefined) {
      const adopted = await adoptOrClear(this.#claims(), spec, options.owner, options);
      if (!adopted.ok) return adopted;
      if (adopted.value) return ok(adopted.value);
    }
    if (signal?.aborted) return fail("aborted", "create was aborted before Modal was asked; nothing was made");

    const name = `computer-${randomBytes(6).toString("hex")}`;
    const user = parseUser(spec.user ?? this.#user);
    if (!user.ok) return user;
    const userWords = userText(user.value);
    const workdir = spec.workdir ?? HOME;
    const lifetimeS = Math.ceil(spec.lifetimeMs / 1000);
    const deadline = new Date(Date.now() + spec.lifetimeMs).toISOString();
    const recorded: RecordedSpec = {
      image: spec.image,
      user: userWords,
      network: "none",
      workdir,
      kind: "linux",
      ...(spec.cpus === undefined ? {} : { cpus: spec.cpus }),
      ...(spec.memoryMb === undefined ? {} : { memoryMb: spec.memoryMb }),
    };
    // The owner's tags are in the create request itself: no moment exists when the sandbox is untagged.
    const tags = tagsOf(name, deadline, recorded, labelsWithClaim(spec, options.owner));
    const sha256 = daemon?.value.sha256 ?? "";
    const commands = modalCommands({ deadline, user: userWords, waitSeconds: (this.#t.uploadMs + this.#t.callMs) / 1000, sha256 });
    const params: SandboxCreateParams = {
      runtime: "vm",
      command: this.#daemonImage ? imageEntrypoint(deadline, userWords) : commands.entrypoint,
      timeoutMs: lifetimeS * 1000,
      workdir,
      blockNetwork: true,
      tags,
      ...(spec.cpus === undefined ? {} : { cpuLimit: spec.cpus / 2, cpu: Math.min(CPU_REQUEST_CORES, spec.cpus / 2) }),
      ...(spec.memoryMb === undefined ? {} : { memoryLimitMiB: spec.memoryMb, memoryMiB: Math.min(MEMORY_REQUEST_MIB, spec.memoryMb) }),
    };
    const made = await bounded(
      async () => {
        const sdk = await this.#sdk();
        const image = sdk.images.fromRegistry(spec.image).dockerfileCommands(imageLayer(workdir, this.#daemonImage));
        return sdk.sandboxes.create(app.value, image, params);
      },
      {
        what: `sandboxes.create of ${name}`,
        ms: this.#t.createMs,
        signal,
        // A create given up on still ends what lands later.
        late: (sandbox) => void this.#end(sandbox, undefined),
      },
    );
    if (!made.ok) return fail(made.error.code, `${made.error.message}; nothing was left`);
    const sandbox = made.value;

    if (daemon) {
      const result = await upload(sandbox, {
        argv: commands.upload,
        bytes: daemon.value.bytes,
        sha256,
        uploadMs: this.#t.uploadMs,
        callMs: this.#t.callMs,
        signal,
      });
      if (!result.ok) return this.#refuseMade(sandbox, signal?.aborted ? "aborted" : result.error.code, `${name}: ${result.error.message}`, signal);
    }
    const read = await this.#readSandbox(sandbox, { name, tags, spec: recorded }, signal, true);
    if (!read.ok) return this.#refuseMade(sandbox, signal?.aborted ? "aborted" : read.error.code, read.error.message, signal);
    if (read.value.drift.length > 0) {
      return this.#refuseMade(sandbox, "refused", `${name} is not what was declared, so it was not kept: ${read.value.drift.join("; ")}`, signal);
    }
    if (signal?.aborted) return this.#refuseMade(sandbox, "aborted", `create of ${name} was aborted after its checks`, signal);
    return ok(read.value.ref);
  }

  /**
   * The drift check on a sandbox: poll null, the tags (exactly those given, when create gave
   * them), hello, and the probe. A failure to read is a result; what differs is in drift.
   */
  async #readSandbox(
    sandbox: ModalSandbox,
    known: { name?: string; tags?: Record<string, string>; spec?: RecordedSpec },
    signal: AbortSignal | undefined,
    first = false,
  ): Promise<Result<ReadBack & { ref: ComputerRef }>> {
    const id = sandbox.sandboxId;
    const polled = await bounded(() => sandbox.poll(), { what: `poll of ${id}`, ms: this.#t.callMs, signal });
    if (!polled.ok) return polled;
    if (polled.value !== null) return fail("gone", `${known.name ?? id} has finished (exit code ${polled.value})`);
    const tagsRead = await bounded(() => sandbox.getTags(), { what: `getTags of ${id}`, ms: this.#t.callMs, signal });
    if (!tagsRead.ok) return tagsRead;
    const drift: string[] = [];
    if (known.tags) drift.push(...tagDrift(known.tags, tagsRead.value));
    const own = ownTagsOf(tagsRead.value);
    if (!own.ok) {
      if (known.spec && known.name) drift.push(`its tags are not this provider's: ${own.why}`);
      else return fail("not_found", `${id} is not a computer of this provider: ${own.why}`);
    }
    const tags: OwnTags = own.ok ? own.value : { name: known.name!, deadline: "", spec: known.spec! };
    if (known.name && tags.name !== known.name) drift.push(`its name tag reads ${tags.name}, not ${known.name}`);
    // Root is refused before anything runs in the sandbox.
    if (modalUserProblem(tags.spec.user)) return fail("refused", `${tags.name}'s recorded user is root, so nothing is run in it`);

    const connection = await openBridge(sandbox, { argv: [...BRIDGE], helloMs: this.#t.helloMs, callMs: this.#t.callMs, signal, retry: first });
    if (!connection.ok) return fail(connection.error.code === "timeout" ? "timeout" : connection.error.code, `${tags.name}: ${connection.error.message}`);
    const hello = connection.value.hello;
    let network: NetworkReadBack = tags.spec.network;
    let user = tags.spec.user;
    const notes: string[] = [];
    try {
      drift.push(...helloDrift(hello, this.#want()));
      if (tags.spec.network === "none") {
        const probe = await probeNone(connection.value.client, {
          user: tags.spec.user,
          ...(this.#probeTargets ? { targets: this.#probeTargets } : {}),
          signal,
        });
        drift.push(...probe.drift);
        network = probe.network;
        if (probe.user) user = probe.user;
        notes.push(...probe.notes);
      }
    } finally {
      await connection.value.close();
    }
    if (signal?.aborted) return fail("aborted", `reading ${tags.name} was aborted`);
    const spec: SpecReadBack = {
      image: tags.spec.image,
      user,
      network,
      workdir: tags.spec.workdir,
      kind: hello.kind,
      ...(tags.deadline ? { deadline: tags.deadline } : {}),
      ...(tags.spec.cpus === undefined ? {} : { cpus: tags.spec.cpus }),
      ...(tags.spec.memoryMb === undefined ? {} : { memoryMb: tags.spec.memoryMb }),
    };
    const ref: ComputerRef = { id, name: tags.name, provider: this.id, spec, hello, ...(notes.length ? { notes } : {}) };
    return ok({ ref, state: "running", labels: labelsOf(tagsRead.value), hello, drift });
  }

  /** A sandbox by its id or its computer's name (refresh reads by name, through its tags). */
  async #find(by: AttachBy, signal: AbortSignal | undefined): Promise<Result<ModalSandbox>> {
    if ("id" in by) {
      if (typeof by.id !== "string" || by.id.length === 0)
        return fail("invalid", "attach takes an id: the sandbox's id or the computer's name", { field: "id" });
      if (!NAME_PATTERN.test(by.id))
        return bounded(async () => (await this.#sdk()).sandboxes.fromId(by.id), { what: `sandboxes.fromId of ${by.id}`, ms: this.#t.callMs, signal });
      return this.#one({ [NAME_TAG]: by.id }, by.id, signal);
    }
    return this.#one(by.labels, "those labels", signal);
  }

  async #one(tags: Record<string, string>, what: string, signal: AbortSignal | undefined): Promise<Result<ModalSandbox>> {
    const found = await this.#running(tags, signal);
    if (!found.ok) return found;
    if (found.value.length === 0) return fail("not_found", `no running computer of this provider has ${what}`);
    if (found.value.length > 1) return fail("invalid", `${found.value.length} computers have ${what}; attach takes one`);
    return ok(found.value[0]!.sandbox);
  }

  async read(by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
    const found = await this.#find(by, options.signal);
    if (!found.ok) return found;
    const read = await this.#readSandbox(found.value, {}, options.signal);
    // A sandbox that has finished is gone to a caller that reads it back (refresh drops it).
    if (!read.ok && read.error.code === "gone") return fail("not_found", read.error.message);
    return read;
  }

  async attach(by: AttachBy, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    return attachedIf(await this.read(by, options));
  }

  /** The running computers with these tags: each listed sandbox read back, and one that has finished left out. */
  async #running(
    tags: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<Result<Array<{ sandbox: ModalSandbox; tags: Record<string, string>; own: OwnTags }>>> {
    const app = await this.#appOf(signal);
    if (!app.ok) return app;
    const { signal: whole } = boundedBy(this.#t.listMs, signal);
    const listed = await bounded(
      async () => {
        const out: ModalSandbox[] = [];
        for await (const sandbox of (await this.#sdk()).sandboxes.list({ appId: app.value.appId, tags: { ...tags, [COMPUTER_TAG]: "1" } })) {
          out.push(sandbox);
          if (whole.aborted) break;
        }
        return out;
      },
      { what: "sandboxes.list", ms: this.#t.listMs, signal },
    );
    if (!listed.ok) return listed;
    const out: Array<{ sandbox: ModalSandbox; tags: Record<string, string>; own: OwnTags }> = [];
    for (const sandbox of listed.value) {
      // Modal lists a sandbox for a while after its terminate: one that has finished is left out.
      const polled = await bounded(() => sandbox.poll(), { what: `poll of ${sandbox.sandboxId}`, ms: this.#t.callMs, signal: whole });
      if (!polled.ok && polled.error.code === "not_found") continue;
      if (!polled.ok) return polled;
      if (polled.value !== null) continue;
      const read = await bounded(() => sandbox.getTags(), { what: `getTags of ${sandbox.sandboxId}`, ms: this.#t.callMs, signal: whole });
      if (!read.ok && read.error.code === "not_found") continue;
      if (!read.ok) return read;
      const own = ownTagsOf(read.value);
      if (!own.ok) continue;
      out.push({ sandbox, tags: read.value, own: own.value });
    }
    return ok(out);
  }

  async list(labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
    for (const [key, value] of Object.entries(labels ?? {})) {
      if (!key || key.includes("\0") || typeof value !== "string" || value.includes("\0")) {
        return fail("invalid", "list takes labels whose keys are non-empty and whose values are strings, with no NUL", { field: "labels" });
      }
    }
    const found = await this.#running(labels, options.signal);
    if (!found.ok) return found;
    return ok(
      found.value.map(({ sandbox, tags, own }) => ({
        ref: { id: sandbox.sandboxId, name: own.name, provider: this.id },
        labels: labelsOf(tags),
        deadline: new Date(own.deadline),
        state: "running" as const,
        network: own.spec.network,
      })),
    );
  }

  /** The ref's sandbox, only when its tags name it as this provider's computer of the ref's name. */
  async #target(ref: ComputerRef, signal: AbortSignal | undefined): Promise<Result<{ sandbox: ModalSandbox; own: OwnTags }>> {
    if (typeof ref?.id !== "string" || !ref.id || typeof ref.name !== "string" || !NAME_PATTERN.test(ref.name)) {
      return fail("invalid", "a ref is { id, name } of a computer this provider made (name computer-<12 hex digits>)", { field: "ref" });
    }
    const sandbox = NAME_PATTERN.test(ref.id)
      ? await this.#one({ [NAME_TAG]: ref.id }, ref.id, signal)
      : await bounded(async () => (await this.#sdk()).sandboxes.fromId(ref.id), { what: `sandboxes.fromId of ${ref.id}`, ms: this.#t.callMs, signal });
    if (!sandbox.ok) return sandbox;
    const tags = await bounded(() => sandbox.value.getTags(), { what: `getTags of ${ref.id}`, ms: this.#t.callMs, signal });
    if (!tags.ok) return tags;
    const own = ownTagsOf(tags.value);
    if (!own.ok) return fail("not_found", `${ref.id} is not a computer of this provider (${own.why}), so nothing was done to it`);
    if (own.value.name !== ref.name) return fail("not_found", `${ref.id} is the computer ${own.value.name}, not ${ref.name}, so nothing was done to it`);
    return ok({ sandbox: sandbox.value, own: own.value });
  }

  async connect(ref: ComputerRef, options: CallOptions = {}): Promise<Result<Connection>> {
    const target = await this.#target(ref, options.signal);
    if (!target.ok) return target;
    if (modalUserProblem(target.value.own.spec.user)) return fail("refused", `${ref.name}'s recorded user is root, so it is not connected to`);
    const connection = await openBridge(target.value.sandbox, { argv: [...BRIDGE], helloMs: this.#t.helloMs, callMs: this.#t.callMs, signal: options.signal });
    if (!connection.ok) return connection;
    const wrong = helloDrift(connection.value.hello, this.#want());
    if (wrong.length > 0) {
      await connection.value.close();
      return fail("refused", `the daemon in ${ref.name} is not the provider's: ${wrong.join("; ")}; make a new computer with this provider`);
    }
    return connection;
  }

  async network(ref: ComputerRef, policy?: NetworkPolicy, options: CallOptions = {}): Promise<Result<NetworkReadBack>> {
    const target = await this.#target(ref, options.signal);
    if (!target.ok) return target;
    const recorded = target.value.own.spec.network;
    if (policy !== undefined && JSON.stringify(policy) !== JSON.stringify(recorded)) {
      return fail(
        "unsupported",
        `a Modal computer's network is fixed at create (blockNetwork cannot be updated); ${ref.name} stays ${typeof recorded === "string" ? recorded : "an allowlist"}: make a new computer with the network you want`,
        { field: "network" },
      );
    }
    if (recorded !== "none") return ok(recorded);
    if (modalUserProblem(target.value.own.spec.user)) return fail("refused", `${ref.name}'s recorded user is root, so nothing is run in it`);
    const connection = await openBridge(target.value.sandbox, { argv: [...BRIDGE], helloMs: this.#t.helloMs, callMs: this.#t.callMs, signal: options.signal });
    if (!connection.ok) return connection;
    try {
      const probe = await probeNone(connection.value.client, {
        user: target.value.own.spec.user,
        ...(this.#probeTargets ? { targets: this.#probeTargets } : {}),
        signal: options.signal,
      });
      return ok(probe.network);
    } finally {
      await connection.value.close();
    }
  }

  async release(ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
    if (how === "stop")
      return fail(
        "unsupported",
        `a Modal sandbox has no stopped state (terminate is its only end), so stop is refused and ${ref?.name ?? "the computer"} runs on: release it with delete`,
        { field: "how" },
      );
    if (how !== "delete") return fail("invalid", 'release takes "stop" or "delete"', { field: "how" });
    if (options.signal?.aborted) return fail("aborted", `release of ${ref?.name ?? "the computer"} was aborted before Modal was asked`);
    const target = await this.#target(ref, options.signal);
    if (!target.ok) {
      // A sandbox Modal no longer knows, or one that finished and is no longer listed, is released.
      if (target.error.code === "not_found" && !/is not a computer of this provider|is the computer/.test(target.error.message)) return ok();
      return target;
    }
    const ended = await this.#end(target.value.sandbox, options.signal);
    if (!ended.ok) return fail(ended.error.code, `release of ${ref.name}: ${ended.error.message}`);
    return ok();
  }

  /** One read of the app, making nothing: Settings' test of the token. */
  async testConnection(options: CallOptions = {}): Promise<Result<{ detail: string }>> {
    const read = await bounded(
      async () => (await this.#sdk()).apps.fromName(this.#app, { createIfMissing: false, ...(this.#environment ? { environment: this.#environment } : {}) }),
      {
        what: `apps.fromName of ${this.#app}`,
        ms: this.#t.callMs,
        signal: options.signal,
      },
    );
    if (read.ok) return ok({ detail: `Modal answers; the app ${this.#app} is there` });
    if (read.error.code === "not_found") return ok({ detail: `Modal answers; the app ${this.#app} is not made yet (its first computer makes it)` });
    return fail(read.error.code, wordsOf(read.error.message));
  }
}
