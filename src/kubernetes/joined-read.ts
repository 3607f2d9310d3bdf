// A joined computer's list read back: its proxy's ConfigMap (proxies.ts), and the digests its
// sidecar's log says it holds, held to its list, rules and hint.
import { ok, type Result } from "../daemon/result.js";
import { heldOf, joinedNetwork, type JoinedRead } from "./proxy-configmap.js";
import type { KubeEgressProxies } from "./proxies.js";
import type { KubePods } from "./pods.js";
import type { Pod } from "./readback.js";
import { driftOfOther } from "../egress/network.js";

/**
 * A joined computer's list: its proxy's ConfigMap, and the digests its sidecar's log says it holds,
 * held to its list, rules and hint ("not yet" within listSyncMs of a change, drift past it).
 */
export async function joinedRead(
  sb: KubePods,
  proxies: KubeEgressProxies,
  pod: Pod,
  proxy: string,
  signal: AbortSignal | undefined,
): Promise<Result<JoinedRead>> {
  const cm = await proxies.configMap(proxy, signal);
  if (!cm.ok) return cm;
  if (!cm.value) {
    const why = `network allow, but its egress proxy ${proxy} is gone (no ConfigMap ${proxy}): its sidecar holds the last list the kubelet wrote`;
    return ok({ network: { other: why }, drift: driftOfOther(why) });
  }
  const holds = await proxies.sidecarHolds(pod.metadata.name, signal);
  if (!holds.ok) return holds;
  const held = heldOf(cm.value, sb.o.egress.testRange);
  return ok({ ...joinedNetwork(held, holds.value, Date.now(), sb.o.t.listSyncMs), rules: held.rules });
}
