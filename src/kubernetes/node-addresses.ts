// The nodes' own addresses, which an allowlisted Pod's egress proxy refuses as this-host (Docker's
// proxy refuses the Docker host's): read from the API server's Node list (status.addresses,
// InternalIP and ExternalIP) when the credentials may list nodes, joined with egress.hostAddresses;
// when they may not, the setting alone, said in words. Only an address the proxy would otherwise
// let through needs naming (a public one, or one in the test-only seam's range): the private
// ranges nodes mostly hold are refused by the table already, and nodes come and go with them.
import { fail, ok, type Result } from "../daemon/result.js";
import { classify, contains, formatAddress, parseAddress, parsePrefix, unmap } from "../egress/address.js";
import type { KubeApi } from "./api.js";

/** The Node address types that are a node's IP addresses (Hostname and InternalDNS are names). */
export const NODE_ADDRESS_TYPES = ["InternalIP", "ExternalIP"] as const;

export interface NodeList {
  items?: Array<{ metadata?: { name?: string }; status?: { addresses?: Array<{ type?: string; address?: string }> } }>;
}

export interface NodeAddresses {
  /** The addresses the proxy refuses: the nodes' that need naming and the setting's, sorted. */
  addresses: string[];
  /** Why the nodes' own were not read, in words; absent when they were. */
  note?: string;
}

/** Whether the proxy would pass an address unless named: public, or in the test-only seam's range. */
function passable(text: string, testRange: string | undefined): boolean {
  const a = parseAddress(text)!;
  const range = testRange ? parsePrefix(testRange) : undefined;
  return classify(a) === "public" || (range !== undefined && contains(range, unmap(a)));
}

/** The IP addresses of every node in a list, normalized; names and anything not an IP address skipped. */
export function addressesOfNodes(list: NodeList): string[] {
  const out = new Set<string>();
  for (const node of list.items ?? []) {
    for (const entry of node.status?.addresses ?? []) {
      if (!NODE_ADDRESS_TYPES.includes(entry.type as (typeof NODE_ADDRESS_TYPES)[number])) continue;
      const a = typeof entry.address === "string" ? parseAddress(entry.address) : undefined;
      if (a) out.add(formatAddress(unmap(a)));
    }
  }
  return [...out];
}

/**
 * What the proxy refuses from the Node list as the API server answered it: the nodes' passable
 * addresses and the setting's; a list the credentials may not read (403) is the setting alone, with
 * a note; any other failure is the caller's (the API server is down or the call was aborted).
 */
export function nodeAddressesOf(listed: Result<NodeList>, setting: readonly string[], testRange?: string): Result<NodeAddresses> {
  const given = [...setting];
  if (!listed.ok) {
    if (listed.error.code !== "refused") return fail(listed.error.code, `reading the nodes' addresses: ${listed.error.message}`);
    const held = given.length > 0 ? `the ${given.length} in egress.hostAddresses alone (${given.join(", ")})` : "none of them (egress.hostAddresses is empty)";
    return ok({
      addresses: [...new Set(given)].sort(),
      note: `the credentials may not list nodes, so the egress proxy refuses ${held} as the nodes' own addresses: give egress.hostAddresses the nodes' public addresses, or let the credentials list nodes`,
    });
  }
  const nodes = addressesOfNodes(listed.value ?? {}).filter((a) => passable(a, testRange));
  return ok({ addresses: [...new Set([...nodes, ...given])].sort() });
}

/** The nodes' addresses through one bounded list call, joined with the setting. */
export async function nodeAddresses(
  api: KubeApi,
  setting: readonly string[],
  options: { ms: number; signal?: AbortSignal | undefined; testRange?: string | undefined },
): Promise<Result<NodeAddresses>> {
  const listed = await api.call<NodeList>("/api/v1/nodes", "listing the nodes", { ms: options.ms, signal: options.signal });
  return nodeAddressesOf(listed, setting, options.testRange);
}
