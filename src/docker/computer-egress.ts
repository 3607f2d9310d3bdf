// A computer's network as its egress proxy makes it: the proxy of an allowlisted computer read
// back and held to what it must be now (its own proxy, or the shared proxy it joined), for
// read, list, network and create's drift check.
import type { CallOptions } from "../daemon/client.js";
import { hostAddresses } from "../egress/host-addresses.js";
import type { NetworkReadBack } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { parseUser } from "../contract/user.js";
import { DEADLINE_LABEL } from "./constants.js";
import type { DockerContext } from "./context.js";
import { inspectEgress } from "./egress.js";
import { proxyImageTag } from "./egress-image.js";
import { proxyBinaryBeside } from "../egress/proxy-command.js";
import type { EgressExpected } from "./egress-readback.js";
import { proxyReadBack as heldTo } from "./egress-readback.js";
import { egressKey, hasEgress, type Inspected, labelsOf, nameOf, sharedProxyOf } from "./readback.js";

/** What a computer's own proxy must be: hardened and bounded as egress-readback.ts holds it, with these values. */
export function proxyExpected(
  context: Pick<DockerContext, "egress">,
  computer: string,
  at: { uid: number; gid: number; deadline: string; image: string; hostAddresses: readonly string[] },
): EgressExpected {
  return {
    key: computer,
    uid: at.uid,
    gid: at.gid,
    deadline: at.deadline,
    image: at.image,
    hostAddresses: at.hostAddresses,
    ...(context.egress.testNetwork ? { testNetwork: context.egress.testNetwork } : {}),
  };
}

/**
 * An allowlisted computer's proxy read back and held to what it must be now: hardened and
 * bounded, its volume, the provider's proxy image, and today's host addresses. A computer with
 * no egress part reads undefined.
 */
export async function proxyReadBack(
  context: Pick<DockerContext, "engine" | "proxies" | "egress" | "daemonPath">,
  inspected: Inspected,
  options: CallOptions = {},
  read?: { proxy: Inspected | undefined },
): Promise<Result<NetworkReadBack | undefined>> {
  if (!hasEgress(inspected)) return ok(undefined);
  const name = nameOf(inspected);
  const user = parseUser(String(inspected.Config?.User ?? ""));
  const [uid, gid] = user.ok ? [user.value.uid, user.value.gid] : [NaN, NaN];
  const deadline = labelsOf(inspected)[DEADLINE_LABEL] ?? "";
  // A computer that joined a shared proxy reads that proxy, held to its user and deadline.
  const shared = sharedProxyOf(inspected);
  if (shared !== undefined) return context.proxies.joined(shared, { uid, gid, deadline }, options, read);
  const found = read ? ok(read.proxy) : await inspectEgress(context.engine, name, options);
  if (!found.ok) return found;
  const addresses = hostAddresses(context.egress);
  if (!addresses.ok) return ok({ other: `network allow, but its egress proxy cannot be held to the Docker host's addresses: ${addresses.error.message}` });
  const proxy = proxyBinaryBeside(context.daemonPath);
  const image = await proxyImageTag(proxy).catch(() => undefined);
  if (!image) return fail("failed", `the egress proxy at ${proxy} could not be read, so ${name}'s egress proxy cannot be checked against it`);
  return ok(heldTo(found.value, proxyExpected(context, name, { uid, gid, deadline, image, hostAddresses: addresses.value })));
}

/**
 * The proxy as a computer's read holds it. A shared proxy stopped or removed by hand is its
 * EgressProxy's drift (that read names it), not each joined computer's: the computer, as
 * declared, reads as an allowlist that reaches nothing until the proxy is made again. Its own
 * side (network mode, networks, the proxy volume's mount) is still held by networkOf. The proxy is
 * inspected once, and given back beside the network for what else the read takes from it.
 */
export async function heldProxyReadBack(
  context: Pick<DockerContext, "engine" | "proxies" | "egress" | "daemonPath">,
  inspected: Inspected,
  options: CallOptions,
): Promise<Result<{ network: NetworkReadBack | undefined; proxy: Inspected | undefined }>> {
  if (!hasEgress(inspected)) return ok({ network: undefined, proxy: undefined });
  const found = await inspectEgress(context.engine, egressKey(inspected) ?? nameOf(inspected), options);
  if (!found.ok) return found;
  const network = await proxyReadBack(context, inspected, options, { proxy: found.value });
  if (!network.ok) return network;
  const stopped = sharedProxyOf(inspected) !== undefined && found.value?.State?.Running !== true;
  if (stopped && typeof network.value === "object" && "other" in network.value) return ok({ network: { allow: [] }, proxy: found.value });
  return ok({ network: network.value, proxy: found.value });
}
