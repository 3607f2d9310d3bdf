// What an allowlisted computer's egress proxy enforces beyond its list, for the computer's
// read-back on Docker: the rules and the credentials' hosts from the proxy container's argv and
// environment (never a credential's value); whose CA the computer trusts is read from inside by
// src/egress/enforced.ts.
import type { CallOptions } from "../daemon/client.js";
import { ok, type Result } from "../daemon/result.js";
import { type ProxyHeld, proxyHeldOf } from "../egress/enforced.js";
import type { NetworkReadBack } from "../egress/network.js";
import { credentialsOf } from "../egress/rules.js";
import type { DockerContext } from "./context.js";
import { inspectEgress } from "./egress.js";
import { egressKey, type Inspected, nameOf } from "./readback.js";

/**
 * What the proxy of an allowlisted computer (its own, or the shared one it joined) holds, when its
 * network read back as the proxy's list ({ allow }: the proxy as made); undefined for any other
 * network, or a proxy not running. The proxy is inspected here unless the caller read it already.
 */
export async function proxyHeld(
  context: Pick<DockerContext, "engine">,
  inspected: Inspected,
  network: NetworkReadBack | undefined,
  options: CallOptions = {},
  read?: { proxy: Inspected | undefined },
): Promise<Result<ProxyHeld | undefined>> {
  if (!(network && typeof network === "object" && "allow" in network)) return ok(undefined);
  const found = read ? ok(read.proxy) : await inspectEgress(context.engine, egressKey(inspected) ?? nameOf(inspected), options);
  if (!found.ok) return found;
  return ok(found.value?.State?.Running === true ? proxyHeldOf(found.value.Config?.Cmd, credentialsOf(found.value.Config?.Env)) : undefined);
}
