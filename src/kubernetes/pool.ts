// A warm pool's Pods: made with the pool's label, marked ready by an annotation once made, and
// claimed by one patch that carries the Pod's resourceVersion, the API server's compare-and-swap:
// of two claims that read the same version, the second is refused (409) and tries another Pod.
// The patch gives the run's labels (the labels and the annotation that records them, so the drift
// check holds the claimed Pod to them) and marks the Pod claimed, in one write.
import { POOL_LABEL } from "../contract/labels.js";
import type { ComputerRef, PoolHooks, Taken } from "../contract/provider.js";
import type { CallOptions } from "../daemon/client.js";
import { ok, type Result } from "../daemon/result.js";
import { claimInOrder } from "../contract/claim-order.js";
import { idOf, COMPUTER_LABEL, POOL_ANNOTATION, POOL_CLAIMED, POOL_READY, podOfId } from "./constants.js";
import { encodeLabels, labelsAnnotation, recordedLabels } from "./labels.js";
import type { KubePods } from "./pods.js";
import { computerState, type Pod } from "./readback.js";

const refOf = (pod: Pod, provider: string): ComputerRef => ({ id: idOf(pod.metadata.name, pod.metadata.uid), name: pod.metadata.name, provider });
const isReady = (pod: Pod, pool: string) =>
  pod.metadata.annotations?.[POOL_ANNOTATION] === POOL_READY &&
  pod.metadata.labels?.[POOL_LABEL] === pool &&
  computerState(pod) === "running" &&
  !pod.metadata.deletionTimestamp;

/** The claim's patch: the run's labels beside the Pod's own, recorded, and the Pod claimed, under its resourceVersion. */
function claimPatch(pod: Pod, labels: Record<string, string>): Record<string, unknown> | undefined {
  const given = recordedLabels(pod.metadata.annotations);
  if (!given || !pod.metadata.resourceVersion) return undefined;
  const now = { ...given, ...labels };
  return {
    metadata: {
      resourceVersion: pod.metadata.resourceVersion,
      labels: { [COMPUTER_LABEL]: "1", ...encodeLabels(now) },
      annotations: { [POOL_ANNOTATION]: POOL_CLAIMED, ...labelsAnnotation(now) },
    },
  };
}

export function kubePool(sb: KubePods, provider: string): PoolHooks {
  const patch = (name: string, body: Record<string, unknown>, what: string, signal: AbortSignal | undefined) =>
    sb.api.call<Pod>(sb.path(name), what, { method: "PATCH", body, ms: sb.o.t.callMs, signal });
  const members = async (pool: string, signal: AbortSignal | undefined): Promise<Result<Pod[]>> => {
    const listed = await sb.list({ [POOL_LABEL]: pool }, signal);
    return listed.ok ? ok(listed.value.filter((p) => isReady(p, pool))) : listed;
  };
  /** The Pod taken for the run, undefined when another claim took it first (or it is no longer ready). */
  const attempt = async (pod: Pod, pool: string, labels: Record<string, string>, signal: AbortSignal | undefined): Promise<Result<Pod | undefined>> => {
    if (!isReady(pod, pool)) return ok(undefined);
    const body = claimPatch(pod, labels);
    if (!body) return ok(undefined);
    const taken = await patch(pod.metadata.name, body, `claiming ${pod.metadata.name}`, signal);
    if (!taken.ok) return taken.error.code === "exists" || taken.error.code === "not_found" ? ok(undefined) : taken;
    return ok(taken.value);
  };
  return {
    ready: async (made: ComputerRef, options: CallOptions = {}) => {
      const name = podOfId(made.id)?.name ?? made.name;
      const marked = await patch(name, { metadata: { annotations: { [POOL_ANNOTATION]: POOL_READY } } }, `marking ${name} ready`, options.signal);
      return marked.ok ? ok(made) : marked;
    },
    members: async (pool, options = {}) => {
      const ready = await members(pool, options.signal);
      return ready.ok ? ok(ready.value.map((p) => refOf(p, provider))) : ready;
    },
    take: (pool, labels, options = {}): Promise<Result<Taken>> =>
      claimInOrder<Pod | ComputerRef, Taken>(pool, {
        // A preferred one is read for its version as it is tried; a listed one comes with it.
        prefer: options.prefer ?? [],
        ready: () => members(pool, options.signal),
        name: (member) => ("metadata" in member ? member.metadata.name : member.name),
        attempt: async (member) => {
          const pod = "metadata" in member ? ok(member) : await sb.find({ id: member.id }, options.signal);
          if (!pod.ok) return ok(undefined);
          const got = await attempt(pod.value, pool, labels, options.signal);
          return got.ok ? ok(got.value ? { ref: refOf(got.value, provider) } : undefined) : got;
        },
        signal: options.signal,
      }),
  };
}
