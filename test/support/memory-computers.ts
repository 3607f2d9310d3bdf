// The in-memory vendor every test without a real one uses (the conformance runner's, the janitor's,
// the RunEpoch resource's and the plugin's functions'): computers are entries in a map, a
// connection's client answers hello, ping, files.mkdir and the exec.run lines the conformance cases
// send from recorded outputs (a status with no capability, /proc/net/dev with lo alone, a probe
// line), and every fault a test needs is one option or field (a release that fails by name, one a
// test aborts). With pause or snapshot it keeps state (memory-state.ts): files, a counting process,
// pause and resume, snapshots and forks, and the breaks of each promise. JANITOR_VENDOR is a vendor whose computers the janitor ends, as Docker's are.
// Nothing here reaches a network.
import { type Runtime, runtimeRefusal } from "../../src/contract/runtime.js";
import { CallError, type CallOptions, type ComputerClient } from "../../src/daemon/client.js";
import { checkLifetime } from "../../src/contract/lifetime.js";
import type { Hello } from "../../src/daemon/protocol.js";
import type {
  CheckedSpec,
  AttachBy,
  Capabilities,
  ComputerInfo,
  ComputerProvider,
  ComputerRef,
  ComputerSpec,
  Connection,
  NetworkPolicy,
  NetworkReadBack,
  PauseHooks,
  ReleaseHow,
  SnapshotHooks,
} from "../../src/contract/provider.js";
import type { PauseKeeps } from "../../src/contract/state.js";
import type { RunFolder } from "../../src/conformance/case.js";
import { fail, ok, type Result } from "../../src/daemon/result.js";
import { type Files, memoryRunFolder, MemoryState, MemoryStateHooks, type StateBreak } from "./memory-state.js";

export const STATUS_UNPRIVILEGED = [
  "Name:\tcat",
  "Uid:\t1000\t1000\t1000\t1000",
  "Gid:\t1000\t1000\t1000\t1000",
  "CapInh:\t0000000000000000",
  "CapPrm:\t0000000000000000",
  "CapEff:\t0000000000000000",
  "CapBnd:\t0000000000000000",
  "CapAmb:\t0000000000000000",
  "NoNewPrivs:\t1",
  "",
].join("\n");

export const NET_DEV_LO = [
  "Inter-|   Receive                                                |  Transmit",
  " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed",
  "    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0",
  "",
].join("\n");

/** A probe line for the targets: each refused, unless given another outcome. */
export function probeLine(targets: string[], outcomes: Record<string, "refused" | "accepted" | "answered"> = {}, interfaces = ["lo"]): string {
  const results = targets.map((target) => ({ target, protocol: "tcp", outcome: outcomes[target] ?? "refused", bytes: 0, detail: "connection refused" }));
  return JSON.stringify({
    uid: 1000,
    gid: 1000,
    kernel: "6.1.0",
    interfaces,
    reached: results.filter((r) => r.outcome === "answered").map((r) => r.target),
    accepted: results.filter((r) => r.outcome === "accepted").map((r) => r.target),
    results,
  });
}

export type ExecAnswer = { exitCode?: number; stdout?: string; stderr?: string };

interface Computer {
  ref: ComputerRef;
  labels: Record<string, string>;
  /** Undefined: a computer without its deadline label. */
  deadline: Date | undefined;
  state: "running" | "stopped";
  network: NetworkReadBack;
  /** Its files, processes and pause (memory-state.ts). */
  held: MemoryState;
}

export interface MemoryOptions {
  id?: string;
  version?: string;
  /** What the daemons report in hello (default: version). */
  daemonVersion?: string;
  /** Check the daemon's hello at create and connect, as a real provider does (default true). */
  checksDaemon?: boolean;
  groups?: Capabilities["groups"];
  daemon?: Capabilities["daemon"];
  vendorAgentPorts?: number[];
  /** What network() reads back for every computer, whatever it was made with. */
  networkReadBack?: NetworkReadBack;
  /** Release answers ok and deletes nothing. */
  keepOnRelease?: boolean;
  /** How long a create takes. */
  createMs?: number;
  /** An answer for an exec.run, by its argv; undefined falls through to the recorded ones. */
  exec?: (argv: string[]) => ExecAnswer | undefined;
  /** The vendor's store, shared by a provider and its drifted twin. */
  store?: Map<string, Computer>;
  /** Who ends a computer at its deadline (default the vendor). */
  lifetime?: Capabilities["lifetime"];
  /** The longest lifetime it takes (default a day). */
  maxLifetimeMs?: number;
  /** The releases it takes (default delete alone). */
  release?: ReleaseHow[];
  /** What its pause keeps; absent, it has no pause. */
  pause?: PauseKeeps;
  /** It takes snapshots. */
  snapshot?: boolean;
  /** It takes a run folder (mount bind), from runFolder(). */
  mount?: boolean;
  /** The state promises it breaks. */
  breaks?: StateBreak[];
  /** The networks it declares (default none alone); a change is refused all the same. */
  networks?: Capabilities["network"];
  /** The runtimes besides runc it offers, with what each holds. */
  runtimes?: Capabilities["runtimes"];
  /** What every connect answers instead of a connection (a daemon that does not answer in time). */
  connectFailure?: { code: "timeout" | "unreachable"; message: string };
}

/** A vendor whose computers the janitor ends at their deadline, as Docker's: 30 days at most, stop or delete. */
export const JANITOR_VENDOR: MemoryOptions = { lifetime: "janitor", maxLifetimeMs: 30 * 86_400_000, release: ["stop", "delete"] };

class MemoryClient implements ComputerClient {
  constructor(
    private readonly hello: Hello,
    private readonly exec: (argv: string[]) => ExecAnswer | undefined,
    readonly sent: Array<{ method: string; params: unknown }>,
    private readonly held: MemoryState | undefined,
  ) {}

  call(method: string, params: unknown, options?: CallOptions): Promise<never> {
    return this.request(method, params, options) as Promise<never>;
  }

  async request(method: string, params: unknown, options: CallOptions = {}): Promise<unknown> {
    this.sent.push({ method, params });
    if (options.signal?.aborted) throw new CallError("aborted", `${method} was aborted`, method);
    switch (method) {
      case "hello":
        return this.hello;
      case "ping":
        return {};
      case "files.mkdir":
        return {};
      case "exec.run": {
        const argv = (params as { argv: string[] }).argv;
        const answer = this.exec(argv) ?? this.held?.exec(argv) ?? recorded(argv);
        return {
          exitCode: answer.exitCode ?? 0,
          signal: null,
          stdout: Buffer.from(answer.stdout ?? "").toString("base64"),
          stderr: Buffer.from(answer.stderr ?? "").toString("base64"),
          timedOut: false,
          truncated: false,
        };
      }
      default: {
        const answer = this.held?.answer(method, params as Record<string, unknown>);
        if (answer !== undefined) return answer;
        throw new CallError("unsupported", `${method} is not a method of this daemon`, method, -32601);
      }
    }
  }

  async close(): Promise<void> {}
}

function recorded(argv: string[]): ExecAnswer {
  const line = argv.join(" ");
  if (line === "printenv HOME") return { stdout: "/home/agent\n" };
  if (line === "cat /proc/self/status") return { stdout: STATUS_UNPRIVILEGED };
  if (line === "cat /proc/net/dev") return { stdout: NET_DEV_LO };
  if (argv[1] === "probe") return { stdout: `${probeLine(argv.filter((_, i) => argv[i - 1] === "--connect"))}\n` };
  return { exitCode: 127, stderr: `${argv[0]}: not found\n` };
}

export class MemoryComputers implements ComputerProvider {
  readonly id: string;
  readonly version: string;
  readonly store: Map<string, Computer>;
  /** Every request any connection sent. */
  readonly sent: Array<{ method: string; params: unknown }> = [];
  readonly released: string[] = [];
  /** Labels of every list call. */
  readonly listed: Array<Record<string, string> | undefined> = [];
  /** Names whose release fails, with the words it fails with. */
  readonly failing = new Map<string, string>();
  /** Called before each release: a test aborts here. */
  onRelease: (name: string) => void = () => {};
  readonly pause?: PauseHooks;
  readonly snapshots?: SnapshotHooks;
  readonly state: MemoryStateHooks;
  /** The host's run folders by path. */
  readonly folders = new Map<string, Files>();
  readonly #breaks: ReadonlySet<StateBreak>;
  #next = 1;

  constructor(readonly options: MemoryOptions = {}) {
    this.id = options.id ?? "memory";
    this.version = options.version ?? "1.0.0";
    this.store = options.store ?? new Map();
    this.#breaks = new Set(options.breaks ?? []);
    this.state = new MemoryStateHooks(this.id, options.pause, this.#breaks, (ref) => this.store.get(ref.name)?.held);
    const pause = this.state.pauseHooks();
    if (pause) this.pause = pause;
    if (options.snapshot) this.snapshots = this.state.snapshotHooks();
  }

  /** A run folder of this vendor's host, for a run's mountFor. */
  runFolder(): RunFolder {
    return memoryRunFolder(this.folders, `/memory/run-folder-${this.#next++}`);
  }

  #held(): MemoryState {
    return new MemoryState(this.#breaks, this.folders);
  }

  capabilities(): Capabilities {
    const caps: Capabilities = {
      kind: "linux",
      os: "linux",
      daemon: this.options.daemon ?? "pid1",
      groups: this.options.groups ?? ["exec", "files", "processes"],
      lifetime: this.options.lifetime ?? "vendor",
      maxLifetimeMs: this.options.maxLifetimeMs ?? 86_400_000,
      network: this.options.networks ?? ["none"],
      release: this.options.release ?? ["delete"],
    };
    if (this.options.vendorAgentPorts) caps.vendorAgentPorts = this.options.vendorAgentPorts;
    if (this.options.pause) caps.pause = this.options.pause;
    if (this.options.snapshot) caps.snapshot = true;
    if (this.options.mount) caps.mount = ["bind"];
    if (this.options.runtimes) caps.runtimes = this.options.runtimes;
    return caps;
  }

  /** A computer with labels, as if made earlier; a null deadline is a missing deadline label. */
  add(labels: Record<string, string>, deadline: Date | null = new Date(Date.now() + 600_000), state: Computer["state"] = "running"): string {
    const name = `computer-${String(this.#next++).padStart(12, "0")}`;
    this.store.set(name, { ref: { id: name, name, provider: this.id }, labels, deadline: deadline ?? undefined, state, network: "none", held: this.#held() });
    return name;
  }

  #hello(): Hello {
    const groups = (this.options.groups ?? ["exec", "files", "processes"]).filter((g) => !["cdp", "stream", "downloads"].includes(g));
    return { version: this.options.daemonVersion ?? this.version, os: "linux", kind: "linux", arch: "amd64", groups };
  }

  check(spec: ComputerSpec): Result<CheckedSpec> {
    if (typeof spec.image !== "string" || spec.image.length === 0) return fail("invalid", "image is required", { field: "image" });
    const lifetime = checkLifetime(spec.lifetimeMs, this.capabilities());
    if (lifetime) return fail("invalid", lifetime.message, { field: lifetime.field });
    if (spec.network !== "none") return fail("invalid", "this vendor makes computers with network none only", { field: "network" });
    const runtime = runtimeRefusal(spec.runtime, ["runc", ...(Object.keys(this.options.runtimes ?? {}) as Runtime[])], "memory");
    if (runtime) return fail("invalid", runtime.message, { field: runtime.field });
    if (spec.mount && !(this.options.mount && spec.mount.kind === "bind"))
      return fail("invalid", `this vendor takes no mount of kind ${spec.mount.kind}`, { field: "mount" });
    return ok({ spec });
  }

  async create(spec: ComputerSpec, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    const checked = this.check(spec);
    if (!checked.ok) return checked;
    const forked = this.state.filesOf(spec.image);
    if (!forked.ok) return forked;
    if (this.options.createMs) await new Promise((resolve) => setTimeout(resolve, this.options.createMs));
    const name = `computer-${String(this.#next++).padStart(12, "0")}-${this.version}`;
    const ref: ComputerRef = {
      id: name,
      name,
      provider: this.id,
      spec: { image: spec.image, user: "1000:1000", network: spec.network, ...(spec.runtime ? { runtime: spec.runtime } : {}) },
    };
    const held = this.#held();
    if (forked.value) held.files = forked.value;
    if (spec.mount?.kind === "bind") held.mount = spec.mount.path;
    this.store.set(name, { ref, labels: { ...spec.labels }, deadline: new Date(Date.now() + spec.lifetimeMs), state: "running", network: spec.network, held });
    if (this.#drifted()) {
      this.store.delete(name);
      return fail("refused", `${name}'s daemon reports ${this.#hello().version}, not ${this.version}; it was deleted`);
    }
    if (options.signal?.aborted) {
      this.store.delete(name);
      return fail("aborted", "create was aborted");
    }
    return ok(ref);
  }

  #drifted(): boolean {
    return (this.options.checksDaemon ?? true) && this.#hello().version !== this.version;
  }

  #find(by: AttachBy): Computer | undefined {
    if ("id" in by) return this.store.get(by.id);
    const matches = [...this.store.values()].filter((c) => Object.entries(by.labels).every(([k, v]) => c.labels[k] === v));
    return matches.length === 1 ? matches[0] : undefined;
  }

  async attach(by: AttachBy): Promise<Result<ComputerRef>> {
    const found = this.#find(by);
    if (!found) return fail("not_found", "no such computer");
    if (this.#drifted()) return fail("refused", `${found.ref.name}'s daemon is not ${this.version}`);
    return ok(found.ref);
  }

  async list(labels?: Record<string, string>): Promise<Result<ComputerInfo[]>> {
    this.listed.push(labels);
    return ok(
      [...this.store.values()]
        .filter((c) => Object.entries(labels ?? {}).every(([k, v]) => c.labels[k] === v))
        .map((c) => ({ ref: c.ref, labels: c.labels, deadline: c.deadline, state: this.#stateOf(c), network: c.network })),
    );
  }

  #stateOf(c: Computer): ComputerInfo["state"] {
    return c.held.paused && !this.#breaks.has("pause-reads-running") ? "paused" : c.state;
  }

  async network(ref: ComputerRef, policy?: NetworkPolicy): Promise<Result<NetworkReadBack>> {
    const found = this.store.get(ref.name);
    if (!found) return fail("not_found", `no computer ${ref.name}`);
    const now = this.options.networkReadBack ?? found.network;
    if (policy === undefined || policy === now) return ok(now);
    return fail("unsupported", `a computer's network is fixed at create; ${ref.name} stays ${JSON.stringify(now)}`);
  }

  async connect(ref: ComputerRef): Promise<Result<Connection>> {
    if (!this.store.has(ref.name)) return fail("not_found", `no computer ${ref.name}`);
    if (this.options.connectFailure) return fail(this.options.connectFailure.code, this.options.connectFailure.message);
    if (this.#drifted()) return fail("refused", `${ref.name}'s daemon reports ${this.#hello().version}, not ${this.version}`);
    const hello = this.#hello();
    const client = new MemoryClient(hello, this.options.exec ?? (() => undefined), this.sent, this.store.get(ref.name)?.held);
    return ok({ client, hello, close: async () => {} });
  }

  async release(ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
    if (!this.capabilities().release.includes(how)) return fail("unsupported", "this vendor deletes; it does not stop");
    this.onRelease(ref.name);
    if (options.signal?.aborted) return fail("aborted", `the release of ${ref.name} was aborted`);
    const why = this.failing.get(ref.name);
    if (why) return fail("failed", why);
    this.released.push(ref.name);
    if (!this.options.keepOnRelease) this.store.delete(ref.name);
    return ok();
  }
}
