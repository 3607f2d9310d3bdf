// Modal's sandboxes as the provider's parts use them: the client loaded once, the provider's app
// read once, the daemon's bytes, a terminate waited for until Modal reads the sandbox finished,
// the drift check of one sandbox (poll, tags, hello, the probe), and sandboxes found by id, name
// or tags. provider.ts and make.ts share one of these.
import { DaemonFile, type Daemon } from "../contract/daemon-file.js";
import type { Adoption } from "../contract/adopt.js";
import { boundedBy, untilAborted } from "../daemon/bound.js";
import type { AttachBy, ComputerRef, NetworkReadBack, ReadBack, SpecReadBack } from "../contract/provider.js";
import { fail, notTheComputer, ok, type Result } from "../daemon/result.js";
import { waitUntil } from "../contract/wait.js";
import { bounded, codeOf } from "./calls.js";
import { modalUserProblem } from "./check.js";
import { BRIDGE } from "./commands.js";
import { openBridge } from "./connect.js";
import { COMPUTER_TAG, NAME_PATTERN, NAME_TAG } from "./constants.js";
import { type ModalProviderOptions, settle, type Settled } from "./options.js";
import { helloDrift, type HelloWant, probeNone } from "./readback.js";
import type { ModalApp, ModalSandbox, ModalSdk } from "./sdk.js";
import { packagedDaemon } from "./settings.js";
import { labelsOf, ownTagsOf, type OwnTags, type RecordedSpec, tagDrift } from "./tags.js";

export const PROVIDER_ID = "modal";
export type { Daemon };
export const GROUPS = ["exec", "files", "processes"] as const;
export type Running = { sandbox: ModalSandbox; tags: Record<string, string>; own: OwnTags };

type Finished = { code: number | null } | { gone: true };
const isFinished = (s: Finished) => "gone" in s || s.code !== null;
const finishedWords = (s: Finished) => ("gone" in s ? "Modal no longer knows it" : s.code === null ? "poll() null: still running" : `exit code ${s.code}`);

export class ModalSandboxes {
  readonly o: Settled;
  readonly version: string;
  readonly #sdk: () => Promise<ModalSdk>;
  #appRead: Promise<Result<ModalApp>> | undefined;
  readonly #daemon: DaemonFile;

  constructor(options: ModalProviderOptions, version: () => string) {
    this.o = settle(options);
    const given = options.sdk;
    let loaded: Promise<ModalSdk> | undefined;
    this.#sdk =
      typeof given === "function"
        ? () => (loaded ??= given().catch((error: unknown) => ((loaded = undefined), Promise.reject(error))))
        : () => Promise.resolve(given);
    this.version = options.version ?? version();
    this.#daemon = new DaemonFile(this.o.daemonPath ?? packagedDaemon());
  }

  sdk(): Promise<ModalSdk> {
    return this.#sdk();
  }

  want(): HelloWant {
    return { version: this.version, kind: "linux", groups: GROUPS };
  }

  /** The provider's app, made if missing, read once; a failed read is not kept. */
  appOf(signal: AbortSignal | undefined): Promise<Result<ModalApp>> {
    const { app, environment } = this.o;
    this.#appRead ??= bounded(async () => (await this.#sdk()).apps.fromName(app, { createIfMissing: true, ...(environment ? { environment } : {}) }), {
      what: `apps.fromName of ${app}`,
      ms: this.o.t.callMs,
    }).then((r) => {
      if (!r.ok) this.#appRead = undefined;
      return r;
    });
    return untilAborted(this.#appRead, signal, () => fail("aborted", "reading the Modal app was aborted"));
  }

  daemonBytes(): Promise<Result<Daemon>> {
    return this.#daemon.bytes();
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
        boundMs: this.o.t.releaseMs,
        minMs: this.o.t.releasePollMs,
        maxMs: 5000,
        what: `${sandbox.sandboxId} to finish`,
        describe: finishedWords,
        ...(signal ? { signal } : {}),
      },
    );
  }

  /** terminate, whatever the caller's signal, then the wait, which takes it. */
  async end(sandbox: ModalSandbox, signal: AbortSignal | undefined): Promise<Result<undefined>> {
    const sent = await bounded(() => sandbox.terminate(), { what: `terminate of ${sandbox.sandboxId}`, ms: this.o.t.callMs });
    if (!sent.ok && sent.error.code !== "not_found") return sent;
    const waited = await this.#untilFinished(sandbox, signal);
    if (!waited.ok) return fail(waited.error.code, `${sandbox.sandboxId} may still be ending: ${waited.error.message}`);
    return ok();
  }

  /** Adoption's lookups: the running sandboxes of a declaration (Modal reads back no creation time), and delete. */
  adoption(read: Adoption["read"], remove: Adoption["remove"], defaults: Adoption["defaults"]): Adoption {
    return {
      list: async (tags, options) => {
        const found = await this.running(tags, options.signal);
        return found.ok
          ? ok(found.value.map(({ sandbox, own }) => ({ ref: { id: sandbox.sandboxId, name: own.name, provider: PROVIDER_ID }, state: "running" as const })))
          : found;
      },
      read,
      remove,
      defaults,
    };
  }

  /** poll null and the tags read (exactly those given, when create gave them): the provider's own, or why not. */
  async #tagsOf(
    sandbox: ModalSandbox,
    known: { name?: string; tags?: Record<string, string>; spec?: RecordedSpec },
    signal: AbortSignal | undefined,
  ): Promise<Result<{ read: Record<string, string>; tags: OwnTags; drift: string[] }>> {
    const id = sandbox.sandboxId;
    const polled = await bounded(() => sandbox.poll(), { what: `poll of ${id}`, ms: this.o.t.callMs, signal });
    if (!polled.ok) return polled;
    if (polled.value !== null) return fail("gone", `${known.name ?? id} has finished (exit code ${polled.value})`);
    const tagsRead = await bounded(() => sandbox.getTags(), { what: `getTags of ${id}`, ms: this.o.t.callMs, signal });
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
    return ok({ read: tagsRead.value, tags, drift });
  }

  /**
   * The drift check on a sandbox: poll null, the tags (exactly those given, when create gave
   * them), hello, and the probe. A failure to read is a result; what differs is in drift.
   */
  async readSandbox(
    sandbox: ModalSandbox,
    known: { name?: string; tags?: Record<string, string>; spec?: RecordedSpec },
    signal: AbortSignal | undefined,
    first = false,
  ): Promise<Result<ReadBack & { ref: ComputerRef }>> {
    const tagged = await this.#tagsOf(sandbox, known, signal);
    if (!tagged.ok) return tagged;
    const { tags, drift } = tagged.value;
    // Root is refused before anything runs in the sandbox.
    if (modalUserProblem(tags.spec.user)) return fail("refused", `${tags.name}'s recorded user is root, so nothing is run in it`);

    const connection = await openBridge(sandbox, { argv: [...BRIDGE], helloMs: this.o.t.helloMs, callMs: this.o.t.callMs, signal, retry: first });
    if (!connection.ok) return fail(connection.error.code === "timeout" ? "timeout" : connection.error.code, `${tags.name}: ${connection.error.message}`);
    const hello = connection.value.hello;
    let network: NetworkReadBack = tags.spec.network;
    let user = tags.spec.user;
    const notes: string[] = [];
    try {
      drift.push(...helloDrift(hello, this.want()));
      if (tags.spec.network === "none") {
        const probe = await probeNone(connection.value.client, {
          user: tags.spec.user,
          ...(this.o.probeTargets ? { targets: this.o.probeTargets } : {}),
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
    const ref: ComputerRef = { id: sandbox.sandboxId, name: tags.name, provider: PROVIDER_ID, spec, hello, ...(notes.length ? { notes } : {}) };
    return ok({ ref, state: "running", labels: labelsOf(tagged.value.read), hello, drift });
  }

  fromId(id: string, signal: AbortSignal | undefined): Promise<Result<ModalSandbox>> {
    return bounded(async () => (await this.#sdk()).sandboxes.fromId(id), { what: `sandboxes.fromId of ${id}`, ms: this.o.t.callMs, signal });
  }

  /** A sandbox by its id or its computer's name (refresh reads by name, through its tags). */
  async find(by: AttachBy, signal: AbortSignal | undefined): Promise<Result<ModalSandbox>> {
    if ("id" in by) {
      if (typeof by.id !== "string" || by.id.length === 0)
        return fail("invalid", "attach takes an id: the sandbox's id or the computer's name", { field: "id" });
      if (!NAME_PATTERN.test(by.id)) return this.fromId(by.id, signal);
      return this.one({ [NAME_TAG]: by.id }, by.id, signal);
    }
    return this.one(by.labels, "those labels", signal);
  }

  async one(tags: Record<string, string>, what: string, signal: AbortSignal | undefined): Promise<Result<ModalSandbox>> {
    const found = await this.running(tags, signal);
    if (!found.ok) return found;
    if (found.value.length === 0) return fail("not_found", `no running computer of this provider has ${what}`);
    if (found.value.length > 1) return fail("invalid", `${found.value.length} computers have ${what}; attach takes one`);
    return ok(found.value[0]!.sandbox);
  }

  /** The running computers with these tags: each listed sandbox read back, and one that has finished left out. */
  async running(tags: Record<string, string>, signal: AbortSignal | undefined): Promise<Result<Running[]>> {
    const app = await this.appOf(signal);
    if (!app.ok) return app;
    const { signal: whole } = boundedBy(this.o.t.listMs, signal);
    const listed = await bounded(
      async () => {
        const out: ModalSandbox[] = [];
        for await (const sandbox of (await this.#sdk()).sandboxes.list({ appId: app.value.appId, tags: { ...tags, [COMPUTER_TAG]: "1" } })) {
          out.push(sandbox);
          if (whole.aborted) break;
        }
        return out;
      },
      { what: "sandboxes.list", ms: this.o.t.listMs, signal },
    );
    if (!listed.ok) return listed;
    const out: Running[] = [];
    for (const sandbox of listed.value) {
      // Modal lists a sandbox for a while after its terminate: one that has finished is left out.
      const polled = await bounded(() => sandbox.poll(), { what: `poll of ${sandbox.sandboxId}`, ms: this.o.t.callMs, signal: whole });
      if (!polled.ok && polled.error.code === "not_found") continue;
      if (!polled.ok) return polled;
      if (polled.value !== null) continue;
      const read = await bounded(() => sandbox.getTags(), { what: `getTags of ${sandbox.sandboxId}`, ms: this.o.t.callMs, signal: whole });
      if (!read.ok && read.error.code === "not_found") continue;
      if (!read.ok) return read;
      const own = ownTagsOf(read.value);
      if (!own.ok) continue;
      out.push({ sandbox, tags: read.value, own: own.value });
    }
    return ok(out);
  }

  /** The ref's sandbox, only when its tags name it as this provider's computer of the ref's name. */
  async target(ref: ComputerRef, signal: AbortSignal | undefined): Promise<Result<{ sandbox: ModalSandbox; own: OwnTags }>> {
    if (typeof ref?.id !== "string" || !ref.id || typeof ref.name !== "string" || !NAME_PATTERN.test(ref.name)) {
      return fail("invalid", "a ref is { id, name } of a computer this provider made (name computer-<12 hex digits>)", { field: "ref" });
    }
    const sandbox = NAME_PATTERN.test(ref.id) ? await this.one({ [NAME_TAG]: ref.id }, ref.id, signal) : await this.fromId(ref.id, signal);
    if (!sandbox.ok) return sandbox;
    const tags = await bounded(() => sandbox.value.getTags(), { what: `getTags of ${ref.id}`, ms: this.o.t.callMs, signal });
    if (!tags.ok) return tags;
    const own = ownTagsOf(tags.value);
    if (!own.ok) return fail("not_found", `${ref.id} is not a computer of this provider (${own.why}), so nothing was done to it`, notTheComputer(ref.id));
    if (own.value.name !== ref.name)
      return fail("not_found", `${ref.id} is the computer ${own.value.name}, not ${ref.name}, so nothing was done to it`, notTheComputer(ref.id));
    return ok({ sandbox: sandbox.value, own: own.value });
  }
}
