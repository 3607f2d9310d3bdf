// What E2B reads back of a sandbox: its network, its state as a computer's, its own keys, its ends,
// and the drift check against what create asked for. One sentence per mismatch.
import type { ComputerState, NetworkReadBack } from "../contract/provider.js";
import { parseSnapshotImage } from "../contract/state.js";
import { COMPUTER_KEY, DEADLINE_KEY, EXTENDED_SLACK_MS, IMAGE_KEY, KIND_KEY, MAX_KEY, NAME_KEY, NAME_PATTERN, OWN_KEYS, TIMEOUT_KEY } from "./constants.js";
import type { E2BSandboxInfo } from "./sdk.js";

const ALL_V4 = "0.0.0.0/0";

/** allowInternetAccess and network as a network: none only when E2B reads back no way out and no way in. */
export function networkOf(info: E2BSandboxInfo): NetworkReadBack {
  const network = info.network;
  if (network?.egressProxy) return { other: "an egress proxy is set" };
  if ((network?.allowOut ?? []).length > 0) return { allow: [...network!.allowOut!] };
  if (network?.allowPublicTraffic !== false)
    return { other: network?.allowPublicTraffic === true ? "public traffic is allowed in" : "E2B reads back no allowPublicTraffic" };
  const denied = info.allowInternetAccess === false || (network?.denyOut ?? []).includes(ALL_V4);
  if (denied) return "none";
  if (info.allowInternetAccess === true) return "open";
  return { other: "E2B reads back neither allowInternetAccess nor a denyOut of 0.0.0.0/0" };
}

/** E2B's sandbox states are a computer's: running, or paused by E2B's pause (memory kept). */
export function stateOf(info: E2BSandboxInfo): ComputerState {
  return info.state === "paused" ? "paused" : "running";
}

/** The template E2B makes a computer of this image from: a snapshot's own id (snapshot://e2b/<id>), else the template named. */
export function vendorTemplate(image: string): string {
  return parseSnapshotImage(image)?.id ?? image;
}

/** E2B reads a sandbox's template back as its id or alias; a snapshot's id carries a tag (<id>:default) the read leaves off. */
function templateMatches(info: E2BSandboxInfo, template: string): boolean {
  const untagged = template.replace(/:[^:/]*$/, "");
  return [template, untagged].some((t) => t === info.templateId || t === info.name);
}

/** This provider's own keys, when the metadata holds them all and they read as create writes them. */
export interface OwnKeys {
  name: string;
  deadline: string;
  image: string;
  timeoutS: number;
  max: string;
  kind: E2BKind;
}

export type E2BKind = "linux" | "desktop";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

export function ownKeysOf(metadata: Record<string, string>): { ok: true; value: OwnKeys } | { ok: false; why: string } {
  if (metadata[COMPUTER_KEY] !== "1") return { ok: false, why: `no ${COMPUTER_KEY}=1` };
  const name = metadata[NAME_KEY] ?? "";
  if (!NAME_PATTERN.test(name)) return { ok: false, why: `${NAME_KEY} is not a computer's name` };
  const deadline = metadata[DEADLINE_KEY] ?? "";
  const max = metadata[MAX_KEY] ?? "";
  if (!ISO.test(deadline) || !ISO.test(max)) return { ok: false, why: `${DEADLINE_KEY} or ${MAX_KEY} is not the ISO time create writes` };
  const timeoutS = Number(metadata[TIMEOUT_KEY]);
  if (!Number.isInteger(timeoutS) || timeoutS <= 0) return { ok: false, why: `${TIMEOUT_KEY} is not a whole number of seconds` };
  const kind = metadata[KIND_KEY] ?? "linux";
  if (kind !== "linux" && kind !== "desktop") return { ok: false, why: `${KIND_KEY} is neither linux nor desktop` };
  return { ok: true, value: { name, deadline, image: metadata[IMAGE_KEY] ?? "", timeoutS, max, kind } };
}

/** The caller's labels: the metadata without the provider's keys. */
export function labelsOf(metadata: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(metadata).filter(([k]) => !(OWN_KEYS as readonly string[]).includes(k)));
}

/** Where create set E2B's end: its start plus the timeout create gave, by E2B's clock. */
export function createdEnd(info: E2BSandboxInfo, own: OwnKeys): number {
  return new Date(info.startedAt).getTime() + own.timeoutS * 1000;
}

/** The deadline: the one create wrote, or E2B's own end up to the cap once an extend has moved it. */
export function deadlineOf(info: E2BSandboxInfo, own: OwnKeys): string {
  const end = new Date(info.endAt).getTime();
  if (end > createdEnd(info, own) + EXTENDED_SLACK_MS) return new Date(Math.min(end, Date.parse(own.max))).toISOString();
  return own.deadline;
}

export interface InfoExpected {
  /** The image asked for: a template, or a snapshot's image. */
  template: string;
  /** Every key create wrote (the caller's labels and the provider's own). */
  metadata: Record<string, string>;
  /** Create's own read: the end is E2B's start plus this, to the second. */
  timeoutS?: number;
}

const shown = (v: unknown) => (v === undefined || v === null ? "nothing" : JSON.stringify(v));

export function infoDrift(info: E2BSandboxInfo, want: InfoExpected): string[] {
  const out: string[] = [];
  const template = vendorTemplate(want.template);
  if (template && !templateMatches(info, template)) {
    out.push(`the template reads ${shown(info.templateId)}${info.name ? ` (alias ${shown(info.name)})` : ""}, not ${JSON.stringify(template)}`);
  }
  for (const [key, value] of Object.entries(want.metadata)) {
    if (info.metadata[key] !== value) out.push(`the metadata ${key} reads ${shown(info.metadata[key])}, not ${JSON.stringify(value)}`);
  }
  const network = networkOf(info);
  if (network !== "none")
    out.push(
      `the network reads ${typeof network === "string" ? network : "other" in network ? network.other : `an allowlist (${network.allow.join(", ")})`}, not none`,
    );
  if (info.lifecycle?.onTimeout !== "kill")
    out.push(`lifecycle.onTimeout reads ${shown(info.lifecycle?.onTimeout)}, not "kill": a timeout would keep the computer`);
  if (info.lifecycle?.autoResume !== false) out.push(`lifecycle.autoResume reads ${shown(info.lifecycle?.autoResume)}, not false`);
  if (info.state !== "running") out.push(`the sandbox is ${info.state}, not running`);
  if (want.timeoutS !== undefined) {
    const asked = new Date(info.startedAt).getTime() + want.timeoutS * 1000;
    const end = new Date(info.endAt).getTime();
    if (!(Math.abs(end - asked) <= 1000)) out.push(`E2B's end reads ${shown(info.endAt)}, not its start plus the ${want.timeoutS} s create gave`);
  }
  if ((info.volumeMounts ?? []).length > 0) out.push(`the sandbox has ${info.volumeMounts!.length} volume mounts`);
  return out;
}
