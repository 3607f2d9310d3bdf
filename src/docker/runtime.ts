// gVisor on Docker: a computer with runtime gvisor is a container of the engine's runtime
// "runsc", registered by the engine's daemon.json ("runtimes") or dockerd --add-runtime. What
// docker info says of it, what check refuses under it, and its name in HostConfig.Runtime.
import type { CheckInput } from "../contract/provider.js";
import type { ComputerClient } from "../daemon/client.js";
import { kernelDrift, readKernel, type Runtime } from "../contract/runtime.js";
import type { Refusal } from "../daemon/result.js";

/** The engine's name for gVisor's runtime, as gVisor's own docs and the set-up register it. */
export const GVISOR_RUNTIME = "runsc";

/** HostConfig.Runtime for a computer's runtime. */
export function dockerRuntime(runtime: Runtime | undefined): string {
  return runtime === "gvisor" ? GVISOR_RUNTIME : "runc";
}

/** The runtime a HostConfig.Runtime is, or undefined for one that is neither. */
export function runtimeOfDocker(name: unknown): Runtime | undefined {
  return name === GVISOR_RUNTIME ? "gvisor" : name === "runc" ? "runc" : undefined;
}

/** docker info's Runtimes: each runtime's runtimeArgs, by name. */
export function registeredRuntimes(runtimes: unknown): Record<string, string[]> {
  if (typeof runtimes !== "object" || runtimes === null) return {};
  return Object.fromEntries(
    Object.entries(runtimes as Record<string, { runtimeArgs?: unknown }>).map(([name, entry]) => [
      name,
      Array.isArray(entry?.runtimeArgs) ? entry.runtimeArgs.map(String) : [],
    ]),
  );
}

/** How to register runsc, said where it is missing. */
export const ADD_RUNSC =
  'add it under "runtimes" in the engine\'s daemon.json ({"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--platform=ptrace"]}}) and reload dockerd (kill -HUP), or start dockerd with --add-runtime runsc=/usr/bin/runsc (Debian\'s runsc package; scripts/setup-docker.sh does both here)';

/**
 * What gVisor cannot give a computer here, known from the spec alone: measured on runsc
 * 2022-12 (docs/vendors/docker.md has the table).
 */
export function gvisorSpecRefusals(spec: CheckInput): Refusal[] {
  if (spec.runtime !== "gvisor") return [];
  const out: Refusal[] = [];
  if (spec.kind === "desktop")
    out.push({
      field: "runtime",
      message:
        "runtime gvisor with kind desktop is refused: a desktop's X server under gVisor has not been measured here, so it could not be held to what was declared; ask for kind linux, or runtime runc for a desktop",
    });
  if (typeof spec.network === "object" && spec.network !== null && "allow" in spec.network)
    out.push({
      field: "runtime",
      message:
        "runtime gvisor with an allowlist is refused: init's relay reaches the egress proxy through a Unix socket on the egress volume, and runsc does not let its sandbox open a host's socket (its --host-uds is none), so the computer would never start; ask for network none, or runtime runc for an allowlist",
    });
  return out;
}

/** What this engine's runsc cannot give a computer: its registration, and the network its arguments leave. */
export function gvisorHostRefusals(spec: CheckInput, runtimes: Record<string, string[]> | undefined): Refusal[] {
  if (spec.runtime !== "gvisor") return [];
  const args = runtimes?.[GVISOR_RUNTIME];
  if (args === undefined)
    return [
      {
        field: "runtime",
        message: `runtime gvisor needs gVisor's runsc registered with this Docker engine as the runtime "${GVISOR_RUNTIME}", and docker info lists ${Object.keys(runtimes ?? {}).join(", ") || "none"}: ${ADD_RUNSC}`,
      },
    ];
  if (spec.network === "open" && args.includes("--network=none"))
    return [
      {
        field: "network",
        message: `network open under runtime gvisor is refused: this engine's runsc is registered with --network=none, so the computer's programs would have its loopback alone; ask for network none or an allowlist, or runtime runc`,
      },
    ];
  return [];
}

/**
 * A gvisor computer's kernel read from inside against the host's (docker info's KernelVersion):
 * its programs must not run on the host's. A runc computer is its HostConfig.Runtime alone.
 */
export async function gvisorKernelDrift(
  client: ComputerClient,
  runtime: Runtime | undefined,
  hostKernel: string | undefined,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (runtime !== "gvisor") return undefined;
  return kernelDrift(runtime, await readKernel(client, signal), hostKernel);
}
