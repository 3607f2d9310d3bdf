// The drift check: what docker inspect and the daemon's hello say a computer is, against what
// create asked for. Closed: every HostConfig and Config field is one create sets, one with a
// stated default, one that widens nothing, or it must be empty, so a field a later Docker adds
// is drift until it is named here. One sentence per mismatch.
import { WORKSPACE } from "../contract/mount.js";
import type { Hello, MachineKind } from "../daemon/protocol.js";
import { sameNetwork } from "../egress/list.js";
import type { Capabilities, ComputerSpec, NetworkReadBack } from "../contract/provider.js";
import { parseUser, userText } from "../contract/user.js";
import { POOL_LABEL } from "../contract/labels.js";
import { checkSpec } from "./check.js";
import {
  COMPUTER_LABEL,
  CPU_PERIOD,
  DEADLINE_LABEL,
  DEFAULT_CPUS,
  DEFAULT_MEMORY_MB,
  DEFAULT_PIDS,
  HOME,
  isReadyName,
  MASKED_PATHS,
  READONLY_PATHS,
  RECIPE_LABEL,
  KIND_LABEL,
  kindOfLabels,
} from "./constants.js";
import { cpuQuota, servesStdio, workSizeMb } from "./plan.js";
import { dockerRuntime, runtimeOfDocker } from "./runtime.js";
import { deadlineOf, hasComputerName, hasEgress, type Inspected, labelsOf, nameOf, networkOf, specOf } from "./readback.js";
import { initCommand, tmpfsOptions } from "./create-request.js";
import { engineImageOf } from "./snapshot-image.js";
import { EGRESS_MOUNT, egressName } from "./egress-request.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { DAEMON_DIR, type DaemonAt, isVolumeDaemon, subpathOf, type VolumeOption } from "./volume.js";

/** What the provider knows that the spec does not say. */
export interface DriftExpected {
  /** uid:gid: the spec's, the provider's, or the default. */
  user: string;
  /**
   * The daemon copy's path on the host; with the volume option, its tree's subpath on the volume
   * (one whose contents verify); unset, the daemon was put in by archive (a remote engine) and no
   * mount may be there.
   */
  daemon: DaemonAt;
  /** The volume option: the run folder is then the volume's subpath, never a bind. */
  volume?: VolumeOption;
  /** The deadline label's value, as create wrote it. */
  deadline: string;
  /** The provider's version, which hello must report. */
  version: string;
  groups: readonly string[];
  kind: MachineKind;
  /** The Docker host's architecture, as Go names it (amd64, arm64). */
  arch: string;
  host: { apparmor: boolean; selinux: boolean };
  /** An allowlist's proxy as read back (egress.ts, egress-readback.ts); the network is then held to it. */
  proxy?: NetworkReadBack;
  /** A desktop's DISPLAY, which Config.Env holds; a linux computer has none. */
  display?: string;
  /** The engine image when it is not the spec's own name: a browser's "chromium" is its recipe's image. */
  image?: string;
}

const MIB = 1024 * 1024;

/** Read or checked by name below. */
const HOST_CHECKED = new Set([
  "NetworkMode",
  "CapDrop",
  "CapAdd",
  "Privileged",
  "SecurityOpt",
  "IpcMode",
  "CgroupnsMode",
  "Runtime",
  "MaskedPaths",
  "ReadonlyPaths",
  "PidsLimit",
  "Memory",
  "MemorySwap",
  "CpuPeriod",
  "CpuQuota",
  "Tmpfs",
  "Mounts",
  "RestartPolicy",
  "Isolation",
  "MemorySwappiness",
]);
/** The host's settings, or ones that act only inside the computer: not checked. */
const HOST_IRRELEVANT = new Set(["LogConfig", "ConsoleSize", "ContainerIDFile", "ShmSize", "Ulimits"]);
const CONFIG_CHECKED = new Set(["User", "Image", "WorkingDir", "Env", "Entrypoint", "Cmd", "Labels"]);
const CONFIG_IRRELEVANT = new Set([
  "Hostname",
  "Domainname",
  "AttachStdin",
  "AttachStdout",
  "AttachStderr",
  "Tty",
  "OpenStdin",
  "StdinOnce",
  "ExposedPorts",
  "Healthcheck",
  "ArgsEscaped",
  "OnBuild",
  "StopSignal",
  "StopTimeout",
  "Shell",
  "MacAddress",
  "NetworkDisabled",
]);

/** absent, null, "", 0, false, [] or {} */
function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === "" || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value).length === 0;
  return false;
}

const isAllow = (network: unknown): network is { allow: string[] } => typeof network === "object" && network !== null && "allow" in network;

/** A computer that joined a shared proxy with { allow: [] } takes its list, whatever it is. */
function theProxysList(spec: ComputerSpec, network: NetworkReadBack): boolean {
  return spec.egress !== undefined && isAllow(spec.network) && spec.network.allow.length === 0 && typeof network === "object" && "allow" in network;
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? "absent";
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join("\0") === [...b].sort().join("\0");
}

/** The inspect half of the check. */
export function inspectDrift(spec: ComputerSpec, inspected: Inspected, expected: DriftExpected): string[] {
  const out: string[] = [];
  const host = inspected.HostConfig ?? {};
  const config = inspected.Config ?? {};
  const cpus = spec.cpus ?? DEFAULT_CPUS;
  const memoryMb = spec.memoryMb ?? DEFAULT_MEMORY_MB;
  const pids = spec.pids ?? DEFAULT_PIDS;
  const [uid = "", gid = ""] = expected.user.split(":");

  const network = networkOf(inspected, expected.proxy);
  // An allowlist with no entries is the proxy's list, whatever it is: read back, or a shared proxy's.
  const unlisted = isAllow(spec.network) && spec.network.allow.length === 0;
  if (typeof network === "object" && "other" in network)
    out.push(`the network reads back as other (${network.other})${unlisted ? "" : `, not ${show(spec.network)}`}`);
  else if (!(sameNetwork(network, spec.network) || theProxysList(spec, network)))
    out.push(`the network reads back as ${show(network)}, not ${show(spec.network)}`);

  if (!(Array.isArray(host.CapDrop) && host.CapDrop.length === 1 && String(host.CapDrop[0]).toUpperCase() === "ALL")) {
    out.push(`HostConfig.CapDrop is ${show(host.CapDrop)}, not ["ALL"]`);
  }
  if (!isEmpty(host.CapAdd)) out.push(`HostConfig.CapAdd is ${show(host.CapAdd)}: no capability may be added`);
  if (host.Privileged !== false) out.push(`HostConfig.Privileged is ${show(host.Privileged)}, not false`);
  if (!(Array.isArray(host.SecurityOpt) && host.SecurityOpt.length === 1 && host.SecurityOpt[0] === "no-new-privileges")) {
    out.push(`HostConfig.SecurityOpt is ${show(host.SecurityOpt)}, not exactly ["no-new-privileges"]`);
  }
  if (host.IpcMode !== "private") out.push(`HostConfig.IpcMode is ${show(host.IpcMode)}, not "private"`);
  if (host.CgroupnsMode !== "private") out.push(`HostConfig.CgroupnsMode is ${show(host.CgroupnsMode)}, not "private"`);
  const runtime = dockerRuntime(spec.runtime);
  if (host.Runtime !== runtime) out.push(`runtime: HostConfig.Runtime is ${show(host.Runtime)}, not ${show(runtime)} (${spec.runtime ?? "runc"})`);
  for (const [field, want] of [
    ["MaskedPaths", MASKED_PATHS],
    ["ReadonlyPaths", READONLY_PATHS],
  ] as const) {
    const have = new Set(Array.isArray(host[field]) ? (host[field] as string[]) : []);
    const missing = want.filter((p) => !have.has(p));
    if (missing.length) out.push(`HostConfig.${field} lacks ${missing.join(", ")}, which Docker holds for every container`);
  }
  if (host.PidsLimit !== pids) out.push(`HostConfig.PidsLimit is ${show(host.PidsLimit)}, not ${pids}`);
  // Read back, memoryMb is the memory now: a docker update of it shows as the memory /work was sized for.
  const made = memoryMadeWith(host, memoryMb);
  if (made !== memoryMb) out.push(`HostConfig.Memory is ${memoryMb} MiB, not the ${made} MiB the computer was made with (/work's tmpfs is sized for it)`);
  for (const field of ["Memory", "MemorySwap"] as const) {
    if (field === "Memory" && made !== memoryMb) continue;
    if (host[field] !== made * MIB) out.push(`HostConfig.${field} is ${show(host[field])} bytes, not ${made * MIB} (${made} MiB)`);
  }
  if (host.CpuPeriod !== CPU_PERIOD) out.push(`HostConfig.CpuPeriod is ${show(host.CpuPeriod)}, not ${CPU_PERIOD}`);
  if (host.CpuQuota !== cpuQuota(cpus)) out.push(`HostConfig.CpuQuota is ${show(host.CpuQuota)}, not ${cpuQuota(cpus)} (${cpus} CPUs)`);
  out.push(...tmpfsDrift(host.Tmpfs, { uid: Number(uid), gid: Number(gid), memoryMb: made }));
  out.push(...mountsDrift(spec, inspected, expected));
  const restart = host.RestartPolicy as { Name?: string; MaximumRetryCount?: number } | undefined;
  if (!(restart === undefined || restart === null || ((restart.Name === "no" || restart.Name === "") && !restart.MaximumRetryCount))) {
    out.push(`HostConfig.RestartPolicy is ${show(restart)}, not {"Name":"no"}: a restart policy would bring a computer back after its deadline`);
  }
  if (!(isEmpty(host.Isolation) || host.Isolation === "default")) out.push(`HostConfig.Isolation is ${show(host.Isolation)}, not empty or "default"`);
  if (!(host.MemorySwappiness === null || host.MemorySwappiness === undefined || host.MemorySwappiness === -1)) {
    out.push(`HostConfig.MemorySwappiness is ${show(host.MemorySwappiness)}, not null or -1`);
  }
  for (const [field, value] of Object.entries(host)) {
    if (HOST_CHECKED.has(field) || HOST_IRRELEVANT.has(field) || isEmpty(value)) continue;
    out.push(`HostConfig.${field} is ${show(value)}, and must be empty`);
  }

  out.push(...configDrift(spec, config, expected));

  const apparmor = expected.host.apparmor ? "docker-default" : "";
  if ((inspected.AppArmorProfile ?? "") !== apparmor) out.push(`AppArmorProfile is ${show(inspected.AppArmorProfile)}, not ${show(apparmor)}`);
  const label = String(inspected.ProcessLabel ?? "");
  if (expected.host.selinux ? !label.split(":").includes("container_t") : label !== "") {
    out.push(`ProcessLabel is ${show(label)}, not ${expected.host.selinux ? "of type container_t" : "empty"}`);
  }
  return out;
}

/** Config: the user, image, workdir, HOME and DISPLAY, init's command, the labels; nothing else set. */
function configDrift(spec: ComputerSpec, config: Record<string, unknown>, expected: DriftExpected): string[] {
  const out: string[] = [];
  if (config.User !== expected.user) out.push(`Config.User is ${show(config.User)}, not ${show(expected.user)}`);
  const image = expected.image ?? engineImageOf(spec.image);
  if (config.Image !== image) out.push(`Config.Image is ${show(config.Image)}, not ${show(image)}`);
  const workdir = spec.workdir ?? HOME;
  if (config.WorkingDir !== workdir) out.push(`Config.WorkingDir is ${show(config.WorkingDir)}, not ${show(workdir)}`);
  const homes = (Array.isArray(config.Env) ? (config.Env as string[]) : []).filter((e) => e.startsWith("HOME="));
  if (!(homes.length === 1 && homes[0] === `HOME=${HOME}`)) out.push(`Config.Env holds ${show(homes)}, not one HOME=${HOME}`);
  const displays = (Array.isArray(config.Env) ? (config.Env as string[]) : []).filter((e) => e.startsWith("DISPLAY="));
  const display = expected.display === undefined ? [] : [`DISPLAY=${expected.display}`];
  if (show(displays) !== show(display))
    out.push(`Config.Env holds ${show(displays)}, not ${expected.display === undefined ? "no DISPLAY (it is not a desktop)" : show(display)}`);
  if (show(config.Entrypoint) !== show([DAEMON_IN_COMPUTER])) out.push(`Config.Entrypoint is ${show(config.Entrypoint)}, not ${show([DAEMON_IN_COMPUTER])}`);
  const cmd = initCommand(expected.deadline, isAllow(spec.network), servesStdio(spec.labels), expected.kind === "browser");
  if (show(config.Cmd) !== show(cmd)) out.push(`Config.Cmd is ${show(config.Cmd)}, not ${show(cmd)}`);
  out.push(...labelsDrift(spec, config.Labels, expected));
  for (const [field, value] of Object.entries(config)) {
    if (CONFIG_CHECKED.has(field) || CONFIG_IRRELEVANT.has(field) || isEmpty(value)) continue;
    out.push(`Config.${field} is ${show(value)}, and must be empty`);
  }
  return out;
}

/**
 * The memory a computer was made with: /work's tmpfs is sized from it at create and no docker
 * update changes it, so a size that is not memoryMb's names the memory as what changed (the swap
 * tells which of the two memories that size fits, when it was left as made).
 */
function memoryMadeWith(host: Record<string, unknown>, memoryMb: number): number {
  const work = (host.Tmpfs as Record<string, unknown> | undefined)?.[HOME];
  const size = /(?:^|,)size=(\d+)m(?:,|$)/.exec(typeof work === "string" ? work : "")?.[1];
  if (size === undefined || workSizeMb(memoryMb) === Number(size)) return memoryMb;
  const swapMb = Number(host.MemorySwap) / MIB;
  return workSizeMb(swapMb) === Number(size) ? swapMb : Number(size) * 2;
}

function tmpfsDrift(tmpfs: unknown, want: { uid: number; gid: number; memoryMb: number }): string[] {
  const out: string[] = [];
  const have = (tmpfs && typeof tmpfs === "object" ? tmpfs : {}) as Record<string, string>;
  const expected = tmpfsOptions(want);
  for (const [target, options] of Object.entries(expected)) {
    if (!(target in have)) out.push(`HostConfig.Tmpfs has no ${target}`);
    else if (!sameSet(String(have[target]).split(",").filter(Boolean), options)) {
      out.push(`HostConfig.Tmpfs ${target} is ${show(have[target])}, not ${show(options.join(","))} (in any order)`);
    }
  }
  for (const target of Object.keys(have)) if (!(target in expected)) out.push(`HostConfig.Tmpfs has another tmpfs at ${target}`);
  return out;
}

/** A mount the drift check holds a computer to: a bind of a host path, or one of the volume's subpaths (volume-nocopy). */
type Wanted = { target: string; readOnly: boolean; what: string } & ({ source: string } | { volume: string; subpath: string });

/** The daemon's and the run folder's mounts as create makes them. */
function wantedMounts(spec: ComputerSpec, expected: DriftExpected): Wanted[] {
  const want: Wanted[] = [];
  if (isVolumeDaemon(expected.daemon)) want.push({ ...expected.daemon, target: DAEMON_DIR, readOnly: true, what: "the daemon" });
  else if (expected.daemon !== undefined) want.push({ source: expected.daemon, target: DAEMON_IN_COMPUTER, readOnly: true, what: "the daemon" });
  if (spec.mount?.kind === "bind") {
    const subpath = expected.volume ? subpathOf(expected.volume.root, spec.mount.path) : undefined;
    if (expected.volume)
      want.push({ volume: expected.volume.name, subpath: subpath ?? spec.mount.path, target: WORKSPACE, readOnly: false, what: "the run folder" });
    else want.push({ source: spec.mount.path, target: WORKSPACE, readOnly: false, what: "the run folder" });
  }
  return want;
}

/** Whether HostConfig.Mounts' entries and Mounts' at a target are that one mount, as asked and as given. */
function heldTo(w: Wanted, asked: Array<Record<string, unknown>>, given: Array<Record<string, unknown>>): { asked: boolean; given: boolean } {
  const [a] = asked;
  const [g] = given;
  if ("volume" in w) {
    const options = (a?.VolumeOptions ?? {}) as { NoCopy?: boolean; Subpath?: string };
    return {
      asked:
        asked.length === 1 &&
        a?.Type === "volume" &&
        a.Source === w.volume &&
        Boolean(a.ReadOnly) === w.readOnly &&
        options.Subpath === w.subpath &&
        options.NoCopy === true,
      given: given.length === 1 && g?.Type === "volume" && g.Name === w.volume && g.RW === !w.readOnly,
    };
  }
  const propagation = (a?.BindOptions as { Propagation?: string } | undefined)?.Propagation;
  return {
    asked:
      asked.length === 1 &&
      a?.Type === "bind" &&
      a.Source === w.source &&
      Boolean(a.ReadOnly) === w.readOnly &&
      (propagation === undefined || propagation === "rprivate"),
    given: given.length === 1 && g?.Type === "bind" && g.Source === w.source && g.RW === !w.readOnly && g.Propagation === "rprivate",
  };
}

function mountsDrift(spec: ComputerSpec, inspected: Inspected, expected: DriftExpected): string[] {
  const out: string[] = [];
  const want = wantedMounts(spec, expected);
  if (isAllow(spec.network)) {
    // The egress volume, read-only: its own check, as it is a volume and not a bind.
    const volume = egressName(spec.egress ?? nameOf(inspected));
    const asked = (Array.isArray(inspected.HostConfig?.Mounts) ? (inspected.HostConfig.Mounts as Array<Record<string, unknown>>) : []).filter(
      (m) => m.Target === EGRESS_MOUNT,
    );
    const given = (inspected.Mounts ?? []).filter((m) => m.Destination === EGRESS_MOUNT);
    if (asked.length !== 1 || asked[0]!.Type !== "volume" || asked[0]!.Source !== volume || asked[0]!.ReadOnly !== true) {
      out.push(`HostConfig.Mounts does not hold the egress volume ${volume} read-only at ${EGRESS_MOUNT}: it holds ${show(asked)}`);
    }
    if (given.length !== 1 || given[0]!.Type !== "volume" || given[0]!.Name !== volume || given[0]!.RW !== false) {
      out.push(`Mounts does not hold the egress volume ${volume} read-only at ${EGRESS_MOUNT}: it holds ${show(given)}`);
    }
  }

  const asked = Array.isArray(inspected.HostConfig?.Mounts) ? (inspected.HostConfig.Mounts as Array<Record<string, unknown>>) : [];
  const given = Array.isArray(inspected.Mounts) ? inspected.Mounts : [];
  for (const w of want) {
    const a = asked.filter((m) => m.Target === w.target);
    const g = given.filter((m) => m.Destination === w.target);
    const rw = w.readOnly ? "read-only" : "read-write";
    const as = "volume" in w ? `mount of the volume ${w.volume}'s subpath ${w.subpath} (volume-nocopy)` : `bind of ${w.source} (rprivate)`;
    const held = heldTo(w, a, g);
    if (!held.asked) out.push(`HostConfig.Mounts does not hold ${w.what} at ${w.target} as one ${rw} ${as}: it holds ${show(a)}`);
    if (!held.given) out.push(`Mounts does not hold ${w.what} at ${w.target} as one ${rw} ${as}: it holds ${show(g)}`);
  }
  const targets = new Set([...want.map((w) => w.target), ...(isAllow(spec.network) ? [EGRESS_MOUNT] : [])]);
  for (const m of asked) if (!targets.has(String(m.Target))) out.push(`HostConfig.Mounts holds another mount: a ${String(m.Type)} at ${String(m.Target)}`);
  for (const m of given) {
    if (!targets.has(String(m.Destination)))
      out.push(`Mounts holds another mount: a ${String(m.Type)} at ${String(m.Destination)}${m.Type === "volume" ? " (an image's VOLUME is drift too)" : ""}`);
  }
  return out;
}

function labelsDrift(spec: ComputerSpec, labels: unknown, expected: DriftExpected): string[] {
  const out: string[] = [];
  const have = (labels && typeof labels === "object" ? labels : {}) as Record<string, string>;
  const want: Record<string, string> = { ...(spec.labels ?? {}), [COMPUTER_LABEL]: "1", [DEADLINE_LABEL]: expected.deadline };
  if (expected.kind === "desktop" || expected.kind === "browser") want[KIND_LABEL] = expected.kind;
  for (const [key, value] of Object.entries(want)) {
    if (have[key] !== value) out.push(`Config.Labels ${key} is ${show(have[key])}, not ${show(value)}`);
  }
  for (const key of Object.keys(have)) {
    const providers = key === COMPUTER_LABEL || key.startsWith(`${COMPUTER_LABEL}.`);
    // A recipe's image's own labels (its hash, what it is) come with the image: never drift.
    const image = key === RECIPE_LABEL || key.startsWith(`${RECIPE_LABEL}.`);
    if (!(key in want) && providers && !image) out.push(`Config.Labels holds ${key}, which the provider never writes`);
  }
  return out;
}

/** The hello half: version, os, kind, groups and arch as the provider declares them. */
export function helloDrift(hello: Hello, expected: DriftExpected): string[] {
  const out: string[] = [];
  if (hello.version !== expected.version) out.push(`the daemon is version ${hello.version}, not the provider's ${expected.version}`);
  if (hello.os !== "linux") out.push(`the daemon's os is ${hello.os}, not linux`);
  if (hello.kind !== expected.kind) out.push(`the daemon's kind is ${hello.kind}, not ${expected.kind}`);
  if (!sameSet(hello.groups, expected.groups)) out.push(`the daemon's groups are ${show(hello.groups)}, not ${show(expected.groups)}`);
  if (hello.arch !== expected.arch) out.push(`the daemon's arch is ${hello.arch}, not the Docker host's ${expected.arch}`);
  return out;
}

/** Every mismatch, one sentence each; hello is undefined for a stopped computer (inspect alone). */
export function drift(spec: ComputerSpec, inspected: Inspected, hello: Hello | undefined, expected: DriftExpected): string[] {
  return [...inspectDrift(spec, inspected, expected), ...(hello ? helloDrift(hello, expected) : [])];
}

/** What a computer found (not made) is held to before its inspect and hello are checked. */
export interface ReadBackHeld {
  /** The spec as read back: what the drift check then holds the computer to. */
  spec: ComputerSpec;
  /** uid:gid as Config.User holds it (NaN when it does not). */
  uid: number;
  gid: number;
  /** The deadline label's value, or "" when there is none. */
  deadline: string;
  /** desktop when the computer carries the kind label, else linux. */
  kind: MachineKind;
  mismatches: string[];
}

/**
 * The read-back half of attach and read: the spec read from the computer's own report (image,
 * network, sizes, user, workdir, deadline, run folder), held to what check allows, its deadline
 * to the ISO time create writes, and its name to one create gives.
 */
export function readBackDrift(
  inspected: Inspected,
  capabilities: Capabilities,
  proxy?: NetworkReadBack,
  testNetwork?: string,
  volume?: VolumeOption,
): ReadBackHeld {
  const readBack = specOf(inspected, proxy, volume);
  const mismatches: string[] = [];
  // A warm pool's ready computer is named pool-<hex> until a claim renames it back (claims.ts).
  const ready = isReadyName(nameOf(inspected)) && labelsOf(inspected)[POOL_LABEL] !== undefined;
  if (!hasComputerName(inspected) && !ready) {
    mismatches.push(
      `its name ${nameOf(inspected)} is not one create gives (computer-<12 hex digits>, or pool-<12 hex digits> for a warm pool's ready computer)`,
    );
  }
  const spec: ComputerSpec = {
    image: readBack.image,
    lifetimeMs: 1,
    // A network that reads back as other is held to its wiring: an allowlist's when the computer has one (its list is the proxy's, whatever it is).
    network: typeof readBack.network === "string" || "allow" in readBack.network ? readBack.network : hasEgress(inspected) ? { allow: [] } : "none",
    labels: Object.fromEntries(Object.entries(labelsOf(inspected)).filter(([k]) => k !== COMPUTER_LABEL && !k.startsWith(`${COMPUTER_LABEL}.`))),
    cpus: readBack.cpus,
    memoryMb: readBack.memoryMb,
    pids: readBack.pids,
    user: readBack.user,
    workdir: readBack.workdir,
  };
  const kind: MachineKind = kindOfLabels(labelsOf(inspected));
  if (kind !== "linux") spec.kind = kind;
  // A browser has no workdir to ask for: its home is held by the inspect's half.
  if (kind === "browser") delete spec.workdir;
  // A runtime that is neither is its inspect's sentence (inspectDrift holds it to runc's).
  if (runtimeOfDocker(inspected.HostConfig?.Runtime) === "gvisor") spec.runtime = "gvisor";
  if (readBack.egress !== undefined) spec.egress = readBack.egress;
  if (readBack.mount && "kind" in readBack.mount && readBack.mount.kind === "bind") spec.mount = { kind: "bind", path: readBack.mount.path };
  else if (readBack.mount && "other" in readBack.mount) mismatches.push(`the run folder reads back as other: ${readBack.mount.other}`);
  // The network that read back as other is its own sentence (inspectDrift's): the check holds the rest.
  const other = typeof readBack.network === "object" && "other" in readBack.network;
  for (const refusal of checkSpec(
    { ...spec, ...(other ? { network: "none" as const } : {}), labels: {} },
    { capabilities, ...(testNetwork === undefined ? {} : { testNetwork }) },
  )) {
    if (refusal.field !== "mount.path" && refusal.field !== "mount") mismatches.push(`read back, ${refusal.message}`);
  }
  const deadline = readBack.deadline;
  if (deadlineOf(deadline) === undefined) {
    mismatches.push(
      `the ${DEADLINE_LABEL} label ${deadline === undefined ? "is missing" : `reads ${JSON.stringify(deadline)}`}, not the ISO time create writes, at most 30 days away`,
    );
  }
  const user = parseUser(readBack.user);
  if (!user.ok || userText(user.value) !== readBack.user) mismatches.push(`Config.User is ${JSON.stringify(readBack.user)}, not uid:gid as create writes it`);
  const { uid, gid } = user.ok ? user.value : { uid: NaN, gid: NaN };
  return { spec, uid, gid, deadline: deadline ?? "", kind, mismatches };
}
