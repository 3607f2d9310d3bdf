// E2B's sandboxes as the provider's parts use them: the SDK loaded once, each call bounded and
// signalled (calls.ts), the listing every page within one deadline, a kill waited for until E2B
// reads the sandbox gone, the daemon's bytes, and a sandbox found by id, name or labels and read
// back into a ref. provider.ts, make.ts, extend.ts and diagnose.ts share one of these.
import { DISPLAY_GROUPS } from "../daemon/desktop.js";
import type { Group, Hello } from "../daemon/protocol.js";
import { type Candidate, type Adoption, createdAt } from "../contract/adopt.js";
import { CHILD_HOME } from "../kits/agent-child/install.js";
import { daemonDrift, type DaemonExpected } from "../kits/agent-child/drift.js";
import { boundedBy } from "../daemon/bound.js";
import { DaemonFile, type Daemon } from "../contract/daemon-file.js";
import { readNetworkNone } from "../contract/probe.js";
import type { AttachBy, ComputerRef, Connection, NetworkReadBack, SpecReadBack } from "../contract/provider.js";
import { fail, notTheComputer, ok, type Result } from "../daemon/result.js";
import { waitUntil } from "../contract/wait.js";
import { openBridge } from "./bridge.js";
import { call, wordsOf } from "./calls.js";
import { type Connection as E2BConnection, connectionOf, realSandboxClass } from "./client.js";
import { COMPUTER_KEY, CONNECT_UNDER_MS, NAME_KEY, NAME_PATTERN, PROVIDER_ID } from "./constants.js";
import { type E2BProviderOptions, settle, type Settled } from "./options.js";
import { deadlineOf, type E2BKind, networkOf, type OwnKeys, ownKeysOf, stateOf } from "./readback.js";
import { type E2BSandbox, type E2BSandboxClass, type E2BSandboxInfo, isE2BError } from "./sdk.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";

export const GROUPS = ["exec", "files", "processes"] as const;

/** The groups a computer of this kind declares: a desktop's display adds the screen and input. */
export function groupsOf(kind: E2BKind): Group[] {
  return kind === "desktop" ? [...GROUPS, ...DISPLAY_GROUPS] : [...GROUPS];
}

export type Found = { info: E2BSandboxInfo; own: OwnKeys };
export type CallOpts = E2BConnection & { requestTimeoutMs: number; signal: AbortSignal };

export class E2BSandboxes {
  readonly o: Settled;
  readonly version: string;
  readonly #conn: E2BConnection;
  readonly #sdk: () => Promise<E2BSandboxClass>;
  readonly #daemon: DaemonFile;

  constructor(options: E2BProviderOptions, version: string) {
    this.o = settle(options);
    this.version = version;
    this.#conn = connectionOf(this.o);
    this.#daemon = new DaemonFile(this.o.daemonPath);
    const given = options.sdk;
    let loaded: Promise<E2BSandboxClass> | undefined;
    // The Sandbox class (or a fake) has create; a loader of one does not.
    if (given !== undefined && typeof (given as Partial<E2BSandboxClass>).create === "function") this.#sdk = () => Promise.resolve(given as E2BSandboxClass);
    else if (typeof given === "function")
      this.#sdk = () => (loaded ??= (given as () => Promise<E2BSandboxClass>)().catch((e: unknown) => ((loaded = undefined), Promise.reject(e))));
    else
      this.#sdk = () =>
        (loaded ??= Promise.resolve()
          .then(realSandboxClass)
          .catch((e: unknown) => ((loaded = undefined), Promise.reject(e))));
  }

  /** The SDK, or why it could not be loaded (with hint, how to install it). */
  async sdk(hint = false): Promise<Result<E2BSandboxClass>> {
    try {
      return ok(await this.#sdk());
    } catch (error) {
      return fail("failed", `the e2b package could not be loaded${hint ? " (install it beside this one: npm install e2b)" : ""}: ${wordsOf(error)}`);
    }
  }

  /** One E2B call through the Sandbox class, bounded and signalled. */
  async e2b<T>(
    what: string,
    run: (sdk: E2BSandboxClass, opts: CallOpts) => Promise<T>,
    signal?: AbortSignal,
    ms = this.o.t.requestMs,
    late?: (value: T) => void,
  ): Promise<Result<T>> {
    const sdk = await this.sdk(true);
    if (!sdk.ok) return sdk;
    return call((s, bound) => run(sdk.value, { ...this.#conn, requestTimeoutMs: bound, signal: s }), { what, ms, signal, ...(late ? { late } : {}) });
  }

  getInfo(id: string, signal?: AbortSignal): Promise<Result<E2BSandboxInfo>> {
    return this.e2b(`Sandbox.getInfo of ${id}`, (sdk, opts) => sdk.getInfo(id, opts), signal);
  }

  /** One listing page with agentrun.computer=1 (Settings' test): the sandboxes, and whether more follow. */
  async firstPage(signal?: AbortSignal): Promise<Result<{ items: E2BSandboxInfo[]; more: boolean }>> {
    const sdk = await this.sdk();
    if (!sdk.ok) return sdk;
    const pages = sdk.value.list({ ...this.#conn, query: { metadata: { [COMPUTER_KEY]: "1" } }, limit: 100 });
    const page = await call((s, ms) => pages.nextItems({ ...this.#conn, requestTimeoutMs: ms, signal: s }), {
      what: "Sandbox.list",
      ms: this.o.t.requestMs,
      signal,
    });
    return page.ok ? ok({ items: page.value, more: pages.hasNext }) : page;
  }

  /** Every sandbox whose metadata holds these keys and agentrun.computer=1, running or paused, every page, within one deadline. */
  async listAll(metadata: Record<string, string>, signal?: AbortSignal): Promise<Result<E2BSandboxInfo[]>> {
    const { bound, signal: whole } = boundedBy(this.o.t.listMs, signal);
    const sdk = await this.sdk();
    if (!sdk.ok) return sdk;
    const pages = sdk.value.list({ ...this.#conn, query: { metadata: { ...metadata, [COMPUTER_KEY]: "1" }, state: ["running", "paused"] }, limit: 100 });
    const out: E2BSandboxInfo[] = [];
    for (let page = 0; pages.hasNext; page += 1) {
      if (page >= 1000) return fail("failed", "E2B's listing never ended (1000 pages)");
      const read = await call((s, ms) => pages.nextItems({ ...this.#conn, requestTimeoutMs: ms, signal: s }), {
        what: "Sandbox.list",
        ms: this.o.t.requestMs,
        signal: whole,
      });
      if (!read.ok)
        return bound.aborted && !signal?.aborted ? fail("timeout", `listing E2B's sandboxes did not finish within ${this.o.t.listMs / 1000} s`) : read;
      out.push(...read.value);
    }
    return ok(out);
  }

  /** The daemon's bytes and sha256 (read once), or an invalid daemonPath in words, before anything is made. */
  daemonBytes(): Promise<Result<Daemon>> {
    return this.#daemon.bytes();
  }

  daemonWant(sha256: string, kind: E2BKind): DaemonExpected {
    return { version: this.version, arch: "amd64", kind, groups: groupsOf(kind), user: this.o.daemonUser, sha256 };
  }

  /** Kill, never signalled, then the wait until getInfo answers not found and the listing no longer shows it, twice running. */
  async killAndWait(id: string, signal?: AbortSignal): Promise<Result<undefined>> {
    const killed = await this.e2b(`Sandbox.kill of ${id}`, (sdk, opts) => sdk.kill(id, { ...opts }));
    if (!killed.ok && killed.error.code !== "not_found") return killed;
    let seen = 0;
    let last = "not read";
    const gone = await waitUntil(
      async (s) => {
        const one = await this.getInfo(id, s);
        const all = await this.listAll({}, s);
        const listed = all.ok && all.value.some((x) => x.sandboxId === id);
        last = one.ok ? `state ${one.value.state}` : one.error.code === "not_found" ? (listed ? "listed still" : "gone") : one.error.message;
        seen = !one.ok && one.error.code === "not_found" && all.ok && !listed ? seen + 1 : 0;
        return seen;
      },
      (n) => n >= 2,
      { boundMs: this.o.t.goneMs, signal, minMs: this.o.t.pollMs, what: `${id} to be gone`, describe: () => last },
    );
    if (!gone.ok) return fail(gone.error.code, `${gone.error.message}; E2B last read it ${last}`);
    return ok();
  }

  /** A sandbox whose create never answered, found by its name label and killed; words on what was left. */
  async killByName(name: string): Promise<string> {
    const found = await waitUntil(
      (s) => this.listAll({ [NAME_KEY]: name }, s),
      (r) => r.ok && r.value.length > 0,
      { boundMs: this.o.t.listedMs, minMs: this.o.t.pollMs, what: `${name} to be listed` },
    );
    if (!found.ok)
      return found.error.code === "timeout"
        ? `${name} was not listed within ${this.o.t.listedMs / 1000} s, so nothing was left`
        : `${name} may be left: ${found.error.message}`;
    if (!found.value.ok) return `${name} may be left: ${found.value.error.message}`;
    const words: string[] = [];
    for (const info of found.value.value) {
      const gone = await this.killAndWait(info.sandboxId);
      words.push(gone.ok ? `${name} (${info.sandboxId}) was killed` : `${name} (${info.sandboxId}) may be left: ${gone.error.message}`);
    }
    return words.join("; ");
  }

  /** Adoption's lookups: the computers with these keys, running or paused, with E2B's startedAt; and a kill of one. */
  adoption(read: Adoption["read"], defaults: Adoption["defaults"]): Adoption {
    return {
      list: async (metadata, options) => {
        const all = await this.listAll(metadata, options.signal);
        if (!all.ok) return all;
        const out: Candidate[] = [];
        for (const info of all.value) {
          const own = ownKeysOf(info.metadata);
          if (own.ok)
            out.push({ ref: { id: info.sandboxId, name: own.value.name, provider: PROVIDER_ID }, state: stateOf(info), created: createdAt(info.startedAt) });
        }
        return ok(out);
      },
      read,
      remove: (ref) => this.killAndWait(ref.id),
      defaults,
    };
  }

  /** A foreground command as root: its exit, stdout and stderr (a non-zero exit is the SDK's CommandExitError). */
  run(sandbox: E2BSandbox, command: string, what: string, signal?: AbortSignal): Promise<Result<{ exitCode: number; stdout: string; stderr: string }>> {
    return call(
      async (s, ms) => {
        try {
          const done = await sandbox.commands.run(command, { user: "root", timeoutMs: this.o.t.commandMs, requestTimeoutMs: ms, signal: s });
          return { exitCode: done.exitCode, stdout: done.stdout, stderr: done.stderr };
        } catch (error) {
          if (!isE2BError(error, "CommandExitError")) throw error;
          const e = error as unknown as { exitCode: number; stdout: string; stderr: string };
          return { exitCode: e.exitCode, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
        }
      },
      { what, ms: this.o.t.commandMs, signal },
    );
  }

  /** The daemon over a connection: hello (a desktop's once its display answers), its status, cwd, exe and sha256, and the probe for network none. */
  async readDaemonOver(
    connection: Connection,
    want: { sha256: string; kind: E2BKind; hello?: Hello },
    signal?: AbortSignal,
  ): Promise<Result<{ hello: Hello; drift: string[]; notes: string[]; network: NetworkReadBack }>> {
    const hello = want.hello ?? connection.hello;
    let drift: string[];
    try {
      drift = await daemonDrift(connection.client, hello, this.daemonWant(want.sha256, want.kind), signal);
    } catch {
      return fail("aborted", "reading the daemon was aborted");
    }
    const probe = await readNetworkNone(connection.client, {
      daemonPath: DAEMON_IN_COMPUTER,
      interfaces: ["lo"],
      user: this.o.daemonUser,
      ...(this.o.probeTargets ? { targets: this.o.probeTargets } : {}),
      ...(signal ? { signal } : {}),
    });
    if (!probe.ok) {
      if (probe.error.code === "aborted") return probe;
      drift.push(probe.error.message);
    }
    return ok({ hello, drift, notes: probe.ok ? probe.value.notes : [], network: probe.ok ? "none" : { other: probe.error.message } });
  }

  refOf(info: E2BSandboxInfo, own: OwnKeys, hello: Hello | undefined, notes: string[] = []): ComputerRef {
    const spec: SpecReadBack & { snapshot?: string } = {
      image: own.image,
      user: this.o.daemonUser,
      network: networkOf(info),
      ...(hello ? { workdir: CHILD_HOME } : {}),
      deadline: deadlineOf(info, own),
      kind: own.kind,
      snapshot: info.templateId,
    };
    return { id: info.sandboxId, name: own.name, provider: PROVIDER_ID, spec, ...(hello ? { hello } : {}), ...(notes.length ? { notes } : {}) };
  }

  async find(by: AttachBy, signal?: AbortSignal): Promise<Result<Found>> {
    if (by && "id" in by) {
      if (typeof by.id !== "string" || !by.id || by.id.length > 200 || /[\s/]/.test(by.id))
        return fail("invalid", "attach takes { id }: a sandbox id or a computer's name", { field: "id" });
      if (NAME_PATTERN.test(by.id)) return this.#one({ [NAME_KEY]: by.id }, by.id, signal);
      const info = await this.getInfo(by.id, signal);
      if (!info.ok) return info.error.code === "not_found" ? fail("not_found", `no computer ${by.id} at E2B`) : info;
      const own = ownKeysOf(info.value.metadata);
      if (!own.ok) return fail("not_found", `${by.id} is not a computer of this provider (${own.why})`, notTheComputer(by.id));
      return ok({ info: info.value, own: own.value });
    }
    if (by && "labels" in by && typeof by.labels === "object" && by.labels !== null && Object.keys(by.labels).length > 0) {
      const shown = Object.entries(by.labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ");
      return this.#one(by.labels, `the labels ${shown}`, signal);
    }
    return fail("invalid", "attach takes { id } or { labels } with at least one label", { field: "by" });
  }

  async #one(metadata: Record<string, string>, what: string, signal?: AbortSignal): Promise<Result<Found>> {
    const all = await this.listAll(metadata, signal);
    if (!all.ok) return all;
    const found = all.value.filter((x) => ownKeysOf(x.metadata).ok);
    if (found.length === 0) return fail("not_found", `no computer of this provider has ${what}`);
    if (found.length > 1) return fail("invalid", `${found.length} computers have ${what}; attach takes one`);
    const info = await this.getInfo(found[0]!.sandboxId, signal);
    if (!info.ok) return info.error.code === "not_found" ? fail("not_found", `no computer of this provider has ${what}`) : info;
    const own = ownKeysOf(info.value.metadata);
    const id = info.value.sandboxId;
    return own.ok ? ok({ info: info.value, own: own.value }) : fail("not_found", `${id} is not a computer of this provider (${own.why})`, notTheComputer(id));
  }

  /** The ref's sandbox, only when its metadata names it as this provider's computer of the ref's name. */
  async target(ref: ComputerRef, signal?: AbortSignal): Promise<Result<Found>> {
    if (typeof ref?.id !== "string" || !ref.id || typeof ref.name !== "string" || !NAME_PATTERN.test(ref.name)) {
      return fail("invalid", "a ref is { id, name } of a computer this provider made (name computer-<12 hex digits>)", { field: "ref" });
    }
    const found = await this.find({ id: ref.id }, signal);
    if (!found.ok) return found;
    if (found.value.own.name !== ref.name)
      return fail("not_found", `${ref.id} is the computer ${found.value.own.name}, not ${ref.name}, so nothing was done to it`, notTheComputer(ref.id));
    return found;
  }

  /**
   * Sandbox.connect with a timeout a little under what is left (E2B moves a running sandbox's end
   * only to a longer one); a paused sandbox it resumes.
   */
  async sandboxOf(found: Found, signal?: AbortSignal): Promise<Result<E2BSandbox>> {
    const { info, own } = found;
    const left = new Date(info.endAt).getTime() - Date.now();
    if (left <= CONNECT_UNDER_MS + 1000) return fail("gone", `${own.name} has ${Math.max(0, Math.round(left / 1000))} s left: E2B is about to kill it`);
    const sandbox = await this.e2b(
      `Sandbox.connect of ${own.name}`,
      (sdk, opts) => sdk.connect(info.sandboxId, { ...opts, timeoutMs: left - CONNECT_UNDER_MS }),
      signal,
    );
    return sandbox.ok || sandbox.error.code !== "not_found" ? sandbox : fail("gone", sandbox.error.message);
  }

  /** The sandbox connected (sandboxOf), then the bridge. */
  async connectTo(found: Found, signal?: AbortSignal): Promise<Result<Connection>> {
    const sandbox = await this.sandboxOf(found, signal);
    if (!sandbox.ok) return sandbox;
    return openBridge(sandbox.value, { target: found.own.name, helloMs: this.o.t.helloMs, requestMs: this.o.t.requestMs, signal });
  }
}
