// create's egress phase, for an allowlist: a computer's own proxy (its volume first, pushed on
// the undo stack as it is made; then the proxy, made and ready while the computer's container is
// made and started), or a shared proxy joined only when it reads back as an allowlist for this computer.
import type { CallOptions } from "../../daemon/client.js";
import { sameNetwork } from "../../egress/list.js";
import type { ComputerSpec } from "../../contract/provider.js";
import { fail, ok, type Result } from "../../daemon/result.js";
import type { Undo } from "../../contract/undo.js";
import type { DockerContext } from "../context.js";
import { makeEgress, makeEgressVolume, removeEgress } from "../egress.js";
import type { EgressPlan } from "../egress-request.js";
import type { Plan } from "../plan.js";
import type { Prepared } from "./prepare.js";
import { driftOfOther } from "../../egress/network.js";

/** How long undoing a computer's egress parts may take (a list, then a removal of each). */
const UNDO_EGRESS_MS = 120_000;

/** The proxy's part of an allowlisted computer's plan; undefined for a computer with no proxy of its own. */
export function egressPlanOf(context: Pick<DockerContext, "egress">, plan: Plan, prepared: Prepared): EgressPlan | undefined {
  if (!prepared.egress || plan.allow === undefined || plan.egress !== undefined) return undefined;
  return {
    key: plan.name,
    uid: plan.uid,
    gid: plan.gid,
    deadline: plan.deadline,
    allow: plan.allow,
    hostAddresses: prepared.egress.hostAddresses,
    hint: context.egress.hint,
    labels: plan.labels,
    image: prepared.egress.image,
    ...(context.egress.testNetwork ? { testNetwork: context.egress.testNetwork } : {}),
  };
}

/**
 * A shared proxy a computer may join: there, running and hardened, owned by the computer's
 * user, ending no sooner than the computer, and holding the list the spec names (if any).
 */
export async function joinable(context: Pick<DockerContext, "proxies">, plan: Plan, spec: ComputerSpec, options: CallOptions): Promise<Result<undefined>> {
  const key = plan.egress!;
  const read = await context.proxies.joined(key, { uid: plan.uid, gid: plan.gid, deadline: plan.deadline }, options);
  if (!read.ok) return read;
  const network = read.value;
  if (typeof network === "object" && "other" in network) {
    return fail("refused", `${driftOfOther(network.other)}; ${plan.name} was not made`, { field: "egress" });
  }
  const asked = typeof spec.network === "object" && "allow" in spec.network ? spec.network.allow : [];
  if (asked.length > 0 && !sameNetwork(network, { allow: asked })) {
    return fail(
      "refused",
      `the egress proxy ${key} holds ${typeof network === "object" && "allow" in network ? network.allow.join(", ") : String(network)}, not the list asked for: ask for { allow: [] } to take the proxy's list; ${plan.name} was not made`,
      { field: "network" },
    );
  }
  return ok();
}

/**
 * Before the container: a shared proxy joined (Docker would make a plain volume for a name not
 * there), or the computer's own egress volume made, its parts then on the undo stack.
 */
export async function egressBefore(
  context: Pick<DockerContext, "engine" | "proxies">,
  plan: Plan,
  egressPlan: EgressPlan | undefined,
  at: { spec: ComputerSpec; undo: Undo; signal: AbortSignal | undefined },
): Promise<Result<undefined>> {
  const { signal } = at;
  if (plan.egress !== undefined) {
    const joined = await joinable(context, plan, at.spec, { signal });
    if (!joined.ok) return joined;
  }
  if (!egressPlan) return ok();
  const volume = await makeEgressVolume(context.engine, egressPlan, { signal });
  if (!volume.ok) return volume;
  // The proxy, once made, is found by the same label: one undo removes the proxy and the volume.
  at.undo.push({ what: `${plan.name}'s egress proxy and volume`, ms: UNDO_EGRESS_MS, run: () => removeEgress(context.engine, plan.name) });
  return ok();
}

/** The computer's own proxy made, started and ready (the computer's container is made and started meanwhile); ok when it has none. */
export function egressProxy(context: Pick<DockerContext, "engine" | "egress">, egressPlan: EgressPlan | undefined, signal: AbortSignal | undefined) {
  return egressPlan ? makeEgress(context.engine, egressPlan, { signal, readyMs: context.egress.readyMs }) : Promise.resolve(ok(undefined));
}
