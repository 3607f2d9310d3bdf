// What a sandbox read back says: its network, its state as a computer's, its deadline, its size.
import type { ComputerState, NetworkReadBack } from "../contract/provider.js";
import { COMPUTER_LABEL, DEADLINE_LABEL, MAX_LIFETIME_MS, NAME_PATTERN, PAUSED_LABEL } from "./constants.js";
import type { Sandbox } from "./schemas.js";

const list = (s: string | null | undefined) =>
  (s ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/** networkBlockAll, the two lists and the outbound proxy as a network: none, open, a list, or words. */
export function networkOf(sandbox: Sandbox): NetworkReadBack {
  const cidrs = list(sandbox.networkAllowList);
  const domains = list(sandbox.domainAllowList);
  if (sandbox.outboundProxyUrl) return { other: "an outbound proxy is set" };
  if (sandbox.networkBlockAll === true) {
    if (cidrs.length || domains.length) return { other: "block-all with an allowlist" };
    return "none";
  }
  if (sandbox.networkBlockAll == null) return { other: "Daytona reads back no networkBlockAll" };
  if (cidrs.length || domains.length) return { allow: [...cidrs, ...domains] };
  return "open";
}

/** Destroying, destroyed, or desired destroyed: the sandbox is going, and left out of a listing. */
export function isGoing(sandbox: Sandbox): boolean {
  return sandbox.state === "destroying" || sandbox.state === "destroyed" || sandbox.desiredState === "destroyed";
}

const RUNNING = new Set([
  "started",
  "starting",
  "creating",
  "pending_build",
  "building_snapshot",
  "pulling_snapshot",
  "restoring",
  "unknown",
  "stopping",
  "pausing",
]);

/**
 * started and the states on the way to it, stopping and pausing on the way from it, are running;
 * a stopped (or archived) sandbox is paused when a pause labelled it, else stopped (by hand, or by
 * Daytona's auto-stop), which a computer declared running reads as drift.
 */
export function stateOf(sandbox: Sandbox): ComputerState {
  if (RUNNING.has(sandbox.state ?? "")) return "running";
  return sandbox.labels[PAUSED_LABEL] ? "paused" : "stopped";
}

/** A sandbox with agentrun.computer=1 and a computer's name: this provider's. */
export function isComputer(sandbox: Sandbox): boolean {
  return sandbox.labels[COMPUTER_LABEL] === "1" && NAME_PATTERN.test(sandbox.name);
}

/** The deadline label as a time, when it is one, at most the cap away. */
export function deadlineOf(sandbox: Sandbox): Date | undefined {
  const text = sandbox.labels[DEADLINE_LABEL];
  if (typeof text !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(text)) return undefined;
  const at = new Date(text);
  if (Number.isNaN(at.getTime()) || at.getTime() > Date.now() + MAX_LIFETIME_MS) return undefined;
  return at;
}
