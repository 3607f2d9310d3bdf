// A shared egress proxy's ConfigMap on Kubernetes, the pure half (proxies.ts makes, reads and
// changes it through the API server): its manifest from a plan, its read-back (what it holds, and
// each way it is not as make or update wrote it), what a sidecar's log says it holds, and from
// both a joined computer's network.
import { checkAllowlist, hintProblem } from "../egress/list.js";
import { listDigest } from "../egress/list-digest.js";
import { checkRules, ruleOf } from "../egress/rules.js";
import type { NetworkReadBack } from "../contract/provider.js";
import { parseUser, userText } from "../contract/user.js";
import { userProblem } from "./check.js";
import { DIGEST_ANNOTATION, PROXY_LABEL } from "./constants.js";
import { HINT_KEY, LIST_FILE, LIST_KEY, RULES_KEY } from "./egress.js";
import { decodeLabels, encodeLabels, labelsAnnotation, recordedLabels } from "./labels.js";
import { driftOfOther } from "../egress/network.js";

/** The slice of a ConfigMap the proxy reads. */
export interface ConfigMap {
  metadata: {
    name: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: string;
    managedFields?: Array<{ time?: string }>;
  };
  data?: Record<string, string>;
}

export interface ProxyPlan {
  name: string;
  namespace: string;
  /** Normalized (checkAllowlist). */
  allow: string[];
  /** In their argv form (ruleArg). */
  rules: string[];
  user: string;
  deadline: string;
  hint: string;
  labels: Record<string, string>;
}

/** The list as the ConfigMap holds it: one entry a line. */
export const listText = (entries: readonly string[]) => `${entries.join("\n")}\n`;
/** The rules as the ConfigMap holds them: one a line, "" for none (the key is there whatever it holds: each joined sidecar's volume names it). */
export const rulesText = (rules: readonly string[]) => (rules.length > 0 ? listText(rules) : "");

export function proxyManifest(plan: ProxyPlan): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: plan.name,
      namespace: plan.namespace,
      labels: { [PROXY_LABEL]: "1", ...encodeLabels(plan.labels) },
      annotations: { [DIGEST_ANNOTATION]: listDigest(plan.allow), ...labelsAnnotation(plan.labels) },
    },
    data: {
      [LIST_KEY]: listText(plan.allow),
      [RULES_KEY]: rulesText(plan.rules),
      [HINT_KEY]: plan.hint,
      user: plan.user,
      deadline: plan.deadline,
    },
  };
}

/** A proxy's ConfigMap read back: what it holds, and each way it is not as make or update wrote it. */
export interface ProxyHeld {
  name: string;
  uid: string | undefined;
  /** The list as the sidecars read it (check's normal form), or undefined when check refuses it. */
  entries: string[] | undefined;
  /** Why the list cannot be held, when it cannot. */
  refused?: string;
  /** The rules as its ConfigMap holds them (argv form), each line as written. */
  rules: string[];
  /** Why the rules cannot be held (a sidecar would refuse them), when they cannot. */
  rulesRefused?: string;
  user: string;
  deadline: string;
  hint: string;
  labels: Record<string, string>;
  /** When it was last written (its managed fields' latest time), ms since the epoch. */
  changedAt: number;
  drift: string[];
}

/** The entries of a list file as computerd egress reads one: a line each, spaces and blank lines passed over. */
const linesOf = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

export function heldOf(cm: ConfigMap, testRange: string | undefined): ProxyHeld {
  const name = cm.metadata.name;
  const data = cm.data ?? {};
  const drift: string[] = [];
  const text = data[LIST_KEY];
  let entries: string[] | undefined;
  let refused: string | undefined;
  if (text === undefined) refused = `it has no ${LIST_KEY} key`;
  else {
    const list = checkAllowlist(linesOf(text), testRange ? { testNetwork: testRange } : {});
    if (list.ok) entries = list.entries;
    else refused = list.refusals.map((r) => r.message).join("; ");
  }
  if (refused) drift.push(`the ConfigMap ${name}'s list cannot be held (${refused}), so every computer behind it forwards nothing`);
  else if (cm.metadata.annotations?.[DIGEST_ANNOTATION] !== listDigest(entries!))
    drift.push(`the ConfigMap ${name}'s list was changed by hand: it holds ${entries!.join(", ")}, not the list make or update wrote`);
  const rules = linesOf(data[RULES_KEY] ?? "");
  const rulesRefused = entries ? rulesProblem(rules, entries) : undefined;
  if (rulesRefused) drift.push(`the ConfigMap ${name}'s rules cannot be held (${rulesRefused}), so no computer can join it`);
  const user = parseUser(data.user ?? "");
  if (!user.ok || userProblem(data.user) !== undefined)
    drift.push(`the ConfigMap ${name}'s user ${JSON.stringify(data.user ?? null)} is not a computer's uid:gid`);
  const deadline = data.deadline ?? "";
  if (Number.isNaN(Date.parse(deadline)) || new Date(Date.parse(deadline)).toISOString() !== deadline)
    drift.push(`the ConfigMap ${name}'s deadline ${JSON.stringify(data.deadline ?? null)} is not the ISO time make writes`);
  if (hintProblem(data.hint ?? "")) drift.push(`the ConfigMap ${name}'s hint is not one a proxy takes`);
  if (cm.metadata.labels?.[PROXY_LABEL] !== "1") drift.push(`the ConfigMap ${name}'s label ${PROXY_LABEL} was removed or changed`);
  const times = [cm.metadata.creationTimestamp, ...(cm.metadata.managedFields ?? []).map((f) => f.time)]
    .map((t) => Date.parse(t ?? ""))
    .filter((t) => !Number.isNaN(t));
  const given = recordedLabels(cm.metadata.annotations) ?? {};
  const labels = decodeLabels(Object.fromEntries(Object.entries(cm.metadata.labels ?? {}).filter(([k]) => k !== PROXY_LABEL)), given);
  return {
    name,
    uid: cm.metadata.uid,
    entries,
    ...(refused ? { refused } : {}),
    rules,
    ...(rulesRefused ? { rulesRefused } : {}),
    user: user.ok ? userText(user.value) : "",
    deadline,
    hint: data.hint ?? "",
    labels,
    changedAt: times.length > 0 ? Math.max(...times) : 0,
    drift,
  };
}

/** What a sidecar says it holds beside its list: its rules' and hint's digests, and its credentials' version ("none" for none). */
export interface SettingsHeld {
  rules: string;
  hint: string;
  credentials: number;
  version: string;
}

/** What a sidecar's log says it holds last: a list's digest (and its settings, when it said them), or why it holds none; undefined when it said neither. */
export type SidecarHolds = { digest: string; count: number; settings?: SettingsHeld } | { failed: string };

/** The last of the proxy's own lines that start so; a request's line is JSON, its host made printable, so none can pass for one. */
const lastLine = (log: string, prefix: string) =>
  log
    .split("\n")
    .filter((l) => l.startsWith(prefix))
    .at(-1)
    ?.slice(prefix.length);

export function sidecarHolds(log: string): SidecarHolds | undefined {
  const last = lastLine(log, `computerd egress: the list at ${LIST_FILE} `);
  if (last === undefined) return undefined;
  const held = /^holds (\d+) entries \(fnv64a ([0-9a-f]{16})\)$/.exec(last);
  const settings = /^hold \d+ rules \(fnv64a ([0-9a-f]{16})\), the hint fnv64a ([0-9a-f]{16}) and (\d+) credentials \(version ([0-9a-z-]+)\)$/.exec(
    lastLine(log, "computerd egress: its settings ") ?? "",
  );
  if (held)
    return {
      count: Number(held[1]),
      digest: held[2]!,
      ...(settings ? { settings: { rules: settings[1]!, hint: settings[2]!, credentials: Number(settings[3]), version: settings[4]! } } : {}),
    };
  const failed = /^cannot be held \((.*)\), so the proxy forwards nothing until it can$/.exec(last);
  return failed ? { failed: failed[1]! } : undefined;
}

/** Whether a sidecar holds a proxy's list, rules and hint (and, given, its credentials' version: "none" for none). */
export function holdsAll(
  holds: SidecarHolds | undefined,
  want: { allow: readonly string[]; rules: readonly string[]; hint: string; version?: string },
): boolean {
  if (!holds || !("digest" in holds) || holds.digest !== listDigest(want.allow) || !holds.settings) return false;
  const s = holds.settings;
  return s.rules === listDigest(want.rules) && s.hint === listDigest([want.hint]) && (want.version === undefined || s.version === want.version);
}

/** A joined computer's network, from its proxy's ConfigMap and what its sidecar's log says it holds. */
export interface JoinedRead {
  network: NetworkReadBack;
  drift?: string;
  note?: string;
  /** The ConfigMap's rules (argv form), which a sidecar holding its digests runs. */
  rules?: string[];
}

export function joinedNetwork(held: ProxyHeld, holds: SidecarHolds | undefined, now: number, boundMs: number): JoinedRead {
  const other = (why: string) => ({ other: `network allow, but its egress proxy ${why}` });
  const since = Math.max(0, Math.round((now - held.changedAt) / 1000));
  const late = now - held.changedAt > boundMs;
  const what = !holds
    ? "has not said which list it holds"
    : "failed" in holds
      ? `holds nothing (its list cannot be held: ${holds.failed})`
      : `holds the list fnv64a ${holds.digest}${holds.settings ? `, rules fnv64a ${holds.settings.rules} and hint fnv64a ${holds.settings.hint}` : " and has not said which rules and hint"}`;
  if (!held.entries) {
    const why = other(`${held.name}'s ConfigMap holds a list check refuses (${held.refused}), so it forwards nothing`);
    return { network: why, drift: driftOfOther(why.other) };
  }
  if (holdsAll(holds, { allow: held.entries, rules: held.rules, hint: held.hint })) return { network: { allow: held.entries } };
  const want = `${held.name}'s list fnv64a ${listDigest(held.entries)}, rules fnv64a ${listDigest(held.rules)} and hint fnv64a ${listDigest([held.hint])}`;
  if (!late)
    return {
      network: { allow: held.entries },
      note: `its egress proxy ${what}, not yet ${want} (changed ${since} s ago; the kubelet writes it within ${Math.round(boundMs / 1000)} s)`,
    };
  const why = other(`${what}, not ${want}, ${since} s after it changed (past the ${Math.round(boundMs / 1000)} s the kubelet takes)`);
  return { network: why, drift: driftOfOther(why.other) };
}

/** Why rules in their argv form cannot be held with a list, in check's words, or undefined. */
function rulesProblem(args: readonly string[], entries: readonly string[]): string | undefined {
  const rules = args.map(ruleOf);
  const bad = rules.findIndex((r) => r === undefined);
  if (bad >= 0) return `line ${bad + 1} is not "<host> <methods|*> <path>..."`;
  const refusals = checkRules(rules, undefined, entries);
  return refusals.length > 0 ? refusals.map((r) => r.message).join("; ") : undefined;
}
