// A joined computer's list read back: its proxy's ConfigMap (proxies.ts), and the digest its
// sidecar's log says it holds, held to that list; the rules its sidecar runs held to the
// ConfigMap's.
import { ok, type Result } from "../daemon/result.js";
import { rulesChangedHosts } from "../egress/rules.js";
import { sidecarRules, type SidecarReadBack } from "./egress.js";
import { heldOf, joinedNetwork, type JoinedRead } from "./proxy-configmap.js";
import type { KubeEgressProxies } from "./proxies.js";
import type { KubePods } from "./pods.js";
import type { Pod } from "./readback.js";

/**
 * A joined computer's list: its proxy's ConfigMap, and the digest its sidecar's log says it holds,
 * held to that list ("not yet" within listSyncMs of a change, drift past it).
 */
export async function joinedRead(
  sb: KubePods,
  proxies: KubeEgressProxies,
  pod: Pod,
  proxy: string,
  sidecar: SidecarReadBack,
  signal: AbortSignal | undefined,
): Promise<Result<JoinedRead>> {
  const cm = await proxies.configMap(proxy, signal);
  if (!cm.ok) return cm;
  if (!cm.value) {
    const why = `network allow, but its egress proxy ${proxy} is gone (no ConfigMap ${proxy}): its sidecar holds the last list the kubelet wrote`;
    return ok({ network: { other: why }, drift: why.replace(/^network allow, but its /, "the ") });
  }
  const holds = await proxies.sidecarHolds(pod.metadata.name, signal);
  if (!holds.ok) return holds;
  const held = heldOf(cm.value, sb.o.egress.testRange);
  const read = joinedNetwork(held, holds.value, Date.now(), sb.o.t.listSyncMs);
  // The sidecar's rules are its proxy's as its computer started: a ConfigMap's changed since (by hand) is drift, host by host.
  const hosts = rulesChangedHosts(sidecarRules(sidecar), held.rules);
  if (hosts.length === 0) return ok(read);
  const words = `the egress proxy ${proxy}'s ConfigMap holds other rules for ${hosts.join(", ")} than ${pod.metadata.name}'s sidecar runs (a computer runs its proxy's rules as they were at its start)`;
  return ok({ ...read, drift: read.drift ? `${read.drift}; ${words}` : words });
}
