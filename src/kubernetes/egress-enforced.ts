// What an allowlisted computer's sidecar enforces beyond its list, for its read-back, as on Docker
// (src/egress/enforced.ts): a joined sidecar's rules, its proxy's ConfigMap's (which its log says
// it holds, joined-read.ts), the hosts its proxy's credentials are bound to (from the Secret it
// reads, never a value), and, read from inside, whose CA the computer trusts; with its rules
// proven from inside by judge-only requests (src/egress/proven.ts), each mismatch drift naming its
// host. A computer's own sidecar holds no rules and no credentials.
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import type { ComputerClient } from "../daemon/client.js";
import { ok, type Result } from "../daemon/result.js";
import { type EgressEnforced, enforcedInside, type ProxyHeld, proxyHeldOf } from "../egress/enforced.js";
import { unprovenRules } from "../egress/proven.js";
import type { SidecarReadBack } from "./egress.js";
import type { KubeEgressProxies } from "./proxies.js";

/**
 * What a running sidecar holds: for a joined one, its proxy's rules (argv form, as its ConfigMap
 * holds them) and the hosts of the credentials in that proxy's Secret; its argv says whether it
 * opens TLS.
 */
export async function sidecarHeld(
  sidecar: SidecarReadBack,
  joined: { proxy: string; proxies: KubeEgressProxies; rules: readonly string[] } | undefined,
  signal: AbortSignal | undefined,
): Promise<Result<ProxyHeld>> {
  const credentials = joined ? await joined.proxies.credentials(joined.proxy, signal) : ok(undefined);
  if (!credentials.ok) return credentials;
  return ok(proxyHeldOf(sidecar.container?.args, credentials.value ?? [], joined?.rules));
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
  const drift = await unprovenRules(client, held.enforced.rules, DAEMON_IN_COMPUTER, signal);
  return { enforced: await enforcedInside(held, client, signal), drift };
}
