// The drift check a Modal computer gets after create and at attach: the sandbox runs (poll null),
// its tags are exactly those given, hello is the provider's daemon, and the probe, run through
// exec.run as the computer's user, reads that user, a kernel that is not gVisor's, the
// daemon's own loopback alone, and no target answering.
import type { ComputerClient } from "../daemon/client.js";
import type { Hello } from "../daemon/protocol.js";
import { readNetworkNone } from "../contract/probe.js";
import type { NetworkReadBack } from "../contract/provider.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";

/** gVisor's kernel as its uname reports it (guide/troubleshooting): a sandbox not on the VM runtime. */
export const GVISOR_KERNEL = /gvisor/i;

export interface HelloWant {
  version: string;
  kind: string;
  groups: readonly string[];
}

/** One sentence per way hello is not the provider's daemon (version, os, arch amd64, kind, groups). */
export function helloDrift(hello: Hello, want: HelloWant): string[] {
  const out: string[] = [];
  if (hello.version !== want.version) out.push(`its daemon reports version ${hello.version}, not the provider's ${want.version}`);
  if (hello.os !== "linux") out.push(`its daemon reports os ${hello.os}, not linux`);
  if (hello.arch !== "amd64") out.push(`its daemon reports arch ${hello.arch}, not amd64 (Modal's images are linux/amd64)`);
  if (hello.kind !== want.kind) out.push(`its daemon reports kind ${hello.kind}, not ${want.kind}`);
  const sorted = (g: readonly string[]) => [...g].sort().join(",");
  if (sorted(hello.groups) !== sorted(want.groups)) out.push(`its daemon reports groups ${hello.groups.join(", ")}, not ${want.groups.join(", ")}`);
  return out;
}

export interface ProbeRead {
  /** The network as the probe reads it: none, or another in words. */
  network: NetworkReadBack;
  /** uid:gid the computer's programs run as, when the probe ran. */
  user?: string;
  kernel?: string;
  /** Mismatches beside the network's: the user, the kernel. */
  drift: string[];
  notes: string[];
}

/** The probe's read of a computer made with network none, as the given user. */
export async function probeNone(
  client: ComputerClient,
  options: { user: string; targets?: readonly string[]; signal?: AbortSignal | undefined },
): Promise<ProbeRead> {
  const read = await readNetworkNone(client, {
    daemonPath: DAEMON_IN_COMPUTER,
    interfaces: ["lo"],
    ...(options.targets ? { targets: options.targets } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!read.ok) {
    const words = read.error.message;
    return { network: { other: words }, drift: [words], notes: [] };
  }
  const { probe, notes } = read.value;
  const user = `${probe.uid}:${probe.gid}`;
  const drift: string[] = [];
  if (user !== options.user) drift.push(`its programs run as ${user}, not the computer's user ${options.user}`);
  if (GVISOR_KERNEL.test(probe.kernel)) drift.push(`its kernel is ${probe.kernel}: a gVisor sandbox, not Modal's VM runtime`);
  return { network: "none", user, kernel: probe.kernel, drift, notes };
}
