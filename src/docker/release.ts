// release and sweep: a computer stopped or removed by its container id (only a computer, the
// provider's label, whatever its name), then what went with it (the owner's earlier computers, a
// pool's claim record, its egress parts); and the janitor's part beside the computers.
import type { CallOptions } from "../daemon/client.js";
import { POOL_LABEL } from "../contract/labels.js";
import type { ComputerRef, ReleaseHow, SweepOptions } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { removeEarlier } from "./adopt.js";
import { removeClaim, sweepClaims } from "./claims.js";
import { COMPUTER_LABEL, NAME_PATTERN } from "./constants.js";
import { type DockerContext, targetOf } from "./context.js";
import { failure, remove, stop } from "./containers.js";
import { removeEgress, sweepEgress } from "./egress.js";
import { readComputer } from "./read.js";
import { PROXY_PATTERN } from "./egress-request.js";
import { hasEgress, type Inspected, labelsOf, nameOf } from "./readback.js";

/** Stopped or removed by its container id; only a computer (the provider's label), whatever its name. */
export async function releaseComputer(context: DockerContext, ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
  const target = targetOf(ref);
  if (!target.ok) return target;
  if (how !== "stop" && how !== "delete") return fail("invalid", 'release takes "stop" or "delete"', { field: "how" });
  if (options.signal?.aborted) return fail("aborted", `release of ${target.value} was aborted before Docker was asked`);
  const { engine } = context;
  // Only a computer is released: a container of another's that took a computer's name is not one.
  const found = await engine.call<Inspected>("GET", `/containers/${encodeURIComponent(target.value)}/json`, {
    signal: options.signal,
    timeoutMs: 30_000,
  });
  // A computer already gone may have left its egress parts: they go too, by its label.
  if (found.status === 404) return NAME_PATTERN.test(String(ref.name)) ? removeEgress(engine, ref.name, how) : ok();
  if (!found.ok || !found.value) return failure(engine, `inspecting ${target.value}`, found);
  if (labelsOf(found.value)[COMPUTER_LABEL] !== "1")
    return fail("not_found", `${target.value} is not a computer (it has no ${COMPUTER_LABEL}=1 label), so it was not released`);
  const id = found.value.Id;
  const released = how === "stop" ? await stop(engine, id, options) : await remove(engine, id, options);
  if (!released.ok) return released;
  if (how === "delete") {
    const earlier = await removeEarlier({ engine, read: (by, o) => readComputer(context, by, o) }, found.value);
    if (!earlier.ok) return earlier;
  }
  if (how === "delete" && labelsOf(found.value)[POOL_LABEL] !== undefined) {
    const record = await removeClaim(engine, id);
    if (!record.ok) return record;
  }
  // After the computer: its proxy stopped, or the proxy and its volume removed, found by the egress
  // label. A computer with no part of an allowlist had none made for it: two listings of the whole
  // engine saved on each release, which a fleet's destroy makes once a computer.
  return hasEgress(found.value) ? removeEgress(engine, nameOf(found.value), how) : ok();
}

/**
 * The janitor's part beside the computers: egress parts whose deadline has passed, or whose
 * computer is gone and that are older than a create could take.
 */
export async function sweepParts(context: DockerContext, options: SweepOptions = {}): Promise<Result<{ removed: string[] }>> {
  const { engine } = context;
  const swept = await sweepEgress(
    engine,
    async (computer) => {
      // A shared proxy is its own: it goes at its deadline, not with a computer.
      if (PROXY_PATTERN.test(computer)) return true;
      const there = await engine.call("GET", `/containers/${encodeURIComponent(computer)}/json`, { timeoutMs: 30_000 });
      return there.status !== 404;
    },
    { ...(options.now ? { now: options.now.getTime() } : {}), ...(options.labels ? { labels: options.labels } : {}), readyMs: context.egress.readyMs },
  );
  if (!swept.ok) return swept;
  const claims = await sweepClaims(engine, options);
  if (!claims.ok) return claims;
  // A take's commit left by a take that was killed (it holds the computer's config): no run's, so
  // the whole janitor's alone (a sweep of some labels leaves it).
  const { sweepSnapshotParts } = await import("./snapshots.js");
  const parts = options.labels ? ok([]) : await sweepSnapshotParts(engine, options.now?.getTime());
  return parts.ok ? ok({ removed: [...swept.value, ...claims.value, ...parts.value] }) : parts;
}
