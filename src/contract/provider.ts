// The one interface every vendor sits behind, and the spec and ref types it takes and gives.
import type { CallOptions, Connection } from "../daemon/client.js";
import type { MountKind, MountReadBack, MountSpec } from "./mount.js";
import type { Group, Hello, MachineKind } from "../daemon/protocol.js";
import type { NetworkKind, NetworkPolicy, NetworkReadBack } from "../egress/network.js";
import type { EgressEnforced } from "../egress/enforced.js";
import type { EgressProxies } from "../egress/proxies.js";
import type { Result } from "../daemon/result.js";
import type { ScreenWatch, WatchHandlers } from "../daemon/screen-watch.js";
import type { PauseKeeps, Snapshot, SnapshotOptions } from "./state.js";
import type { Runtime } from "./runtime.js";
import type { User } from "./user.js";

export type { Result, ResultCode, ResultError, Refusal } from "../daemon/result.js";
export type { Connection } from "../daemon/client.js";
export type { ScreenFrame, ScreenWatch, WatchHandlers } from "../daemon/screen-watch.js";
export { NETWORK_KINDS, type NetworkKind, type NetworkPolicy, type NetworkReadBack } from "../egress/network.js";

// --- What a computer is asked to be ---

/**
 * What create takes: a spec, its image by name or in the spec's object form, { image: { image } }
 * (the form the spec's samples use); create reads the object form as the name it holds.
 */
export type CreateSpec = ComputerSpec | (Omit<ComputerSpec, "image"> & { image: { image: string } });

export interface ComputerSpec {
  /** The image (or the vendor's template, snapshot) the computer starts from. */
  image: string;
  /** How long the computer lives, in whole milliseconds (checkLifetime). */
  lifetimeMs: number;
  network: NetworkPolicy;
  /**
   * A shared egress proxy to join, by its name (proxies.make's): network is then { allow: [] },
   * the proxy's list whatever it is now, or that list itself, which create holds the proxy to.
   */
  egress?: string;
  /** The caller's labels (runLabels among them); the provider's own namespace is agentrun.computer. */
  labels?: Record<string, string>;
  /** The run's folder, at /workspace. */
  mount?: MountSpec;
  cpus?: number;
  memoryMb?: number;
  pids?: number;
  /** A uid or uid:gid in numbers; "0" asks for root. */
  user?: string;
  workdir?: string;
  /** The machine kind asked for, when a provider offers more than one. */
  kind?: MachineKind;
  /** runc (the default: the host's kernel) or gvisor (gVisor's kernel between the programs and the host's), where a provider offers it. */
  runtime?: Runtime;
}

/**
 * What check takes: a spec as a caller gives it, any field of it possibly missing (a preview's
 * check leaves out each field not known yet). check refuses each field a create needs and lacks.
 */
export type CheckInput = Partial<ComputerSpec>;

/**
 * A spec as check passed it, with what check parsed from it, so no later step parses the same
 * input again (checkedSpec builds it).
 */
export interface CheckedSpec {
  /** The spec as the caller gave it. */
  spec: ComputerSpec;
  /** The spec's user, parsed; absent when it names none (the provider's default is the user then). */
  user?: User;
  /** The allowlist in its normal form, when the network is one (empty: a shared proxy's list). */
  allow?: string[];
}

/** What a check ahead of its create (a preview's) may pass over, and who the computer is made for. */
export interface CheckOptions {
  /**
   * The bind mount's folder is made before the computer's create (a Mount the computer waits
   * for makes it): its absence now is no refusal; its path, and every part of it already there,
   * still are checked. The create's check refuses a folder that is still not there.
   */
  mountMadeFirst?: boolean;
  /**
   * The computer is made for an owner (CreateOptions.owner: a Pulumi resource), so its owner and
   * declaration labels are written beside the spec's: a vendor that counts labels holds room for them.
   */
  owned?: boolean;
}

/** The spec as the provider read it back from the computer itself. */
export interface SpecReadBack {
  image: string;
  /** uid:gid ("0:0" for root). */
  user: string;
  network: NetworkReadBack;
  /** The shared egress proxy it joined, by name. */
  egress?: string;
  cpus?: number;
  memoryMb?: number;
  pids?: number;
  workdir?: string;
  /** The deadline, an ISO time. */
  deadline?: string;
  mount?: MountReadBack;
  kind?: MachineKind;
  /** Read back where the provider offers more than runc. */
  runtime?: Runtime;
  /** An allowlisted computer's proxy as made: the rules and credentials' hosts it holds (never a key), and whose CA the computer trusts. */
  enforced?: EgressEnforced;
}

/** A computer at a vendor: enough to find it again. */
export interface ComputerRef {
  /** The vendor's id (Docker: the container id). */
  id: string;
  /** The computer's name (Docker: computer-<12 hex digits>). */
  name: string;
  /** The registry id of the provider that made or found it. */
  provider: string;
  /** What attach (and create) read back. */
  spec?: SpecReadBack;
  /** Words on what was read back and kept (a probe target that accepted and sent nothing back). */
  notes?: string[];
  /** The daemon's hello, when the provider read it while making or reading the computer. */
  hello?: Hello;
}

/** paused: stopped where it stood by the vendor's pause (PauseHooks), and resumed as it was. */
export type ComputerState = "running" | "paused" | "stopped";

/** One computer as list() reports it. */
export interface ComputerInfo {
  ref: ComputerRef;
  labels: Record<string, string>;
  /** The deadline, or undefined when its label is missing or not the time the provider writes. */
  deadline: Date | undefined;
  state: ComputerState;
  network: NetworkReadBack;
  mount?: MountReadBack;
}

export type AttachBy = { id: string } | { labels: Record<string, string> };

/** A computer as attach reads it, with every mismatch of its drift check rather than a refusal. */
export interface ReadBack {
  ref: ComputerRef;
  state: ComputerState;
  labels: Record<string, string>;
  hello?: Hello;
  /** One sentence per mismatch; empty when the computer is what was declared. */
  drift: string[];
}
export type ReleaseHow = "stop" | "delete";

// --- What a provider declares ---

export type DaemonMode = "pid1" | "child" | "none";
export type Lifetime = "janitor" | "vendor";
export type UserKind = "root" | "uid";

export interface Capabilities {
  kind: MachineKind;
  os: "linux" | "android" | "ios" | "windows" | "macos";
  daemon: DaemonMode;
  groups: Group[];
  /** janitor: the library's sweep deletes computers past their deadline; vendor: the vendor ends them. */
  lifetime: Lifetime;
  /** The vendor's hard cap on a computer's lifetime. */
  maxLifetimeMs: number;
  network: NetworkKind[];
  /** The vendor reads a computer's network policy back (else the daemon's probe stands for one). */
  networkReadBack?: boolean;
  release: ReleaseHow[];
  /** A stop deletes: the computer is then neither listed nor attachable. */
  stopDeletes?: boolean;
  /** Which users a spec may ask for; absent: none. */
  user?: UserKind[];
  /** The mount kinds its computers take; absent: none. */
  mount?: MountKind[];
  /** TCP ports of the vendor's own agent inside the computer. */
  vendorAgentPorts?: number[];
  isolation?: string;
  /** What a pause keeps (the provider's pause hooks'); absent: it cannot pause. */
  pause?: PauseKeeps;
  /** It takes snapshots a fork starts from (the provider's snapshot hooks). */
  snapshot?: boolean;
  /** The runtimes besides runc its computers may run under, each with what its computers hold there (capabilitiesUnder). */
  runtimes?: Partial<Record<Exclude<Runtime, "runc">, RuntimeHolds>>;
  /** What a spec that names none of these gets, so a caller can show them before create and compare them after. */
  defaults?: SpecDefaults;
}

/** What a computer under another runtime than runc holds, where it is less than the provider's row. */
export interface RuntimeHolds {
  /** The network kinds it takes (gVisor on Docker here: none, since runsc is registered with --network=none). */
  network: NetworkKind[];
}

/** The image, sizes, workdir and user a provider gives a spec that does not name them. */
export interface SpecDefaults {
  /** Only when known without a vendor call (Docker's image option by name); else image() makes one ready. */
  image?: string;
  cpus?: number;
  memoryMb?: number;
  pids?: number;
  workdir?: string;
  /** uid:gid. */
  user?: string;
}

// --- The optional hooks' shapes ---

export interface ImageOptions extends CallOptions {
  /** Told once when the provider starts to build or pull the image (a wait worth saying), with its tag. */
  onWait?: (making: "build" | "pull", tag: string) => void;
  /** Told each step of a build as it starts, where the vendor numbers them. */
  onStep?: (step: { step: number; of: number; line: string }) => void;
  /** The kind of computer the image is for (a desktop's has an X server); default the provider's. */
  kind?: MachineKind;
  /**
   * Told which base the provider's own image stands on, and why, where the provider chooses one
   * (Docker: the spec's pinned base, or the set-up's local one where no registry answers).
   */
  onBase?: (base: { image: string; words: string }) => void;
}

export interface CreateOptions extends CallOptions {
  /**
   * Who the computer is made for (the Pulumi plugin: the stack's folder and the resource's URN).
   * Every provider keeps it (Docker, Modal, Daytona, E2B; src/contract/adopt.ts): the computer carries its
   * owner and declaration labels (hashes) from the vendor's create request on, and a create first
   * adopts a whole computer of the same owner and spec left by an interrupted create, or removes
   * one that is not whole. A delete then also removes the owner's computers made before the one
   * deleted, where the vendor reads back when it made them (Docker, Daytona, E2B; not Modal).
   */
  owner?: string;
}

export interface SweepOptions extends CallOptions {
  labels?: Record<string, string>;
  now?: Date;
}

/** A warm pool's part, where the vendor gives an atomic claim (Docker: a rename); src/fleet/pool.ts uses it. */
export interface PoolHooks {
  /** A computer just made with the pool's label, made ready for a claim. */
  ready(ref: ComputerRef, options?: CallOptions): Promise<Result<ComputerRef>>;
  /** The pool's ready computers. */
  members(pool: string, options?: CallOptions): Promise<Result<ComputerRef[]>>;
  /**
   * One ready computer taken atomically (never the same one twice) with labels; not_found when
   * none is ready. prefer: ready computers to try first, before the pool is listed (those a
   * caller already holds a connection to).
   */
  take(pool: string, labels: Record<string, string>, options?: CallOptions & { prefer?: ComputerRef[] }): Promise<Result<Taken>>;
}

/** A computer a take took for its claim. */
export interface Taken {
  ref: ComputerRef;
  /**
   * Connects as the computer's first client, a way only its claim may take (Docker: the
   * container's own stdio, with no exec); absent, the claim connects as any client does.
   */
  connect?(options?: CallOptions): Promise<Result<Connection>>;
}

/** A vendor's pause: absent where it has none, and then a spec declaring paused is refused at check. */
export interface PauseHooks {
  keeps: PauseKeeps;
  /** The computer paused; one already paused is ok; one gone is not_found. */
  pause(ref: ComputerRef, options?: CallOptions): Promise<Result<undefined>>;
  /** The computer running again, its daemon answering; one already running is ok; one gone is not_found. */
  resume(ref: ComputerRef, options?: CallOptions): Promise<Result<ComputerRef>>;
}

/** A vendor's snapshots: absent where it has none, and then a ComputerSnapshot is refused at check. */
export interface SnapshotHooks {
  /**
   * A snapshot of a running or paused computer of ours: its files less the daemon's own, its
   * socket folder, the run folder's mount and every secret it was given. A computer gone, or not
   * one of ours, is refused and nothing is made; a take cut off half-way leaves no image.
   */
  take(ref: ComputerRef, options?: SnapshotOptions): Promise<Result<Snapshot>>;
  /** A snapshot read back by its image; not_found when it is gone. */
  read(image: string, options?: CallOptions): Promise<Result<Snapshot>>;
  /** Removed; one already gone is ok. */
  remove(image: string, options?: CallOptions): Promise<Result<undefined>>;
}

// --- The interface ---

export interface ComputerProvider {
  /** The registry id ("docker"). */
  readonly id: string;
  /** The provider's version, which its daemon's hello must report. */
  readonly version: string;
  /** Shared egress proxies, when the vendor has them (Docker). */
  readonly proxies?: EgressProxies;
  capabilities(): Capabilities;
  /** Every refusal of a spec in words, with no vendor call; else the spec with what check parsed, which every later step takes. */
  check(spec: CheckInput, options?: CheckOptions): Result<CheckedSpec>;
  /** Reads the host once (Docker: docker info), after which check also refuses what the host cannot give (cpus past its CPUs). */
  host?(options?: CallOptions): Promise<Result<unknown>>;
  create(spec: CreateSpec, options?: CreateOptions): Promise<Result<ComputerRef>>;
  /** Finds a computer and runs the drift check on it; a drifted one is refused and left as it is. */
  attach(by: AttachBy, options?: CallOptions): Promise<Result<ComputerRef>>;
  /** attach without the refusal: what a drifted computer is, for a caller that shows drift (refresh). */
  read?(by: AttachBy, options?: CallOptions): Promise<Result<ReadBack>>;
  /** The provider's own image made ready, for a spec that names none (Docker: its recipe). */
  image?(options?: ImageOptions): Promise<Result<string>>;
  list(labels?: Record<string, string>, options?: CallOptions): Promise<Result<ComputerInfo[]>>;
  /** Reads the network back; with a policy, moves the computer to it or refuses with it unchanged. */
  network(ref: ComputerRef, policy?: NetworkPolicy, options?: CallOptions): Promise<Result<NetworkReadBack>>;
  connect(ref: ComputerRef, options?: CallOptions): Promise<Result<Connection>>;
  /** A computer already gone is ok. */
  release(ref: ComputerRef, how: ReleaseHow, options?: CallOptions): Promise<Result<undefined>>;
  /** Sets the deadline to now + ttlMs, never earlier and never past create + maxLifetimeMs. */
  extend?(ref: ComputerRef, ttlMs: number, options?: CallOptions): Promise<Result<{ deadline: string }>>;
  /** The vendor's live screen URL. */
  stream?(ref: ComputerRef, options?: CallOptions): Promise<Result<{ url: string }>>;
  /** The live view, where the computers declare a screen (src/contract/watch.ts). */
  watch?(ref: ComputerRef, handlers: WatchHandlers, options?: CallOptions & { maxWidth?: number; quality?: number }): Promise<Result<ScreenWatch>>;
  /** The janitor's hook for what a provider leaves beside its computers (Docker's egress leftovers). */
  sweep?(options?: SweepOptions): Promise<Result<{ removed: string[] }>>;
  /** Pause and resume: absent where the vendor cannot pause (capabilities().pause says what one keeps). */
  readonly pause?: PauseHooks;
  /** Snapshots a fork starts from (src/contract/state.ts): absent where the vendor takes none. */
  readonly snapshots?: SnapshotHooks;
  /** A warm pool's hooks: absent where the vendor gives no atomic claim. */
  readonly pool?: PoolHooks;
  /**
   * Whether a computer could have the image: held where computers run, or by the registry they
   * pull from. A refusal (field image) is what the provider knows is missing; what it cannot tell
   * is ok, left to the create. Unset: left to the create.
   */
  imageHeld?(image: string, options?: CallOptions): Promise<Result<undefined>>;
  /** One account-level read that makes nothing: Settings' test of a provider's keys. */
  testConnection?(options?: CallOptions): Promise<Result<{ detail: string }>>;
  /** Where its calls go, in words (the engine, the cluster, the vendor's address): never a key. */
  target?(): string;
  /**
   * Ends what the provider keeps open between calls (Docker: its engine's kept connections, and an
   * ssh engine's shared login, which would otherwise outlive the process); a later call opens them again.
   */
  close?(): Promise<void>;
}

/**
 * A host's environment, handed in by a host that lets its vendors' own variables count (the
 * Pulumi plugin, for DOCKER_HOST): the library reads none itself.
 */
export interface HostEnvironment {
  env: Record<string, string | undefined>;
  home: string;
}

/** What a provider file exports: the registry's contract. */
export interface ProviderModule<Options = unknown> {
  /** The mount kinds its computers take. */
  MOUNT: readonly MountKind[];
  /**
   * The options that say where it sends its key, each held to the one rule (src/contract/base-url.ts)
   * as it is built, so a refusal names the option before any request; empty for one that sends no key.
   */
  KEY_URLS: readonly string[];
  /** Its capabilities as declared, per configuration. */
  CAPABILITIES?: Capabilities | Record<string, Capabilities>;
  /** The provider built from its options alone; a missing or wrong option throws in words. */
  create(options: Options): ComputerProvider;
  /**
   * Its options from a host's plain settings object (a Pulumi stack's agentrun:<id> config), for
   * a provider whose options hold what a host should not know (Docker: the daemon this package
   * carries), as create takes them; host, when the host gives it, is its environment, for a
   * setting that defaults as the vendor's own CLI finds it. Without it the settings are the
   * options. A setting it cannot take throws in words.
   */
  optionsFromSettings?(settings: Record<string, unknown>, host?: HostEnvironment): unknown;
  /** Its conformance module (reads its COMPUTER_<ID>_* names). */
  conformance?: () => Promise<unknown>;
}
