// gVisor on Kubernetes: a computer with runtime gvisor is a Pod of the RuntimeClass the settings
// name (gvisorRuntimeClass), whose handler runs the Pod under runsc. What the provider offers under
// it, what check refuses, the class a Pod must have, and its kernel read from inside against the
// node's.
import { kernelDrift, readKernel, type Runtime } from "../contract/runtime.js";
import type { ComputerSpec, RuntimeHolds } from "../contract/provider.js";
import type { ComputerClient } from "../daemon/client.js";
import { ok, type Refusal, type Result } from "../daemon/result.js";
import type { KubeApi } from "./api.js";

/**
 * What a gVisor Pod holds: network none alone. A Pod's network under runsc is its handler's
 * configuration (the test cluster's runs --network=none: this machine is a container, and runsc's
 * own network stack refuses to start in it), which the API server does not show, so open and an
 * allowlist are not offered until a cluster's can be read.
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
export function gvisorRefusals(spec: Pick<ComputerSpec, "runtime" | "network">, offered: boolean): Refusal[] {
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

/** The node's kernel release, as its kubelet reports it; undefined when the credentials may not read the Node. */
async function nodeKernel(api: KubeApi, node: string, options: { ms: number; signal?: AbortSignal | undefined }): Promise<Result<string | undefined>> {
  const read = await api.call<{ status?: { nodeInfo?: { kernelVersion?: string } } }>(
    `/api/v1/nodes/${encodeURIComponent(node)}`,
    `reading the Node ${node}`,
    options,
  );
  if (!read.ok) return read.error.code === "refused" || read.error.code === "not_found" ? ok(undefined) : read;
  return ok(read.value?.status?.nodeInfo?.kernelVersion);
}

/**
 * A gvisor computer's kernel read from inside against its node's: its programs must not run on
 * the node's kernel. A drift, a note when the node's kernel cannot be read, or neither.
 */
export async function gvisorKernel(
  api: KubeApi,
  client: ComputerClient,
  node: string,
  options: { ms: number; signal?: AbortSignal | undefined },
): Promise<Result<{ drift?: string; note?: string }>> {
  const [host, kernel] = await Promise.all([nodeKernel(api, node, options), readKernel(client, options.signal)]);
  if (!host.ok) return host;
  if (host.value === undefined && typeof kernel !== "string")
    return ok({ note: `runtime: the computer's kernel is ${kernel.release}; the Node ${node}'s could not be read, so it was not compared` });
  const drift = kernelDrift("gvisor", kernel, host.value);
  return ok(drift === undefined ? {} : { drift });
}
