// A spec made concrete: every size, the user, the workdir and the deadline a computer is made
// with. The run flags and the drift check both read a Plan, so they cannot disagree.
import type { CheckedSpec } from "../contract/provider.js";
import type { User } from "../contract/user.js";
import { DEFAULT_CPUS, DEFAULT_MEMORY_MB, DEFAULT_PIDS, HOME } from "./constants.js";
import { POOL_LABEL } from "../contract/labels.js";
import type { DaemonAt, VolumeOption } from "./volume.js";

export interface Plan {
  name: string;
  image: string;
  uid: number;
  gid: number;
  network: "none" | "open";
  cpus: number;
  memoryMb: number;
  pids: number;
  workdir: string;
  /** The ISO time the lifetime ends: the deadline label and init's --deadline. */
  deadline: string;
  labels: Record<string, string>;
  /**
   * The daemon copy's path on the host, bound at /opt/agentrun/computerd; with the volume option,
   * its tree on the volume, mounted at /opt/agentrun; unset, it is put there by archive (a remote engine).
   */
  daemon: DaemonAt;
  mount?: { kind: "bind"; path: string };
  /** The volume option: the run folder is then the volume's subpath below its root, not a bind. */
  volume?: VolumeOption;
  /** An allowlist, normalized: the computer stays at network none and reaches it through its egress proxy. */
  allow?: string[];
  /** A desktop: the DISPLAY init is given, where its X server starts. */
  display?: string;
  /** A browser: init is told its kind, and Chromium starts through it. */
  browser?: true;
  /** A shared egress proxy's name: the computer mounts its volume, not one of its own (allow is then [] or the proxy's list). */
  egress?: string;
  /** Init serves its first client over its own stdio (a pool's computer, servesStdio). */
  stdio: boolean;
  /** gvisor: the engine's runsc runs it (HostConfig.Runtime); else runc. */
  runtime?: "gvisor";
}

/**
 * The checked spec with every default filled in: total, as check has parsed the user and the
 * allowlist already. userDefault is the provider's user (its option, or this process's uid:gid);
 * the spec's own user wins. labels are the create request's (the caller's, with the owner's).
 */
export function planOf(
  checked: CheckedSpec,
  at: {
    name: string;
    deadline: string;
    daemon: DaemonAt;
    userDefault: User;
    labels?: Record<string, string>;
    display?: string;
    volume?: VolumeOption | undefined;
    /** The engine image a spec's "chromium" is (a browser's, or a desktop's with Chromium beside its X server). */
    browserImage?: string;
  },
): Plan {
  const { spec } = checked;
  const { uid, gid } = checked.user ?? at.userDefault;
  const plan: Plan = {
    name: at.name,
    image: spec.image,
    uid,
    gid,
    network: spec.network === "open" ? "open" : "none",
    cpus: spec.cpus ?? DEFAULT_CPUS,
    memoryMb: spec.memoryMb ?? DEFAULT_MEMORY_MB,
    pids: spec.pids ?? DEFAULT_PIDS,
    workdir: spec.workdir ?? HOME,
    deadline: at.deadline,
    labels: { ...(at.labels ?? spec.labels ?? {}) },
    daemon: at.daemon,
    stdio: false,
  };
  plan.stdio = servesStdio(plan.labels);
  if (at.display !== undefined) plan.display = at.display;
  if (at.browserImage !== undefined) plan.image = at.browserImage;
  // A desktop's Chromium is an app on its display; a browser's is started and held by the provider.
  if (at.browserImage !== undefined && at.display === undefined) plan.browser = true;
  if (spec.runtime === "gvisor") plan.runtime = "gvisor";
  if (spec.mount?.kind === "bind") plan.mount = { kind: "bind", path: spec.mount.path };
  if (at.volume !== undefined) plan.volume = at.volume;
  // An allowlist, in its normal form (empty: a shared proxy's list).
  if (checked.allow !== undefined) {
    if (spec.egress !== undefined) plan.egress = spec.egress;
    plan.allow = checked.allow;
  }
  return plan;
}

/** The CPU quota for a number of CPUs, per 100 ms period. */
export function cpuQuota(cpus: number): number {
  return Math.round(cpus * 100_000);
}

/** /work holds at most half of the memory, in whole MiB. */
export function workSizeMb(memoryMb: number): number {
  return Math.floor(memoryMb / 2);
}

/**
 * Whether a computer serves its first client over its own stdio: a warm pool's (it carries the
 * pool's label), whose claim is the one client that attaches to it. Only a claim knows it is
 * first: the rename that takes a ready computer succeeds once.
 */
export function servesStdio(labels: Record<string, string> | undefined): boolean {
  return labels?.[POOL_LABEL] !== undefined;
}
