// A computer's labels as Kubernetes labels: a key or value Kubernetes cannot hold (a run id with a
// colon, a value past 63 characters) is written as its hash, and the labels exactly as given are
// kept in an annotation; reading back decodes each label the annotation explains, so a label
// changed by hand reads as it now is.
import { createHash } from "node:crypto";
import { COMPUTER_LABEL, LABELS_ANNOTATION } from "./constants.js";
import { show } from "./shown.js";

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** Where a hashed key goes: the provider's own prefix, which a caller's key may not use. */
export const HASHED_KEY_PREFIX = `${COMPUTER_LABEL}/k-`;
const HASHED_VALUE_PREFIX = "h-";

const digest = (text: string, n: number) => createHash("sha256").update(text).digest("hex").slice(0, n);

/** True when Kubernetes takes the key as a label's key (an optional DNS prefix, then a name of up to 63). */
export function isLabelKey(key: string): boolean {
  const slash = key.lastIndexOf("/");
  if (slash < 0) return NAME.test(key);
  const prefix = key.slice(0, slash);
  return prefix.length <= 253 && PREFIX.test(prefix) && NAME.test(key.slice(slash + 1));
}

/** True when Kubernetes takes the value as a label's value (empty, or a name of up to 63). */
export function isLabelValue(value: string): boolean {
  return value === "" || NAME.test(value);
}

/** One label as written: itself where Kubernetes takes it, else its key or value hashed. */
export function encodeLabel(key: string, value: string): [string, string] {
  return [isLabelKey(key) ? key : `${HASHED_KEY_PREFIX}${digest(key, 40)}`, isLabelValue(value) ? value : `${HASHED_VALUE_PREFIX}${digest(value, 40)}`];
}

/** The caller's labels as Kubernetes labels. */
export function encodeLabels(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).map(([k, v]) => encodeLabel(k, v)));
}

/** The annotation that keeps the labels exactly as given. */
export function labelsAnnotation(labels: Record<string, string>): Record<string, string> {
  return { [LABELS_ANNOTATION]: JSON.stringify(labels) };
}

/** The labels as given at create, from the annotation; undefined when it is missing or not a map of strings. */
export function recordedLabels(annotations: Record<string, string> | undefined): Record<string, string> | undefined {
  const text = annotations?.[LABELS_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
    return Object.values(value).every((v) => typeof v === "string") ? (value as Record<string, string>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Pod's labels as the caller's: the provider's own left out, each label the annotation
 * explains (the same key and value encoded) read as given, any other as it is on the Pod.
 */
export function decodeLabels(podLabels: Record<string, string>, recorded: Record<string, string> = {}): Record<string, string> {
  const known = new Map(Object.entries(recorded).map(([k, v]) => [encodeLabel(k, v).join("\0"), [k, v] as const]));
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(podLabels)) {
    if (key === COMPUTER_LABEL) continue;
    const [k, v] = known.get(`${key}\0${value}`) ?? [key, value];
    out[k] = v;
  }
  return out;
}

/** A Pod's labels against those create wrote (the annotation's, encoded): each changed, removed or added by hand. */
export function labelDrift(pod: { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } }): string[] {
  const have = pod.metadata.labels ?? {};
  const given = recordedLabels(pod.metadata.annotations);
  if (!given) return [`its labels cannot be checked: the annotation that records them is missing or not a map of strings`];
  const want: Record<string, string> = { [COMPUTER_LABEL]: "1", ...encodeLabels(given) };
  const out: string[] = [];
  for (const [k, v] of Object.entries(want)) {
    if (!(k in have)) out.push(`its label ${k} was removed`);
    else if (have[k] !== v) out.push(`its label ${k} reads ${show(have[k])}, not ${show(v)}`);
  }
  for (const k of Object.keys(have)) if (!(k in want)) out.push(`its label ${k} was added`);
  return out;
}

/** The label selector for a list: the provider's label and each label given, encoded. */
export function selectorOf(labels: Record<string, string>): string {
  return [`${COMPUTER_LABEL}=1`, ...Object.entries(encodeLabels(labels)).map(([k, v]) => `${k}=${v}`)].join(",");
}
