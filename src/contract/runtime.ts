// A computer's runtime: runc, its programs on the host's kernel behind namespaces and a seccomp
// filter (every provider's default), or gvisor, gVisor's kernel between its programs and the
// host's. The names, the one refusal of a runtime a provider does not offer, and the kernel its
// programs read from inside, which tells the two apart.
import type { ComputerClient } from "../daemon/client.js";
import type { Refusal } from "../daemon/result.js";
import { readFile } from "../daemon/files.js";

export const RUNTIMES = ["runc", "gvisor"] as const;
export type Runtime = (typeof RUNTIMES)[number];

/** The refusal of a spec's runtime: a name that is none, or one the provider does not offer; undefined when it is fine. */
export function runtimeRefusal(runtime: unknown, offered: readonly Runtime[], provider: string): Refusal | undefined {
  if (runtime === undefined || (typeof runtime === "string" && offered.includes(runtime as Runtime))) return undefined;
  if (typeof runtime !== "string" || !RUNTIMES.includes(runtime as Runtime)) {
    return { field: "runtime", message: `runtime is ${RUNTIMES.join(" or ")}, not ${(JSON.stringify(runtime) ?? String(runtime)).slice(0, 40)}` };
  }
  return {
    field: "runtime",
    message: `runtime ${runtime} is not offered by the ${provider} provider yet: leave runtime out (${offered.join(", ")}, the default) or make the computer on Docker`,
  };
}

/** The kernel a computer's programs run on, as they read it. */
export interface Kernel {
  /** uname's release ("4.4.0" under gVisor's 2022 releases). */
  release: string;
  /** /proc/version whole, one line. */
  version: string;
}

/** /proc/version's line as a Kernel: "Linux version <release> ...". */
export function kernelOf(procVersion: string): Kernel | undefined {
  const version = procVersion.trim().split("\n")[0] ?? "";
  const release = /^Linux version (\S+)/.exec(version)?.[1];
  return release === undefined ? undefined : { release, version };
}

/** /proc/version read by the daemon inside the computer, as its user. */
export async function readKernel(client: ComputerClient, signal?: AbortSignal): Promise<Kernel | string> {
  const read = await readFile(client, "/proc/version", signal ? { signal } : {});
  if (!read.ok) return `/proc/version could not be read from inside: ${read.error.message}`;
  const text = Buffer.from(read.value).toString("utf8");
  return kernelOf(text) ?? `/proc/version reads ${JSON.stringify(text.slice(0, 80))}, not a Linux version line`;
}

/**
 * The mismatch of a computer's kernel with its runtime, or undefined: under gvisor its programs
 * must not read the host's kernel release, under runc they must.
 */
export function kernelDrift(runtime: Runtime, kernel: Kernel | string, hostRelease: string | undefined): string | undefined {
  if (typeof kernel === "string") return `runtime: ${kernel}, so the kernel under the computer's programs is not known`;
  if (hostRelease === undefined) return `runtime: the host reports no kernel release, so the computer's (${kernel.release}) cannot be told from it`;
  const onHost = kernel.release === hostRelease;
  if (runtime === "gvisor" && onHost)
    return `runtime: the computer's programs run on the host's kernel (${kernel.version}), not gVisor's: it is runc's computer, not the gvisor declared`;
  if (runtime === "runc" && !onHost)
    return `runtime: the computer's programs run on kernel ${kernel.release}, not the host's ${hostRelease}, though runc was declared`;
  return undefined;
}
