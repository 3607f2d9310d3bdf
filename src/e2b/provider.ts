// E2BProvider: the ComputerProvider interface on E2B's sandboxes, through the E2BSandboxClass slice
// of the host's SDK. envd is the sandbox's first process; the daemon is uploaded with files.write,
// installed and started as root with commands.run (src/vendor/agent-child/install.ts, as on Daytona), reached through a
// bridge of its own (bridge.ts), and held to the drift check (readback.ts, src/vendor/agent-child/drift.ts).
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { CHILD_DAEMON, CHILD_HOME, installCommand, readInstall, refusalIn, sha256Of, startCommand, uploadPath } from "../vendor/agent-child/install.js";
import { daemonDrift, type DaemonExpected, helloDrift } from "../vendor/agent-child/drift.js";
import type { CallOptions } from "../daemon/client.js";
import { packageVersion } from "../package.js";
import { readNetworkNone } from "../vendor/probe.js";
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
import { checkedSpec } from "../vendor/checked.js";
import { fail, ok, refuse, type Result, type ResultCode } from "../vendor/result.js";
import { waitUntil } from "../vendor/wait.js";
import { boundedBy } from "../vendor/bound.js";
import { openBridge } from "./bridge.js";
import { call, codeOf, wordsOf } from "./calls.js";
import { checkSpec, NETWORK_GAP } from "./check.js";
import { type Connection as E2BConnection, connectionOf, realSandboxClass } from "./client.js";
import {
  BASE_TEMPLATE,
  COMPUTER_KEY,
  CONNECT_UNDER_MS,
  DEADLINE_KEY,
  ENVD_PORT,
  EXTEND_PAST_MS,
  IMAGE_KEY,
  MAX_KEY,
  NAME_KEY,
  NAME_PATTERN,
  TIMEOUT_KEY,
} from "./constants.js";
import { type E2BProviderOptions, settle, type Settled } from "./options.js";
import { createdEnd, deadlineOf, infoDrift, labelsOf, networkOf, type OwnKeys, ownKeysOf, stateOf } from "./readback.js";
import { type E2BSandbox, type E2BSandboxClass, type E2BSandboxInfo, isE2BError } from "./sdk.js";
import { attachedIf } from "../vendor/attach.js";
import { adoptOrClear, createdAt, type Claimed, type Claims, removeEarlier } from "../vendor/adopt.js";
import { labelsWithClaim } from "../vendor/labels.js";

const GROUPS = ["exec", "files", "processes"] as const;

export function capabilitiesOf(settled: Pick<Settled, "maxLifetimeMs" | "daemonUser">): Capabilities {
  return {
    kind: "linux",
    os: "linux",
    daemon: "child",
    groups: [...GROUPS],
    lifetime: "vendor",
    maxLifetimeMs: settled.maxLifetimeMs,
    network: ["none"],
    networkReadBack: true,
    release: ["delete"],
    vendorAgentPorts: [ENVD_PORT],
    isolation: "microvm",
    defaults: { image: BASE_TEMPLATE, workdir: CHILD_HOME, user: settled.daemonUser },
  };
}

/** The capabilities with the options unset. */
export const CAPABILITIES: Capabilities = capabilitiesOf({ maxLifetimeMs: 60 * 60 * 1000, daemonUser: "2510:2510" });

type Found = { info: E2BSandboxInfo; own: OwnKeys };

export class E2BProvider implements ComputerProvider {
  readonly id = "e2b";
  readonly version: string;
  readonly #o: Settled;
  readonly #conn: E2BConnection;
  readonly #sdk: () => Promise<E2BSandboxClass>;
  #daemon: Promise<{ bytes: Buffer; sha256: string }> | undefined;
  /** One extend of a computer at a time, each after the one before it. */
  readonly #extends = new Map<string, Promise<unknown>>();
  /** The deadline init took at each computer's last extend here. */
  readonly #initDeadline = new Map<string, number>();

  constructor(options: E2BProviderOptions) {
    this.#o = settle(options);
    this.#conn = connectionOf(this.#o.apiKey, this.#o.domain);
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
    this.version = options.version ?? packageVersion();
  }

  capabilities(): Capabilities {
    return capabilitiesOf(this.#o);
  }

  check(spec: ComputerSpec): Result<CheckedSpec> {
    return checkedSpec(spec, checkSpec(spec, this.capabilities()));
  }

  // --- E2B's calls, each bounded and signalled ---

  async #e2b<T>(
    what: string,
    run: (sdk: E2BSandboxClass, opts: E2BConnection & { requestTimeoutMs: number; signal: AbortSignal }) => Promise<T>,
    signal?: AbortSignal,
    ms = this.#o.t.requestMs,
    late?: (value: T) => void,
  ): Promise<Result<T>> {
    let sdk: E2BSandboxClass;
    try {
      sdk = await this.#sdk();
    } catch (error) {
      return fail("failed", `the e2b package could not be loaded (install it beside this one: npm install e2b): ${wordsOf(error)}`);
    }
    return call((s, bound) => run(sdk, { ...this.#conn, requestTimeoutMs: bound, signal: s }), { what, ms, signal, ...(late ? { late } : {}) });
  }

  #getInfo(id: string, signal?: AbortSignal): Promise<Result<E2BSandboxInfo>> {
    return this.#e2b(`Sandbox.getInfo of ${id}`, (sdk, opts) => sdk.getInfo(id, opts), signal);
  }

  /** Every sandbox whose metadata holds these keys and agentrun.computer=1, running or paused, every page, within one deadline. */
  async #listAll(metadata: Record<string, string>, signal?: AbortSignal): Promise<Result<E2BSandboxInfo[]>> {
    const { bound, signal: whole } = boundedBy(this.#o.t.listMs, signal);
    let sdk: E2BSandboxClass;
    try {
      sdk = await this.#sdk();
    } catch (error) {
      return fail("failed", `the e2b package could not be loaded: ${wordsOf(error)}`);
    }
    const pages = sdk.list({ ...this.#conn, query: { metadata: { ...metadata, [COMPUTER_KEY]: "1" }, state: ["running", "paused"] }, limit: 100 });
    const out: E2BSandboxInfo[] = [];
    for (let page = 0; pages.hasNext; page += 1) {
      if (page >= 1000) return fail("failed", "E2B's listing never ended (1000 pages)");
      const read = await call((s, ms) => pages.nextItems({ ...this.#conn, requestTimeoutMs: ms, signal: s }), {
        what: "Sandbox.list",
        ms: this.#o.t.requestMs,
        signal: whole,
      });
      if (!read.ok)
        return bound.aborted && !signal?.aborted ? fail("timeout", `listing E2B's sandboxes did not finish within ${this.#o.t.listMs / 1000} s`) : read;
      out.push(...read.value);
    }
    return ok(out);
  }

  #readDaemon(): Promise<{ bytes: Buffer; sha256: string }> {
    this.#daemon ??= readFile(this.#o.daemonPath).then((bytes) => ({ bytes, sha256: sha256Of(bytes) }));
    this.#daemon.catch(() => (this.#daemon = undefined));
    return this.#daemon;
  }

  /** The daemon's bytes, or why they could not be read, before anything is made. */
  async #daemonBytes(): Promise<Result<{ bytes: Buffer; sha256: string }>> {
    try {
      return ok(await this.#readDaemon());
    } catch (error) {
      return fail("invalid", `the daemon at ${this.#o.daemonPath} could not be read: ${(error as Error).message}; nothing was made`, { field: "daemonPath" });
    }
  }

  #daemonWant(sha256: string): DaemonExpected {
    return { version: this.version, arch: "amd64", kind: "linux", groups: GROUPS, user: this.#o.daemonUser, sha256 };
  }

  /** Kill, never signalled, then the wait until getInfo answers not found and the listing no longer shows it, twice running. */
  async #killAndWait(id: string, signal?: AbortSignal): Promise<Result<undefined>> {
    const killed = await this.#e2b(`Sandbox.kill of ${id}`, (sdk, opts) => sdk.kill(id, { ...opts }));
    if (!killed.ok && killed.error.code !== "not_found") return killed;
    let seen = 0;
    let last = "not read";
    const gone = await waitUntil(
      async (s) => {
        const one = await this.#getInfo(id, s);
        const all = await this.#listAll({}, s);
        const listed = all.ok && all.value.some((x) => x.sandboxId === id);
        last = one.ok ? `state ${one.value.state}` : one.error.code === "not_found" ? (listed ? "listed still" : "gone") : one.error.message;
        seen = !one.ok && one.error.code === "not_found" && all.ok && !listed ? seen + 1 : 0;
        return seen;
      },
      (n) => n >= 2,
      { boundMs: this.#o.t.goneMs, signal, minMs: this.#o.t.pollMs, what: `${id} to be gone`, describe: () => last },
    );
    if (!gone.ok) return fail(gone.error.code, `${gone.error.message}; E2B last read it ${last}`);
    return ok();
  }

  /** Adoption's lookups: the computers with these keys, running or paused, with E2B's startedAt; and a kill of one. */
  #claims(): Claims {
    return {
      list: async (metadata, options) => {
        const all = await this.#listAll(metadata, options.signal);
        if (!all.ok) return all;
        const out: Claimed[] = [];
        for (const info of all.value) {
          const own = ownKeysOf(info.metadata);
          if (own.ok)
            out.push({ ref: { id: info.sandboxId, name: own.value.name, provider: this.id }, state: stateOf(info), created: createdAt(info.startedAt) });
        }
        return ok(out);
      },
      read: (by, options) => this.read(by, options),
      remove: (ref) => this.#killAndWait(ref.id),
      defaults: this.capabilities().defaults,
    };
  }

  // --- create ---

  async create(spec: ComputerSpec, options: CreateOptions = {}): Promise<Result<ComputerRef>> {
    const { signal } = options;
    const checked = this.check(spec);
    if (!checked.ok) return checked;
    if (signal?.aborted) return fail("aborted", "create was aborted before anything was made");
    const bytes = await this.#daemonBytes();
    if (!bytes.ok) return bytes;
    const daemon = bytes.value;
    // A sandbox an interrupted create of the same owner and spec left: adopted when whole, else killed.
    if (options.owner !== undefined) {
      const adopted = await adoptOrClear(this.#claims(), spec, options.owner, options);
      if (!adopted.ok) return adopted;
      if (adopted.value) return ok(adopted.value);
    }
    const name = `computer-${randomBytes(6).toString("hex")}`;
    const now = Date.now();
    const timeoutS = Math.ceil(spec.lifetimeMs / 1000);
    const deadline = new Date(now + spec.lifetimeMs).toISOString();
    const max = new Date(now + this.#o.maxLifetimeMs).toISOString();
    // The owner's keys are in the create request itself: no moment exists when the sandbox is unlabelled.
    const metadata = {
      ...labelsWithClaim(spec, options.owner),
      [COMPUTER_KEY]: "1",
      [NAME_KEY]: name,
      [DEADLINE_KEY]: deadline,
      [IMAGE_KEY]: spec.image,
      [TIMEOUT_KEY]: String(timeoutS),
      [MAX_KEY]: max,
    };
    const made = await this.#make(spec.image, name, metadata, timeoutS, signal);
    if (!made.ok) return made;
    const sandbox = made.value;
    const id = sandbox.sandboxId;
    const refused = async (code: ResultCode, words: string): Promise<Result<ComputerRef>> => {
      const gone = await this.#killAndWait(id);
      return fail(signal?.aborted ? "aborted" : code, `${words}; ${gone.ok ? `${name} was killed` : `killing ${name} failed: ${gone.error.message}`}`);
    };

    const info = await this.#getInfo(id, signal);
    if (!info.ok) return refused(info.error.code, info.error.message);
    const drift = infoDrift(info.value, { template: spec.image, metadata, timeoutS });
    if (drift.length) return refused("refused", `${name} is not what was declared: ${drift.join("; ")}`);

    const installed = await this.#install(sandbox, name, daemon, signal);
    if (!installed.ok) return refused(installed.error.code, installed.error.message);

    // init, in the background with no command timeout (envd ends a command at its timeout).
    let initWords = "";
    const startOnly = new AbortController();
    const init = await call(
      (_s, ms) =>
        sandbox.commands.run(startCommand({ deadline, maxDeadline: max, user: this.#o.daemonUser }), {
          background: true,
          user: "root",
          timeoutMs: 0,
          requestTimeoutMs: ms,
          signal: startOnly.signal,
          onStdout: (d) => void (initWords.length < 4096 && (initWords += d)),
          onStderr: (d) => void (initWords.length < 4096 && (initWords += d)),
        }),
      { what: `starting computerd init in ${name}`, ms: this.#o.t.commandMs, signal, late: (h) => void h.disconnect().catch(() => undefined) },
    );
    if (!init.ok) return refused(init.error.code, init.error.message);
    const detach = () => Promise.race([init.value.disconnect().catch(() => undefined), new Promise((r) => setTimeout(r, this.#o.t.requestMs).unref())]);

    const connection = await this.#openRetrying(sandbox, name, signal);
    if (!connection.ok) {
      // init's own words say why it did not start (no CAP_SYS_ADMIN, another process with its uid).
      const words = refusalIn(initWords) ?? initWords.trim().split("\n").pop();
      await detach();
      return refused(connection.error.code === "aborted" ? "aborted" : "refused", `${connection.error.message}${words ? `; init said: ${words}` : ""}`);
    }
    await detach();
    const read = await this.#readDaemonOver(connection.value, daemon.sha256, signal);
    await connection.value.close();
    if (!read.ok) return refused(read.error.code, read.error.message);
    if (read.value.drift.length) return refused("refused", `${name}'s daemon is not what was declared: ${read.value.drift.join("; ")}`);
    if (signal?.aborted) return refused("aborted", "create was aborted after its checks");

    // E2B's listing shows a new sandbox a moment late.
    const listed = await waitUntil(
      (s) => this.#listAll({ [NAME_KEY]: name }, s),
      (r) => r.ok && r.value.some((x) => x.sandboxId === id),
      {
        boundMs: this.#o.t.listedMs,
        signal,
        minMs: this.#o.t.pollMs,
        what: `${name} to be listed`,
        describe: (r) => (r.ok ? `${r.value.length} listed` : r.error.message),
      },
    );
    if (!listed.ok) return refused(listed.error.code, listed.error.message);
    if (signal?.aborted) return refused("aborted", "create was aborted at its end");
    const own = ownKeysOf(metadata);
    if (!own.ok) return refused("failed", own.why);
    return ok(this.#refOf(info.value, own.value, read.value.hello, read.value.notes));
  }

  /**
   * Sandbox.create as every computer is made: the metadata, the timeout, no internet, no public
   * traffic in, killed at its timeout. Raced against the caller's signal and the bound, never
   * cancelled: one that lands after is killed by its id, one whose answer never came by its name.
   */
  async #make(template: string, name: string, metadata: Record<string, string>, timeoutS: number, signal?: AbortSignal): Promise<Result<E2BSandbox>> {
    const made = await this.#e2b(
      `Sandbox.create of ${name}`,
      (sdk, { signal: _s, ...opts }) =>
        sdk.create(template, {
          // The SDK's own bound is past the race's, so a create given up on still answers, and is killed.
          ...opts,
          requestTimeoutMs: this.#o.t.createMs * 2,
          metadata,
          timeoutMs: timeoutS * 1000,
          allowInternetAccess: false,
          network: { allowPublicTraffic: false },
          lifecycle: { onTimeout: "kill", autoResume: false },
        }),
      signal,
      this.#o.t.createMs,
      (landed) => void this.#killAndWait(landed.sandboxId),
    );
    if (made.ok) return made;
    if (["invalid", "unauthorized", "not_found", "limit"].includes(made.error.code)) return fail(made.error.code, `${made.error.message}; nothing was made`);
    // No answer: the sandbox may be there all the same, under its name.
    const left = await this.#killByName(name);
    return fail(signal?.aborted ? "aborted" : made.error.code, `${made.error.message}; ${left}`);
  }

  /** The daemon uploaded as root and installed root-owned at /opt/agentrun/computerd, its sha256 read back. */
  async #install(sandbox: E2BSandbox, name: string, daemon: { bytes: Buffer; sha256: string }, signal?: AbortSignal): Promise<Result<{ sha256: string }>> {
    const uploaded = uploadPath();
    const up = await call((s, ms) => sandbox.files.write(uploaded, new Blob([daemon.bytes]), { user: "root", requestTimeoutMs: ms, signal: s }), {
      what: `uploading the daemon to ${name}`,
      ms: this.#o.t.uploadMs,
      signal,
    });
    if (!up.ok) return up;
    const install = await this.#run(sandbox, installCommand(uploaded), "installing the daemon", signal);
    if (!install.ok) return install;
    return readInstall(install.value.exitCode, `${install.value.stdout}${install.value.stderr}`, daemon.sha256);
  }

  /**
   * The live network diagnostic (e2b-diagnose.js): one sandbox made as create makes one for network
   * none, with E2B's timeout diagnoseMs; its read-back and the provider's check of it (passed, or
   * its refusal in words); computerd probe --diagnose run in it as root, outside any namespace of
   * the daemon's, so it reads what E2B's firewall does; then the sandbox killed and read back gone,
   * whatever came before.
   */
  async diagnose(
    template: string,
    options: CallOptions & { diagnoseMs?: number } = {},
  ): Promise<Result<{ sandbox: string; readBack: unknown; check: string; diagnosis: unknown; gone: boolean; goneWords?: string }>> {
    const { signal } = options;
    const bytes = await this.#daemonBytes();
    if (!bytes.ok) return bytes;
    const daemon = bytes.value;
    const name = `computer-${randomBytes(6).toString("hex")}`;
    const now = Date.now();
    const timeoutS = Math.ceil((options.diagnoseMs ?? 600_000) / 1000);
    const at = (ms: number) => new Date(now + ms).toISOString();
    const metadata = {
      [COMPUTER_KEY]: "1",
      [NAME_KEY]: name,
      [DEADLINE_KEY]: at(timeoutS * 1000),
      [IMAGE_KEY]: template,
      [TIMEOUT_KEY]: String(timeoutS),
      [MAX_KEY]: at(timeoutS * 1000),
      "agentrun.diagnose": "1",
    };
    const made = await this.#make(template, name, metadata, timeoutS, signal);
    if (!made.ok) return made;
    const id = made.value.sandboxId;
    let readBack: unknown;
    let check = "not read";
    let diagnosis: unknown;
    let failure: string | undefined;
    const info = await this.#getInfo(id, signal);
    if (info.ok) {
      readBack = { ...info.value, metadata: labelsOf(info.value.metadata) };
      const drift = infoDrift(info.value, { template, metadata, timeoutS });
      check = drift.length ? `refused: ${drift.join("; ")}` : "passed";
      const installed = await this.#install(made.value, name, daemon, signal);
      if (installed.ok) {
        const ran = await this.#run(made.value, `${CHILD_DAEMON} probe --diagnose`, "computerd probe --diagnose", signal);
        if (ran.ok) {
          try {
            diagnosis = JSON.parse(ran.value.stdout.trim().split("\n").pop() ?? "");
          } catch {
            failure = `computerd probe --diagnose printed no JSON line (exit ${ran.value.exitCode}): ${ran.value.stderr.trim().slice(0, 400)}`;
          }
        } else failure = ran.error.message;
      } else failure = installed.error.message;
    } else failure = info.error.message;
    const gone = await this.#killAndWait(id);
    const out = { sandbox: id, readBack, check, diagnosis, gone: gone.ok, ...(gone.ok ? {} : { goneWords: gone.error.message }) };
    if (failure || diagnosis === undefined)
      return fail(
        signal?.aborted ? "aborted" : "failed",
        `${failure ?? "no diagnosis"}; ${gone.ok ? `${name} was killed` : `killing ${name} failed: ${gone.error.message}`}`,
      );
    return ok(out);
  }

  /** A sandbox whose create never answered, found by its name label and killed; words on what was left. */
  async #killByName(name: string): Promise<string> {
    const found = await waitUntil(
      (s) => this.#listAll({ [NAME_KEY]: name }, s),
      (r) => r.ok && r.value.length > 0,
      {
        boundMs: this.#o.t.listedMs,
        minMs: this.#o.t.pollMs,
        what: `${name} to be listed`,
      },
    );
    if (!found.ok)
      return found.error.code === "timeout"
        ? `${name} was not listed within ${this.#o.t.listedMs / 1000} s, so nothing was left`
        : `${name} may be left: ${found.error.message}`;
    if (!found.value.ok) return `${name} may be left: ${found.value.error.message}`;
    const words: string[] = [];
    for (const info of found.value.value) {
      const gone = await this.#killAndWait(info.sandboxId);
      words.push(gone.ok ? `${name} (${info.sandboxId}) was killed` : `${name} (${info.sandboxId}) may be left: ${gone.error.message}`);
    }
    return words.join("; ");
  }

  /** A foreground command as root: its exit, stdout and stderr (a non-zero exit is the SDK's CommandExitError). */
  #run(sandbox: E2BSandbox, command: string, what: string, signal?: AbortSignal): Promise<Result<{ exitCode: number; stdout: string; stderr: string }>> {
    return call(
      async (s, ms) => {
        try {
          const done = await sandbox.commands.run(command, { user: "root", timeoutMs: this.#o.t.commandMs, requestTimeoutMs: ms, signal: s });
          return { exitCode: done.exitCode, stdout: done.stdout, stderr: done.stderr };
        } catch (error) {
          if (!isE2BError(error, "CommandExitError")) throw error;
          const e = error as unknown as { exitCode: number; stdout: string; stderr: string };
          return { exitCode: e.exitCode, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
        }
      },
      { what, ms: this.#o.t.commandMs, signal },
    );
  }

  /** create's first connection: init may not listen yet, so the bridge is tried again within helloMs. */
  async #openRetrying(sandbox: E2BSandbox, name: string, signal?: AbortSignal): Promise<Result<Connection>> {
    const until = Date.now() + this.#o.t.helloMs;
    for (;;) {
      const tried = await openBridge(sandbox, { target: name, helloMs: Math.max(1000, until - Date.now()), requestMs: this.#o.t.requestMs, signal });
      if (tried.ok || signal?.aborted || Date.now() + 500 >= until || tried.error.code === "aborted") return tried;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** The daemon over a connection: hello, its status, cwd, exe and sha256, and the probe for network none. */
  async #readDaemonOver(
    connection: Connection,
    sha256: string,
    signal?: AbortSignal,
  ): Promise<Result<{ hello: Hello; drift: string[]; notes: string[]; network: NetworkReadBack }>> {
    let drift: string[];
    try {
      drift = await daemonDrift(connection.client, connection.hello, this.#daemonWant(sha256), signal);
    } catch {
      return fail("aborted", "reading the daemon was aborted");
    }
    const probe = await readNetworkNone(connection.client, {
      daemonPath: CHILD_DAEMON,
      interfaces: ["lo"],
      user: this.#o.daemonUser,
      ...(this.#o.probeTargets ? { targets: this.#o.probeTargets } : {}),
      ...(signal ? { signal } : {}),
    });
    if (!probe.ok) {
      if (probe.error.code === "aborted") return probe;
      drift.push(probe.error.message);
    }
    return ok({ hello: connection.hello, drift, notes: probe.ok ? probe.value.notes : [], network: probe.ok ? "none" : { other: probe.error.message } });
  }

  #refOf(info: E2BSandboxInfo, own: OwnKeys, hello: Hello | undefined, notes: string[] = []): ComputerRef {
    const spec: SpecReadBack & { snapshot?: string } = {
      image: own.image,
      user: this.#o.daemonUser,
      network: networkOf(info),
      ...(hello ? { workdir: CHILD_HOME } : {}),
      deadline: deadlineOf(info, own),
      kind: "linux",
      snapshot: info.templateId,
    };
    return { id: info.sandboxId, name: own.name, provider: this.id, spec, ...(hello ? { hello } : {}), ...(notes.length ? { notes } : {}) };
  }

  // --- attach, read, list ---

  async #find(by: AttachBy, signal?: AbortSignal): Promise<Result<Found>> {
    if (by && "id" in by) {
      if (typeof by.id !== "string" || !by.id || by.id.length > 200 || /[\s/]/.test(by.id))
        return fail("invalid", "attach takes { id }: a sandbox id or a computer's name", { field: "id" });
      if (NAME_PATTERN.test(by.id)) return this.#one({ [NAME_KEY]: by.id }, by.id, signal);
      const info = await this.#getInfo(by.id, signal);
      if (!info.ok) return info.error.code === "not_found" ? fail("not_found", `no computer ${by.id} at E2B`) : info;
      const own = ownKeysOf(info.value.metadata);
      if (!own.ok) return fail("not_found", `${by.id} is not a computer of this provider (${own.why})`);
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
    const all = await this.#listAll(metadata, signal);
    if (!all.ok) return all;
    const found = all.value.filter((x) => ownKeysOf(x.metadata).ok);
    if (found.length === 0) return fail("not_found", `no computer of this provider has ${what}`);
    if (found.length > 1) return fail("invalid", `${found.length} computers have ${what}; attach takes one`);
    const info = await this.#getInfo(found[0]!.sandboxId, signal);
    if (!info.ok) return info.error.code === "not_found" ? fail("not_found", `no computer of this provider has ${what}`) : info;
    const own = ownKeysOf(info.value.metadata);
    return own.ok ? ok({ info: info.value, own: own.value }) : fail("not_found", `${info.value.sandboxId} is not a computer of this provider (${own.why})`);
  }

  async read(by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
    const { signal } = options;
    const found = await this.#find(by, signal);
    if (!found.ok) return found;
    const { info, own } = found.value;
    const drift = infoDrift(info, { template: own.image, metadata: {} }).filter((d) => info.state === "running" || !/ is paused, not running/.test(d));
    if (info.state !== "running") return ok({ ref: this.#refOf(info, own, undefined), state: stateOf(info), labels: labelsOf(info.metadata), drift });
    const daemon = await this.#readDaemon().catch(() => undefined);
    if (!daemon) return fail("failed", `the daemon at ${this.#o.daemonPath} could not be read, so ${own.name}'s daemon cannot be checked against it`);
    const connection = await this.#connectTo(found.value, signal);
    let hello: Hello | undefined;
    let notes: string[] = [];
    if (!connection.ok) {
      if (connection.error.code === "aborted") return connection;
      drift.push(connection.error.message);
    } else {
      const read = await this.#readDaemonOver(connection.value, daemon.sha256, signal);
      await connection.value.close();
      if (!read.ok) return read;
      hello = read.value.hello;
      notes = read.value.notes;
      drift.push(...read.value.drift);
    }
    return ok({ ref: this.#refOf(info, own, hello, notes), state: "running", labels: labelsOf(info.metadata), ...(hello ? { hello } : {}), drift });
  }

  async attach(by: AttachBy, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    return attachedIf(await this.read(by, options));
  }

  async list(labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
    if (
      typeof labels !== "object" ||
      labels === null ||
      Object.entries(labels).some(([k, v]) => !k || k.includes("\0") || typeof v !== "string" || v.includes("\0"))
    ) {
      return fail("invalid", "list takes labels: an object of strings", { field: "labels" });
    }
    const { bound, signal: whole } = boundedBy(this.#o.t.listMs, options.signal);
    const all = await this.#listAll(labels, whole);
    if (!all.ok) return all;
    const out: ComputerInfo[] = [];
    for (const listed of all.value) {
      if (!ownKeysOf(listed.metadata).ok) continue;
      // Read back on its own for its network, within the same deadline.
      const one = await this.#getInfo(listed.sandboxId, whole);
      if (!one.ok) {
        if (one.error.code === "not_found") continue;
        return bound.aborted && !options.signal?.aborted ? fail("timeout", `list() did not finish within ${this.#o.t.listMs / 1000} s`) : one;
      }
      const own = ownKeysOf(one.value.metadata);
      if (!own.ok) continue;
      out.push({
        ref: { id: one.value.sandboxId, name: own.value.name, provider: this.id },
        labels: one.value.metadata,
        deadline: new Date(deadlineOf(one.value, own.value)),
        state: stateOf(one.value),
        network: networkOf(one.value),
      });
    }
    return ok(out);
  }

  // --- network, connect ---

  /** The ref's sandbox, only when its metadata names it as this provider's computer of the ref's name. */
  async #target(ref: ComputerRef, signal?: AbortSignal): Promise<Result<Found>> {
    if (typeof ref?.id !== "string" || !ref.id || typeof ref.name !== "string" || !NAME_PATTERN.test(ref.name)) {
      return fail("invalid", "a ref is { id, name } of a computer this provider made (name computer-<12 hex digits>)", { field: "ref" });
    }
    const found = await this.#find({ id: ref.id }, signal);
    if (!found.ok) return found;
    if (found.value.own.name !== ref.name)
      return fail("not_found", `${ref.id} is the computer ${found.value.own.name}, not ${ref.name}, so nothing was done to it`);
    return found;
  }

  async network(ref: ComputerRef, policy?: NetworkPolicy, options: CallOptions = {}): Promise<Result<NetworkReadBack>> {
    if (policy !== undefined && policy !== "none") return fail("unsupported", `${NETWORK_GAP}; the network is fixed at create`, { field: "network" });
    const found = await this.#target(ref, options.signal);
    if (!found.ok) return found;
    const now = networkOf(found.value.info);
    if (policy !== undefined && now !== "none")
      return fail("unsupported", `an E2B computer's network is fixed at create; ${ref.name} stays as it is: make a new computer with network none`, {
        field: "network",
      });
    return ok(now);
  }

  /** Sandbox.connect with a timeout a little under what is left (E2B moves a running sandbox's end only to a longer one), then the bridge. */
  async #connectTo(found: Found, signal?: AbortSignal): Promise<Result<Connection>> {
    const { info, own } = found;
    const left = new Date(info.endAt).getTime() - Date.now();
    if (left <= CONNECT_UNDER_MS + 1000) return fail("gone", `${own.name} has ${Math.max(0, Math.round(left / 1000))} s left: E2B is about to kill it`);
    const sandbox = await this.#e2b(
      `Sandbox.connect of ${own.name}`,
      (sdk, opts) => sdk.connect(info.sandboxId, { ...opts, timeoutMs: left - CONNECT_UNDER_MS }),
      signal,
    );
    if (!sandbox.ok) return sandbox.error.code === "not_found" ? fail("gone", sandbox.error.message) : sandbox;
    return openBridge(sandbox.value, { target: own.name, helloMs: this.#o.t.helloMs, requestMs: this.#o.t.requestMs, signal });
  }

  async connect(ref: ComputerRef, options: CallOptions = {}): Promise<Result<Connection>> {
    const found = await this.#target(ref, options.signal);
    if (!found.ok)
      return found.error.code === "not_found" && !/is the computer|not a computer/.test(found.error.message) ? fail("gone", found.error.message) : found;
    // E2B's connect resumes a paused sandbox: refused here without connecting.
    if (found.value.info.state !== "running")
      return fail(
        "unsupported",
        `${ref.name} is ${found.value.info.state}, not running: a computer that is not running is not connected to (connecting would resume it)`,
      );
    const connection = await this.#connectTo(found.value, options.signal);
    if (!connection.ok) return connection;
    const wrong = helloDrift(connection.value.hello, this.#daemonWant(""));
    if (wrong.length) {
      await connection.value.close();
      return fail("refused", `the daemon in ${ref.name} is not the provider's: ${wrong.join("; ")}; make a new computer with this provider`);
    }
    return connection;
  }

  // --- release, extend ---

  async release(ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
    if (how === "stop")
      return fail(
        "unsupported",
        `release "stop" is refused: E2B's pause keeps a sandbox and no release maps to it here, so ${ref?.name ?? "the computer"} runs on: release it with delete`,
        { field: "how" },
      );
    if (how !== "delete") return fail("invalid", 'release takes "stop" or "delete"', { field: "how" });
    const id = ref?.id;
    if (typeof id !== "string" || !id || /[\s/]/.test(id)) return fail("invalid", "an E2B computer's ref has its sandbox id", { field: "id" });
    // Read and killed whatever the caller's signal: a release whose signal aborted first still kills.
    const info = await this.#getInfo(id);
    if (!info.ok) return info.error.code === "not_found" ? ok() : info;
    const own = ownKeysOf(info.value.metadata);
    if (!own.ok) return fail("not_found", `${id} is not a computer of this provider (${own.why}), so it was not killed`);
    const gone = await this.#killAndWait(id, options.signal);
    if (!gone.ok) return fail(gone.error.code, `release of ${own.value.name}: ${gone.error.message}`);
    const earlier = await removeEarlier(this.#claims(), { id, labels: info.value.metadata, created: createdAt(info.value.startedAt) });
    return earlier.ok ? ok() : earlier;
  }

  async extend(ref: ComputerRef, ttlMs: number, options: CallOptions = {}): Promise<Result<{ deadline: string }>> {
    if (!Number.isInteger(ttlMs) || ttlMs <= 0) return fail("invalid", "extend takes ttlMs: a whole number of milliseconds above 0", { field: "ttlMs" });
    const key = String(ref?.id);
    const before = this.#extends.get(key) ?? Promise.resolve();
    const mine = before.then(() => this.#extendOnce(ref, ttlMs, options.signal));
    this.#extends.set(
      key,
      mine.catch(() => undefined),
    );
    return mine;
  }

  async #extendOnce(ref: ComputerRef, ttlMs: number, signal?: AbortSignal): Promise<Result<{ deadline: string }>> {
    const found = await this.#target(ref, signal);
    if (!found.ok) return found;
    const { info, own } = found.value;
    const now = Date.now();
    const cap = Date.parse(own.max);
    const held = Math.max(new Date(info.endAt).getTime(), this.#initDeadline.get(info.sandboxId) ?? Date.parse(own.deadline));
    if (now + ttlMs > cap)
      return fail("limit", `${ref.name} cannot live past ${own.max} (its create's time plus the cap of ${this.#o.maxLifetimeMs} ms), so nothing moved`, {
        field: "ttlMs",
      });
    const want = Math.max(now + ttlMs, createdEnd(info, own) + EXTEND_PAST_MS);
    // Whole seconds, rounded down at the cap, so E2B's end never passes it by this machine's clock.
    const seconds = Math.floor((Math.min(want, cap) - now) / 1000);
    if (now + seconds * 1000 < held) {
      return fail(
        "limit",
        `${ref.name}'s deadline stays ${new Date(held).toISOString()}: no whole number of seconds within the cap (${own.max}) reaches it from now + ${ttlMs} ms, so nothing moved`,
        { field: "ttlMs" },
      );
    }
    const set = await this.#e2b(`Sandbox.setTimeout of ${own.name}`, (sdk, opts) => sdk.setTimeout(info.sandboxId, seconds * 1000, opts), signal);
    if (!set.ok) return set;
    const after = await this.#getInfo(info.sandboxId, signal);
    if (!after.ok)
      return fail(after.error.code, `E2B's timer of ${own.name} moved, but it could not be read back, so init's deadline did not: ${after.error.message}`);
    const at = new Date(Math.min(new Date(after.value.endAt).getTime(), cap)).toISOString();
    const connection = await this.#connectTo({ info: after.value, own }, signal);
    if (!connection.ok)
      return fail(
        connection.error.code,
        `E2B's timer of ${own.name} moved to ${at} and init's deadline did not (its programs end at the old one): ${connection.error.message}`,
      );
    try {
      const took = await connection.value.client.call("deadline.extend", { at }, signal ? { signal } : {});
      this.#initDeadline.set(info.sandboxId, Date.parse(took.at));
      return ok({ deadline: took.at });
    } catch (error) {
      return fail(
        codeOf(error) === "failed" ? "refused" : codeOf(error),
        `E2B's timer of ${own.name} moved to ${at} and init's deadline did not (its programs end at the old one): ${wordsOf(error)}`,
      );
    } finally {
      await connection.value.close();
    }
  }

  // --- the sweep's and Settings' ---

  /** The ids of every sandbox with agentrun.computer=1, whatever its state (the sweep's). */
  async labelled(options: CallOptions = {}): Promise<Result<string[]>> {
    const all = await this.#listAll({}, options.signal);
    return all.ok ? ok(all.value.map((x) => x.sandboxId)) : all;
  }

  /** True once getInfo answers not found and the listing no longer shows it. */
  async gone(id: string, options: CallOptions = {}): Promise<Result<boolean>> {
    const one = await this.#getInfo(id, options.signal);
    if (one.ok) return ok(false);
    if (one.error.code !== "not_found") return one;
    const all = await this.#listAll({}, options.signal);
    return all.ok ? ok(!all.value.some((x) => x.sandboxId === id)) : all;
  }

  /** One listing page: E2B answers the key; a further page reads "or more". */
  async testConnection(options: CallOptions = {}): Promise<Result<{ detail: string }>> {
    let sdk: E2BSandboxClass;
    try {
      sdk = await this.#sdk();
    } catch (error) {
      return fail("failed", `the e2b package could not be loaded: ${wordsOf(error)}`);
    }
    const pages = sdk.list({ ...this.#conn, query: { metadata: { [COMPUTER_KEY]: "1" } }, limit: 100 });
    const page = await call((s, ms) => pages.nextItems({ ...this.#conn, requestTimeoutMs: ms, signal: s }), {
      what: "Sandbox.list",
      ms: this.#o.t.requestMs,
      signal: options.signal,
    });
    if (!page.ok) return page;
    const n = page.value.filter((x) => ownKeysOf(x.metadata).ok).length;
    return ok({ detail: `E2B answers; ${n}${pages.hasNext ? " or more" : ""} computer${n === 1 && !pages.hasNext ? "" : "s"} of this provider` });
  }
}
