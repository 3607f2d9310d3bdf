// What an allowlisted computer's sidecar enforces beyond its list, for its read-back, as on Docker
// (src/egress/enforced.ts): its rules from its argv, the hosts its proxy's credentials are bound
// to (from the Secret its one variable names, never a value: the Pod spec holds the reference
// alone), and, read from inside, whose CA the computer trusts; with its rules proven from inside
// by judge-only requests (src/egress/proven.ts), each mismatch drift naming its host.
import type { ComputerClient } from "../daemon/client.js";
import { ok, type Result } from "../daemon/result.js";
import { type EgressEnforced, enforcedInside, type ProxyHeld, proxyHeldOf } from "../egress/enforced.js";
import { unprovenRules } from "../egress/proven.js";
import type { SidecarReadBack } from "./egress.js";
import type { KubeEgressProxies } from "./proxies.js";

/**
 * What a running sidecar holds: its rules, and, when it takes its joined proxy's key, the hosts of
 * the credentials in that proxy's Secret (the variable is read at the sidecar's start, and a change
 * of key is refused while a computer runs, so the Secret is what it took; a Secret changed by hand
 * is the proxy's drift).
 */
export async function sidecarHeld(
  sidecar: SidecarReadBack,
  joined: { proxy: string; proxies: KubeEgressProxies } | undefined,
  signal: AbortSignal | undefined,
): Promise<Result<ProxyHeld>> {
  const keyed = (sidecar.container?.env ?? []).length > 0;
  const credentials = keyed && joined ? await joined.proxies.credentials(joined.proxy, signal) : ok(undefined);
  if (!credentials.ok) return credentials;
  return ok(proxyHeldOf(sidecar.container?.args, credentials.value ?? []));
}

/**
 * From inside, through the computer's daemon: its rules proven first (their requests pass init's
 * relay, which makes the trust bundle again when the proxy's CA is new), then the read-back's
 * enforced with whose CA the computer trusts.
 */
export async function enforcedFromInside(
  held: ProxyHeld,
  client: ComputerClient,
  signal: AbortSignal | undefined,
): Promise<{ enforced: EgressEnforced; drift: string[] }> {
  const drift = await unprovenRules(client, held.enforced.rules, signal);
  return { enforced: await enforcedInside(held, client, signal), drift };
}
