// A conformance case as data: its id, level, group and needs, and the one function that runs it
// through ComputerProvider, ComputerClient and the suite's helpers (the CaseContext), so the same
// case runs on any provider.
import type { ComputerClient } from "../daemon/client.js";
import type { MountKind } from "../contract/mount.js";
import type { Group, Hello } from "../daemon/protocol.js";
import type { Capabilities, ComputerProvider, ComputerRef, ComputerSpec, Connection, NetworkKind, UserKind } from "../contract/provider.js";
import type { PauseKeeps, Snapshot } from "../contract/state.js";
import type { Result } from "../daemon/result.js";
import type { RunFolder } from "../kits/conformance/module.js";

/** Core: what every computer of its kind does; full: an optional capability a provider declares. */
export const LEVELS = ["core", "full", "optional"] as const;
export type Level = (typeof LEVELS)[number];

/** The groups, in the order the report shows them. */
export const CASE_GROUPS = [
  "health",
  "exec",
  "files",
  "process",
  "provider",
  "drift",
  "isolation",
  "mount",
  "screen",
  "input",
  "touch",
  "apps",
  "lifetime",
  "state",
  "browser",
] as const;
export type CaseGroup = (typeof CASE_GROUPS)[number];

/** The optional provider methods a case can need, declared by being there. */
export type ProviderMethod = "extend" | "stream" | "watch";

/** What a case needs declared; anything missing skips it in words (or fails it, when its kind requires it). */
export interface Needs {
  /** Declared by both capabilities().groups and the shared computer's hello. */
  groups?: Group[];
  networks?: NetworkKind[];
  /** lifetime "janitor", release "stop", and no stopDeletes. */
  janitor?: boolean;
  user?: UserKind;
  mount?: MountKind;
  methods?: ProviderMethod[];
  /** capabilities().vendorAgentPorts, non-empty. */
  vendorAgent?: boolean;
  /** capabilities().pause: any pause (true), or one that keeps memory. */
  pause?: true | PauseKeeps;
  /** capabilities().snapshot. */
  snapshot?: boolean;
  /** A network the provider does not declare, to ask for and see refused: none is there when it declares all three. */
  undeclaredNetwork?: boolean;
}

export type { RunFolder };

export type MountFor = (kind: MountKind) => RunFolder | undefined | Promise<RunFolder | undefined>;

/** What a case is handed. Everything it makes through it is released when it ends. */
export interface CaseContext {
  readonly provider: ComputerProvider;
  readonly capabilities: Capabilities;
  readonly runId: string;
  readonly image: string;
  /** Aborts when the case runs past its bound, or the run is aborted. */
  readonly signal: AbortSignal;
  /** The shared computer (network none, no user asked) and a connection to it. */
  readonly computer: ComputerRef;
  readonly client: ComputerClient;
  readonly hello: Hello;
  /** The shared computer's HOME, read from inside. */
  readonly home: string;
  /** A directory of this case's own on the shared computer, under $HOME/agentrun-conformance-<run id>. */
  readonly dir: string;
  /** The drifted provider, when the run has one. */
  readonly drifted: ComputerProvider | undefined;
  /** The input fixture on this host (--fixture), when the run has one: src/conformance/fixture.ts. */
  readonly fixture: string | undefined;
  /** The labels every computer of this case carries: the run's, and one of the case's own. */
  readonly labels: Record<string, string>;
  /** The suite's spec (image, 30 minutes, network none, the case's labels) with extra over it. */
  spec(extra?: Partial<ComputerSpec>): ComputerSpec;
  /** A computer of the case's own; a refusal fails the case. */
  create(extra?: Partial<ComputerSpec>): Promise<ComputerRef>;
  /** create's result as it is (a refusal the case expects), on the provider or the one given. */
  attempt(spec: ComputerSpec, by?: ComputerProvider): Promise<Result<ComputerRef>>;
  /**
   * A snapshot of the computer through the provider's snapshot hooks, with the case's labels;
   * removed when the case ends, after its computers (its forks among them). A refusal fails the case.
   */
  snapshot(ref: ComputerRef): Promise<Snapshot>;
  /** A connection of the case's own, closed when the case ends; a refusal fails the case. */
  connect(ref: ComputerRef, by?: ComputerProvider): Promise<Connection>;
  /** A run folder of the kind, closed when the case ends; undefined when the run has none. */
  runFolder(kind: MountKind): Promise<RunFolder | undefined>;
  /** Waits ms, or less when the case is aborted. */
  sleep(ms: number): Promise<void>;
}

export interface ConformanceCase {
  /** group.name, as the report shows it. */
  id: string;
  level: Level;
  group: CaseGroup;
  needs: Needs;
  /** Runs on the shared computer (t.computer, t.client): a case of a group, or one that says so. */
  shared: boolean;
  /** Runs once every other case has ended (a browser's release of the shared computer). */
  last?: boolean;
  /** Throws CaseFailure with what it found; returns words when it passes only in a reduced sense, or a Skip. */
  run(t: CaseContext): Promise<void | Skip>;
}

/** A case's own skip (no drifted provider, no run folder): not a pass. */
export class Skip {
  constructor(readonly reason: string) {}
}

/**
 * Declares a case; the id's group is its group. A case that needs a group, or is of health, runs
 * on the shared computer; another says so with { shared: true }.
 */
export function conformanceCase(
  id: string,
  level: Level,
  needs: Needs,
  run: ConformanceCase["run"],
  options: { shared?: boolean; last?: boolean } = {},
): ConformanceCase {
  const group = id.split(".")[0] as CaseGroup;
  if (!CASE_GROUPS.includes(group)) throw new TypeError(`case ${id}: ${group} is not a conformance group`);
  const shared = options.shared ?? (group === "health" || (needs.groups ?? []).length > 0);
  return { id, level, group, needs, shared, run, ...(options.last ? { last: true } : {}) };
}
