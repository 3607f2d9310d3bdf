// What docker inspect says a computer is: its network, its run folder, its spec. list, attach,
// network and the drift check all read a computer through these, so they agree.
import { runtimeOfDocker } from "./runtime.js";
import { type MountReadBack, WORKSPACE } from "../contract/mount.js";
import type { NetworkReadBack, SpecReadBack } from "../contract/provider.js";
import { COMPUTER_LABEL, CPU_PERIOD, DEADLINE_LABEL, MAX_LIFETIME_MS, NAME_PATTERN } from "./constants.js";
import { EGRESS_MOUNT, EGRESS_SOCKET, egressKeyOf, egressName, PROXY_PATTERN } from "./egress-request.js";
import { imageReadBack } from "./snapshot-image.js";
import { askedSubpath, pathOf, type VolumeOption } from "./volume.js";

/** One container as docker inspect reports it; only the fields read here are typed. */
export interface Inspected {
  Id: string;
  Name: string;
  State?: { Status?: string; Running?: boolean; Paused?: boolean; Pid?: number; ExitCode?: number; FinishedAt?: string; StartedAt?: string };
  HostConfig?: Record<string, unknown>;
  Config?: Record<string, unknown>;
  Mounts?: Array<Record<string, unknown>>;
  NetworkSettings?: { Networks?: Record<string, unknown> | null };
  [field: string]: unknown;
}

const MIB = 1024 * 1024;
const SKEW_MS = 60_000;

/** The computer's name, without Docker's leading slash. */
export function nameOf(inspected: Inspected): string {
  return inspected.Name.replace(/^\//, "");
}

export function labelsOf(inspected: Inspected): Record<string, string> {
  return { ...((inspected.Config?.Labels as Record<string, string> | null | undefined) ?? {}) };
}

/**
 * A container counts as a computer by the provider's label, whatever its name: a computer renamed
 * by hand is still one (its name is drift), so it is found, listed and released by its label.
 */
export function isComputer(inspected: Inspected): boolean {
  return labelsOf(inspected)[COMPUTER_LABEL] === "1";
}

/** Its name is one create gives (computer-<12 hex digits>). */
export function hasComputerName(inspected: Inspected): boolean {
  return NAME_PATTERN.test(nameOf(inspected));
}

/** Docker's pause leaves Running true (its processes are there, frozen): Paused says it. */
export function stateOf(inspected: Inspected): "running" | "paused" | "stopped" {
  if (inspected.State?.Paused) return "paused";
  return inspected.State?.Running ? "running" : "stopped";
}

/**
 * The deadline label as a Date, only when it is the ISO time create writes and no further away
 * than a computer may live (and a minute of clock skew); else undefined.
 */
export function deadlineOf(value: string | undefined, now = Date.now()): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || at.toISOString() !== value) return undefined;
  if (at.getTime() > now + MAX_LIFETIME_MS + SKEW_MS) return undefined;
  return at;
}

/**
 * Whether a computer has any part of an allowlist: a mount at the egress volume's path, or init's
 * relay in its command. Such a computer's network is its proxy's read-back, never none.
 */
export function hasEgress(inspected: Inspected): boolean {
  const cmd = Array.isArray(inspected.Config?.Cmd) ? (inspected.Config.Cmd as unknown[]) : [];
  return cmd.includes("--egress") || (inspected.Mounts ?? []).some((m) => m.Destination === EGRESS_MOUNT);
}

/**
 * The key of the egress volume a computer mounts: its own name for its own proxy, or a shared
 * proxy's name (proxy-<12 hex digits>); undefined for any other volume there, or none.
 */
export function egressKey(inspected: Inspected): string | undefined {
  const there = (inspected.Mounts ?? []).filter((m) => m.Destination === EGRESS_MOUNT);
  const key = there.length === 1 ? egressKeyOf(there[0]!.Name) : undefined;
  return key !== undefined && (key === nameOf(inspected) || PROXY_PATTERN.test(key)) ? key : undefined;
}

/** The shared proxy a computer joined, by name, or undefined. */
export function sharedProxyOf(inspected: Inspected): string | undefined {
  const key = egressKey(inspected);
  return key !== undefined && PROXY_PATTERN.test(key) ? key : undefined;
}

/** Why a computer's own side of an allowlist is not as create makes it, or undefined. */
function egressSideProblem(inspected: Inspected): string | undefined {
  const cmd = Array.isArray(inspected.Config?.Cmd) ? (inspected.Config.Cmd as unknown[]) : [];
  const at = cmd.indexOf("--egress");
  if (at < 0 || cmd[at + 1] !== EGRESS_SOCKET) return `init does not relay to ${EGRESS_SOCKET}`;
  const volume = egressName(egressKey(inspected) ?? nameOf(inspected));
  const there = (inspected.Mounts ?? []).filter((m) => m.Destination === EGRESS_MOUNT);
  if (there.length !== 1 || there[0]!.Type !== "volume" || there[0]!.Name !== volume || there[0]!.RW !== false) {
    return `the computer does not mount its egress volume ${volume} read-only at ${EGRESS_MOUNT}`;
  }
  return undefined;
}

/**
 * none: network mode none on Docker's none alone; open: the default bridge alone; an allowlist:
 * network mode none, the egress volume and init's relay, and the proxy's read-back (proxy, which
 * the caller reads: egress.ts); else words.
 */
export function networkOf(inspected: Inspected, proxy?: NetworkReadBack): NetworkReadBack {
  const mode = String(inspected.HostConfig?.NetworkMode ?? "");
  const networks = Object.keys(inspected.NetworkSettings?.Networks ?? {}).sort();
  const on = networks.length ? networks.join(", ") : "no network";
  if (mode === "none" && hasEgress(inspected)) {
    if (!(networks.length === 1 && networks[0] === "none")) return { other: `network allow, but the computer is on ${on}` };
    const problem = egressSideProblem(inspected);
    if (problem) return { other: `network allow, but ${problem}` };
    return proxy ?? { other: "network allow, but its egress proxy was not read" };
  }
  if (mode === "none") return networks.length === 1 && networks[0] === "none" ? "none" : { other: `network mode none, but on ${on}` };
  if (mode === "bridge" || mode === "default") {
    return networks.length === 1 && networks[0] === "bridge" ? "open" : { other: `network mode ${mode}, but on ${on}` };
  }
  return { other: `network mode ${mode || "(empty)"} on ${on}` };
}

/**
 * The run's folder: a read-write bind at /workspace; with the volume option, a read-write mount of
 * the volume's subpath, read back as the path below the root create was given. Anything else
 * there is words. A volume's subpath is in HostConfig.Mounts alone (inspect, not the list).
 */
export function mountOf(inspected: Inspected, volume?: VolumeOption): MountReadBack | undefined {
  const there = (inspected.Mounts ?? []).filter((m) => m.Destination === WORKSPACE);
  if (there.length === 0) return undefined;
  if (there.length > 1) return { other: `${there.length} mounts at ${WORKSPACE}` };
  const [m] = there as [Record<string, unknown>];
  if (volume && m.Type === "volume" && m.Name === volume.name) {
    const subpath = askedSubpath(inspected.HostConfig?.Mounts, volume.name, WORKSPACE);
    if (subpath === undefined) return { other: `the volume ${volume.name} mounted whole at ${WORKSPACE}, not a folder below its root` };
    const at = pathOf(volume, subpath);
    if (at === undefined) return { other: `the volume ${volume.name}'s subpath ${subpath} at ${WORKSPACE}, which is not below its root` };
    if (m.RW !== true) return { other: `a read-only mount of ${at} at ${WORKSPACE}` };
    return { kind: "bind", path: at };
  }
  if (m.Type !== "bind") return { other: `a ${String(m.Type)} mounted at ${WORKSPACE}, not a bind` };
  if (m.RW !== true) return { other: `a read-only bind of ${String(m.Source)} at ${WORKSPACE}` };
  return { kind: "bind", path: String(m.Source) };
}

/** The spec as the computer reports it: image, user, network (an allowlist's from its proxy), sizes, workdir, deadline, mount. */
export function specOf(inspected: Inspected, proxy?: NetworkReadBack, volume?: VolumeOption): SpecReadBack {
  const host = inspected.HostConfig ?? {};
  const config = inspected.Config ?? {};
  const spec: SpecReadBack = {
    image: imageReadBack(String(config.Image ?? ""), labelsOf(inspected)),
    user: String(config.User ?? ""),
    network: networkOf(inspected, proxy),
    cpus: Number(host.CpuQuota ?? 0) / Number(host.CpuPeriod || CPU_PERIOD),
    memoryMb: Number(host.Memory ?? 0) / MIB,
    pids: Number(host.PidsLimit ?? 0),
    workdir: String(config.WorkingDir ?? ""),
  };
  const deadline = labelsOf(inspected)[DEADLINE_LABEL];
  if (deadline !== undefined) spec.deadline = deadline;
  const mount = mountOf(inspected, volume);
  if (mount) spec.mount = mount;
  const shared = sharedProxyOf(inspected);
  if (shared !== undefined && hasEgress(inspected)) spec.egress = shared;
  if (runtimeOfDocker(host.Runtime) === "gvisor") spec.runtime = "gvisor";
  return spec;
}
