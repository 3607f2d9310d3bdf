// What an allowlisted computer's egress proxy enforces beyond its list, for the computer's
// read-back: the rules and the credentials' hosts from the proxy container's argv and environment
// (never a credential's value), and, read from inside, whether the bundle the computer's programs
// trust holds that proxy's CA.
import type { CallOptions, ComputerClient } from "../daemon/client.js";
import { readFile } from "../daemon/files.js";
import { ok, type Result } from "../daemon/result.js";
import type { EgressEnforced, TrustState } from "../egress/enforced.js";
import type { NetworkReadBack } from "../egress/network.js";
import { EGRESS_CA_FILE, flagsOf } from "../egress/proxy-command.js";
import { credentialsOf, type EgressRule, ruleOf } from "../egress/rules.js";
import type { DockerContext } from "./context.js";
import { inspectEgress } from "./egress.js";
import { egressKey, type Inspected, nameOf } from "./readback.js";
import { TRUST_BUNDLE } from "./system-trust.js";

/** The rules and the credentials' hosts a proxy holds, from its container's argv and environment. */
export function enforcedBy(proxy: Inspected): Omit<EgressEnforced, "trust"> {
  const rules = (flagsOf(proxy.Config?.Cmd)?.get("--rule") ?? []).map(ruleOf).filter((r): r is EgressRule => r !== undefined);
  const credentialHosts = [...new Set(credentialsOf(proxy.Config?.Env).map((c) => c.host))].sort();
  return { rules, credentialHosts };
}

/** Whether the proxy a computer reaches through opens TLS (it was given --ca-file), so there is a CA to trust. */
export function opensTLSFor(proxy: Inspected): boolean {
  return flagsOf(proxy.Config?.Cmd)?.has("--ca-file") === true;
}

/** What a computer's proxy holds, and whether it opens TLS (so there is a CA to trust). */
export interface ProxyHeld {
  enforced: Omit<EgressEnforced, "trust">;
  tls: boolean;
}

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
  return ok(found.value?.State?.Running === true ? { enforced: enforcedBy(found.value), tls: opensTLSFor(found.value) } : undefined);
}

/** The read-back's enforced: what the proxy holds, and whose CA the computer trusts, read through its daemon. */
export async function enforcedInside(held: ProxyHeld, client: ComputerClient, signal?: AbortSignal): Promise<EgressEnforced> {
  const trust = await trustOf(client, held.tls, signal);
  return { ...held.enforced, ...(trust ? { trust } : {}) };
}

/**
 * Whose CA the computer's bundle holds, read through its daemon: none when its proxy opens no TLS;
 * undefined when the proxy's CA cannot be read from inside (said by its absence, never as drift).
 */
export async function trustOf(client: ComputerClient, tls: boolean, signal?: AbortSignal): Promise<TrustState | undefined> {
  if (!tls) return "none";
  const bound = signal ? { signal } : {};
  const ca = await readFile(client, EGRESS_CA_FILE, bound);
  if (!ca.ok) return undefined;
  const bundle = await readFile(client, TRUST_BUNDLE, bound);
  if (!bundle.ok) return bundle.error.code === "not_found" ? "other" : undefined;
  const pem = Buffer.from(ca.value).toString("utf8").trim();
  return pem !== "" && Buffer.from(bundle.value).toString("utf8").includes(pem) ? "proxy" : "other";
}
