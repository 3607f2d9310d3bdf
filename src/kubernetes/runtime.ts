// gVisor on Kubernetes: a computer with runtime gvisor is a Pod of the RuntimeClass the settings
// name (gvisorRuntimeClass), whose handler runs the Pod under runsc. What the provider offers under
// it, what check refuses, the class a Pod must have, and its kernel read from inside against the
// node's.
import { kernelDrift, readKernel, type Runtime } from "../contract/runtime.js";
import type { CheckInput, RuntimeHolds } from "../contract/provider.js";
import type { ComputerClient } from "../daemon/client.js";
import type { Refusal } from "../daemon/result.js";

/**
 * What a gVisor Pod holds: network none alone. A Pod's network under runsc is its handler's
 * configuration (runsc run with --network=none, as it must be on a host that is itself a
 * container, gives it none), which the API server does not show, so open and an allowlist are not
 * offered until a cluster's can be read.
 */
export const GVISOR_HOLDS: RuntimeHolds = { network: ["none"] };

/** The RuntimeClass a Pod of the runtime must have: gvisor's, else the provider's for every Pod. */
export function runtimeClassOf(
  runtime: Runtime | undefined,
  o: { runtimeClass: string | undefined; gvisorRuntimeClass: string | undefined },
): string | undefined {
  return runtime === "gvisor" ? o.gvisorRuntimeClass : o.runtimeClass;
}

/** The refusals of a spec's runtime gvisor: no RuntimeClass for it (offered false), or a network its Pods do not hold. */
export function gvisorRefusals(spec: Pick<CheckInput, "runtime" | "network">, offered: boolean): Refusal[] {
  if (spec.runtime !== "gvisor") return [];
  if (!offered)
    return [
      {
        field: "runtime",
        message:
          "runtime gvisor needs a RuntimeClass backed by gVisor's runsc: set the Kubernetes provider's gvisorRuntimeClass to one the cluster has (kubectl get runtimeclass), or leave runtime out (runc)",
      },
    ];
  if (spec.network !== undefined && spec.network !== "none")
    return [
      {
        field: "network",
        message: `network ${typeof spec.network === "string" ? spec.network : "allow"} under runtime gvisor is refused: a gVisor Pod's network is its runsc's configuration, which the API server does not show, so it could not be held to what was declared; ask for network none, or runtime runc`,
      },
    ];
  return [];
}

/**
 * A gvisor computer's kernel read from inside against its node's (as the Pod's read took it from
 * the Node): its programs must not run on the node's kernel. A drift, a note when the node's
 * kernel is not known, or neither.
 */
export async function gvisorKernel(
  client: ComputerClient,
  node: string,
  nodeKernel: string | undefined,
  signal?: AbortSignal,
): Promise<{ drift?: string; note?: string }> {
  const kernel = await readKernel(client, signal);
  if (nodeKernel === undefined && typeof kernel !== "string")
    return { note: `runtime: the computer's kernel is ${kernel.release}; the Node ${node}'s could not be read, so it was not compared` };
  const drift = kernelDrift("gvisor", kernel, nodeKernel);
  return drift === undefined ? {} : { drift };
}
