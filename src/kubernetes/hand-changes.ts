// What the API lets a person change on a running Pod, beyond its labels and images (readback.ts
// and egress.ts hold those): its deadline, tolerations, finalizers, owners and the annotations in
// the provider's own namespace. Each is drift named by its field, so `preview --refresh` says it.
import { COMPUTER_LABEL, DEADLINE_ANNOTATION, LABELS_ANNOTATION, POOL_ANNOTATION, SPEC_ANNOTATION, TOLD_ANNOTATION } from "./constants.js";
import { show } from "./shown.js";

/** The slice of a Pod these checks read. */
export interface HandChangeable {
  metadata: {
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: Array<{ kind?: string; name?: string }>;
  };
  spec?: {
    activeDeadlineSeconds?: number;
    tolerations?: Array<{ key?: string; operator?: string; effect?: string; value?: string; tolerationSeconds?: number }>;
  };
}

// The API server's DefaultTolerationSeconds admission adds these two to every Pod at create.
const ADMITTED_TOLERATIONS = new Set(["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]);
const admitted = (t: NonNullable<NonNullable<HandChangeable["spec"]>["tolerations"]>[number]) =>
  ADMITTED_TOLERATIONS.has(t.key ?? "") && t.operator === "Exists" && t.effect === "NoExecute" && t.tolerationSeconds === 300;

const OWN_PREFIX = `${COMPUTER_LABEL}/`;
const OWN_ANNOTATIONS = new Set([DEADLINE_ANNOTATION, SPEC_ANNOTATION, LABELS_ANNOTATION, TOLD_ANNOTATION, POOL_ANNOTATION]);

/**
 * One sentence per hand change. deadlineSeconds: the activeDeadlineSeconds create wrote (recorded
 * with the spec); a Pod made before it was recorded is held only to having one. Annotations of
 * other namespaces are the cluster's controllers' to write (a network plugin's address), so only
 * the provider's own are held.
 */
export function handChanges(pod: HandChangeable, deadlineSeconds: number | undefined): string[] {
  const out: string[] = [];
  const s = pod.spec ?? {};
  if (deadlineSeconds !== undefined && typeof s.activeDeadlineSeconds === "number" && s.activeDeadlineSeconds !== deadlineSeconds)
    out.push(
      `its activeDeadlineSeconds is ${s.activeDeadlineSeconds}, not the ${deadlineSeconds} create wrote: the kubelet would end it ${s.activeDeadlineSeconds < deadlineSeconds ? "before its deadline" : "late"}`,
    );
  for (const t of s.tolerations ?? [])
    if (!admitted(t)) out.push(`its toleration ${show({ key: t.key, operator: t.operator, value: t.value, effect: t.effect })} was added`);
  const finalizers = pod.metadata.finalizers ?? [];
  if (finalizers.length > 0) out.push(`its finalizers are ${show(finalizers)}: a delete would wait on them`);
  for (const owner of pod.metadata.ownerReferences ?? [])
    out.push(`it is owned by ${owner.kind ?? "an object"}${owner.name ? ` ${owner.name}` : ""}: deleting that would delete the computer`);
  for (const key of Object.keys(pod.metadata.annotations ?? {}))
    if (key.startsWith(OWN_PREFIX) && !OWN_ANNOTATIONS.has(key)) out.push(`its annotation ${key} was added`);
  return out;
}
