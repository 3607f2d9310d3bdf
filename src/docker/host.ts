// The host's enforcement: a computer's sizes are cgroup limits, real only where the Docker host
// enforces them. hostOf turns docker info into the host's architecture, security modules, user
// remapping and engine, and each requirement it lacks in words.

/** docker info --format '{{json .}}', the fields read here. */
export interface DockerInfo {
  MemoryLimit?: boolean;
  SwapLimit?: boolean;
  PidsLimit?: boolean;
  CpuCfsQuota?: boolean;
  CpuCfsPeriod?: boolean;
  SecurityOptions?: string[] | null;
  Architecture?: string;
  ServerVersion?: string;
  NCPU?: number;
  KernelVersion?: string;
  Runtimes?: unknown;
  [field: string]: unknown;
}

export interface Host {
  /** Go's name for the host's architecture: amd64, arm64, or Docker's word when it is neither. */
  arch: string;
  apparmor: boolean;
  selinux: boolean;
  /** The host maps a computer's uids to others: userns-remap or rootless Docker. */
  remap?: "userns" | "rootless";
  /** The engine's version (ServerVersion), when it reports one. */
  engine?: string;
  /** The host's CPUs (NCPU), when it reports them: Docker refuses --cpus above them. */
  cpus?: number;
  /** The host's kernel release (KernelVersion): a runc computer's programs read it, a gVisor one's do not. */
  kernel?: string;
  /** The runtimes the engine has registered, each with its runtimeArgs (Runtimes). */
  runtimes?: Record<string, string[]>;
  /** Each requirement the host lacks, in words; create refuses while any is here. */
  lacks: string[];
}

import { registeredRuntimes } from "./runtime.js";

const ARCH: Record<string, string> = { x86_64: "amd64", amd64: "amd64", aarch64: "arm64", arm64: "arm64" };

/** Each entry of SecurityOptions ("name=seccomp,profile=default") as its name and settings. */
function securityOptions(info: DockerInfo): Map<string, Record<string, string>> {
  const options = new Map<string, Record<string, string>>();
  for (const entry of info.SecurityOptions ?? []) {
    const settings: Record<string, string> = {};
    for (const part of entry.split(",")) {
      const [key = "", value = ""] = part.split("=");
      settings[key] = value;
    }
    if (settings.name) options.set(settings.name, settings);
  }
  return options;
}

export function hostOf(info: DockerInfo): Host {
  const lacks: string[] = [];
  if (info.MemoryLimit !== true) lacks.push("this Docker host does not enforce memory limits, so a computer's memory size is only configuration");
  if (info.SwapLimit !== true) lacks.push("this Docker host does not enforce swap limits, so a computer could swap past its memory size");
  if (info.PidsLimit !== true) lacks.push("this Docker host does not enforce pids limits, so a computer's pids limit is only configuration");
  if (info.CpuCfsQuota !== true) lacks.push("this Docker host does not enforce CPU quotas, so a computer's cpus are only configuration");
  if (info.CpuCfsPeriod !== true) lacks.push("this Docker host does not enforce CPU periods, so a computer's cpus are only configuration");
  const security = securityOptions(info);
  const seccomp = security.get("seccomp");
  if (!seccomp) lacks.push("this Docker host has no seccomp, so a computer could make any system call");
  else if (seccomp.profile === "unconfined") {
    lacks.push("this Docker host has no seccomp (its default seccomp profile is unconfined), so a computer could make any system call");
  }
  const host: Host = {
    arch: ARCH[String(info.Architecture)] ?? String(info.Architecture ?? "unknown"),
    apparmor: security.has("apparmor"),
    selinux: security.has("selinux"),
    lacks,
  };
  if (security.has("rootless")) host.remap = "rootless";
  else if (security.has("userns")) host.remap = "userns";
  if (typeof info.ServerVersion === "string" && info.ServerVersion) host.engine = info.ServerVersion;
  if (typeof info.NCPU === "number" && info.NCPU > 0) host.cpus = info.NCPU;
  if (typeof info.KernelVersion === "string" && info.KernelVersion) host.kernel = info.KernelVersion;
  if (info.Runtimes !== undefined) host.runtimes = registeredRuntimes(info.Runtimes);
  return host;
}

/** The engine's major version ("20.10.24+dfsg1" is 20), or undefined when it reports none. */
export function engineMajor(host: Host): number | undefined {
  const major = /^(\d+)\./.exec(host.engine ?? "")?.[1];
  return major === undefined ? undefined : Number(major);
}
