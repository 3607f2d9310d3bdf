// What the provider's parts share: its settled options, its engine, and the reads it makes once
// (the host, the daemon copy, the egress image). create's phases, read, list and release each
// take this, so none of them needs the provider class; and the words and values more than one of
// them writes (the capabilities of a kind, what the drift check expects, a computer's ref).
import { DEFAULT_DISPLAY, DISPLAY_GROUPS } from "../daemon/desktop.js";
import { type Hello, type MachineKind, PROVIDER_GROUPS } from "../daemon/protocol.js";
import { BROWSER_IMAGE } from "../kits/browser/labels.js";
import type { CallOptions } from "../daemon/client.js";
import type { Capabilities, ComputerRef, NetworkReadBack, SpecReadBack } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import type { DockerEngine } from "./api.js";
import { DEFAULT_CPUS, DEFAULT_MEMORY_MB, DEFAULT_PIDS, HOME, ID_PATTERN, MAX_LIFETIME_MS, NAME_PATTERN } from "./constants.js";
import type { DriftExpected } from "./drift.js";
import type { DockerEgressProxies } from "./egress-proxy.js";
import type { Host } from "./host.js";
import type { RemoteEngine } from "./remote.js";
import type { Pause, Settled } from "./options.js";
import { type Inspected, nameOf, specOf } from "./readback.js";
import type { TarFile } from "../kits/image/tar.js";
import type { ImageEtcCache } from "./user-name.js";
import type { DaemonAt, VolumeDaemon, VolumeOption } from "./volume.js";

export const CAPABILITIES: Capabilities = {
  kind: "linux",
  os: "linux",
  daemon: "pid1",
  groups: ["exec", "files", "processes"],
  lifetime: "janitor",
  maxLifetimeMs: MAX_LIFETIME_MS,
  network: ["none", "open", "allow"],
  networkReadBack: true,
  release: ["stop", "delete"],
  stopDeletes: false,
  user: ["root", "uid"],
  mount: ["bind"],
  pause: "memory",
  snapshot: true,
  // What the set-up's runsc holds (registered with --network=none): see src/docker/runtime.ts.
  runtimes: { gvisor: { network: ["none"] } },
  defaults: { cpus: DEFAULT_CPUS, memoryMb: DEFAULT_MEMORY_MB, pids: DEFAULT_PIDS, workdir: HOME },
};

/** A desktop: linux's, and the display's groups, which hello declares once the X server answers. */
export const DESKTOP_CAPABILITIES: Capabilities = {
  ...CAPABILITIES,
  kind: "desktop",
  groups: [...CAPABILITIES.groups, ...DISPLAY_GROUPS],
  // A desktop's X server under gVisor is refused (gvisorSpecRefusals).
  runtimes: {},
};

/**
 * A browser: computerd is its init (pid1) with a linux computer's methods, Chromium runs as its
 * user, and its CDP is the provider's group (connect serves it). No run folder, no pause or
 * snapshot: a browser keeps nothing a fork would start from; no gVisor (refused at check). The
 * rest is linux's row.
 */
export const BROWSER_CAPABILITIES: Capabilities = (({ mount: _mount, pause: _pause, snapshot: _snapshot, runtimes: _runtimes, ...linux }) => ({
  ...linux,
  kind: "browser" as const,
  groups: [...linux.groups, "cdp" as const],
  user: ["uid" as const],
  defaults: { ...linux.defaults, image: BROWSER_IMAGE },
}))(CAPABILITIES);

/** What a computer of a kind is held to: its kind and groups. */
export function capabilitiesOfKind(kind: MachineKind): Capabilities {
  return kind === "desktop" ? DESKTOP_CAPABILITIES : kind === "browser" ? BROWSER_CAPABILITIES : CAPABILITIES;
}

/** The groups hello declares for a kind: the daemon's, never the provider's (cdp). */
export function helloGroupsOf(kind: MachineKind): string[] {
  return capabilitiesOfKind(kind).groups.filter((g) => !(PROVIDER_GROUPS as readonly string[]).includes(g));
}

/** The provider as its parts see it. */
export interface DockerContext extends Settled {
  readonly id: "docker";
  readonly engine: DockerEngine;
  /** The version hello must report. */
  readonly version: string;
  readonly proxies: DockerEgressProxies;
  readonly pause: Pause | undefined;
  /** Each image's /etc/passwd and /etc/group, read once per image id (naming a computer's user). */
  readonly etc: ImageEtcCache;
  /** The host read (once per provider), refused in words when it lacks any enforcement. */
  enforcingHost(options: CallOptions): Promise<Result<Host>>;
  /** The proxy's image made ready (once per provider). */
  egressImage(signal?: AbortSignal): Promise<Result<string>>;
  /** The daemon's copy in the cache, or its tree on the volume (creates at the same moment share one); throws as daemonCopy does. */
  daemonCopy(): Promise<string | VolumeDaemon>;
  /** The engine, when it is another host's: the daemon goes in by archive, binds only from hostFolders. */
  readonly remote: RemoteEngine | undefined;
  /** The daemon as the file a remote engine's computer is given in its archive (read once); throws when daemonPath cannot be read. */
  daemonFile(): Promise<TarFile>;
  /** The browser's image made ready (its recipe on the base): the engine image a spec's "chromium" is. */
  browserImage(signal?: AbortSignal): Promise<Result<string>>;
}

/** A desktop's DISPLAY. */
export function displayOf(context: Pick<Settled, "desktop">): string {
  return context.desktop.display ?? DEFAULT_DISPLAY;
}

/** What the drift check holds a computer to beside its spec. */
export function expectedOf(
  context: Pick<DockerContext, "version" | "desktop" | "volume">,
  host: Host,
  at: { uid: number; gid: number; deadline: string; daemon: DaemonAt; kind: MachineKind },
): DriftExpected {
  const declared = capabilitiesOfKind(at.kind);
  return {
    user: `${at.uid}:${at.gid}`,
    daemon: at.daemon,
    deadline: at.deadline,
    version: context.version,
    groups: helloGroupsOf(at.kind),
    kind: declared.kind,
    arch: host.arch,
    host: { apparmor: host.apparmor, selinux: host.selinux },
    ...(at.kind === "desktop" ? { display: displayOf(context) } : {}),
    ...(context.volume ? { volume: context.volume } : {}),
  };
}

/** A computer's ref: its spec as read back (its run folder by the volume option, when set), the kind hello says, and hello. */
export function refOf(inspected: Inspected, hello: Hello | undefined, proxy: NetworkReadBack | undefined, volume: VolumeOption | undefined): ComputerRef {
  const spec: SpecReadBack = specOf(inspected, proxy, volume);
  if (hello) spec.kind = hello.kind;
  return { id: inspected.Id, name: nameOf(inspected), provider: "docker", spec, ...(hello ? { hello } : {}) };
}

/** The container a ref names: its id when it has one (a computer renamed by hand keeps it), else its name. */
export function targetOf(ref: ComputerRef): Result<string> {
  if (typeof ref?.id === "string" && ID_PATTERN.test(ref.id)) return ok(ref.id);
  if (typeof ref?.name === "string" && NAME_PATTERN.test(ref.name)) return ok(ref.name);
  return fail("invalid", "a Docker computer's ref has its container id (12 to 64 hex digits) or its name, computer-<12 hex digits>", { field: "id" });
}
