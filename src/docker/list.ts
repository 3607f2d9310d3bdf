// list: the computers with these labels, whatever their names, in one list call to the engine;
// an allowlisted computer's network read back through its proxy, every proxy inspected at once.
import type { CallOptions } from "../daemon/client.js";
import type { ComputerInfo, NetworkReadBack } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { withClaims } from "./claims.js";
import { proxyReadBack } from "./computer-egress.js";
import { DEADLINE_LABEL } from "./constants.js";
import type { DockerContext } from "./context.js";
import { inspect, listByLabels } from "./containers.js";
import { inspectEgressOf } from "./egress.js";
import { WORKSPACE } from "../contract/mount.js";
import { deadlineOf, egressKey, hasEgress, type Inspected, labelsOf, mountOf, nameOf, networkOf, stateOf } from "./readback.js";

/**
 * An allowlisted computer's network is its proxy's: each such computer inspected whole, one list
 * of every proxy, then one inspect of each proxy they mount, all at once.
 */
async function networksOf(context: DockerContext, whole: Map<string, Inspected>, options: CallOptions): Promise<Result<Map<string, NetworkReadBack>>> {
  const allowlisted = [...whole.values()].filter(hasEgress);
  const proxies = await inspectEgressOf(
    context.engine,
    allowlisted.map((w) => egressKey(w) ?? nameOf(w)),
    options,
  );
  if (!proxies.ok) return proxies;
  const networks = new Map<string, NetworkReadBack>();
  const read = await Promise.all(
    allowlisted.map(async (w) => ({ w, proxy: await proxyReadBack(context, w, options, { proxy: proxies.value.get(egressKey(w) ?? nameOf(w)) }) })),
  );
  for (const { w, proxy } of read) {
    if (!proxy.ok) return proxy;
    networks.set(w.Id, networkOf(w, proxy.value));
  }
  return ok(networks);
}

/** The computers with these labels, whatever their names: one call to the engine. */
export async function listComputers(context: DockerContext, labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
  for (const [key, value] of Object.entries(labels)) {
    if (!key || key.includes("=") || key.includes("\0") || typeof value !== "string" || value.includes("\0")) {
      return fail("invalid", "list takes labels whose keys have no = or NUL and whose values are strings with no NUL", { field: "labels" });
    }
  }
  const byOwnLabels = await listByLabels(context.engine, labels, options);
  if (!byOwnLabels.ok) return byOwnLabels;
  // A claimed pool computer's run labels are in its claim record.
  const found = await withClaims(context.engine, labels, byOwnLabels.value, options);
  if (!found.ok) return found;
  // An allowlisted computer, and one whose run folder is the volume's subpath (HostConfig.Mounts
  // alone says which), are inspected whole, all at once. A computer removed meanwhile has no entry.
  const onVolume = (c: Inspected) =>
    context.volume !== undefined && (c.Mounts ?? []).some((m) => m.Destination === WORKSPACE && m.Name === context.volume?.name);
  const whole = new Map<string, Inspected>();
  for (const w of await Promise.all(found.value.filter((c) => hasEgress(c) || onVolume(c)).map((c) => inspect(context.engine, c.Id, options)))) {
    if (!w.ok && w.error.code !== "not_found") return w;
    if (w.ok) whole.set(w.value.Id, w.value);
  }
  const networks = await networksOf(context, whole, options);
  if (!networks.ok) return networks;
  const infos: ComputerInfo[] = [];
  for (const listed of found.value) {
    if ((hasEgress(listed) || onVolume(listed)) && !whole.has(listed.Id)) continue; // removed meanwhile
    const labelsRead = labelsOf(listed);
    const info: ComputerInfo = {
      ref: { id: listed.Id, name: nameOf(listed), provider: context.id },
      labels: labelsRead,
      deadline: deadlineOf(labelsRead[DEADLINE_LABEL]),
      state: stateOf(listed),
      network: networks.value.get(listed.Id) ?? networkOf(listed),
    };
    const mount = mountOf(whole.get(listed.Id) ?? listed, context.volume);
    if (mount) info.mount = mount;
    infos.push(info);
  }
  return ok(infos);
}
