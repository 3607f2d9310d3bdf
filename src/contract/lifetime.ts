// The one lifetime rule every provider's check shares, with no vendor call.
import type { Capabilities } from "./provider.js";
import type { Refusal } from "../daemon/result.js";

const DAY_MS = 86_400_000;

const HOUR_MS = 3_600_000;
const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;

function inWords(ms: number): string {
  if (ms % DAY_MS === 0) return plural(ms / DAY_MS, "day");
  if (ms % HOUR_MS === 0) return plural(ms / HOUR_MS, "hour");
  return `${ms} ms`;
}

/** A whole number of milliseconds above 0, at most the provider's cap; else why not, in words. */
export function checkLifetime(lifetimeMs: unknown, capabilities: Pick<Capabilities, "maxLifetimeMs">): Refusal | undefined {
  const cap = capabilities.maxLifetimeMs;
  const range = `a whole number of milliseconds from 1 to ${cap} (${inWords(cap)})`;
  if (lifetimeMs === undefined) return { field: "lifetimeMs", message: `lifetimeMs is required: ${range}` };
  if (typeof lifetimeMs !== "number" || !Number.isInteger(lifetimeMs) || lifetimeMs <= 0) {
    return { field: "lifetimeMs", message: `lifetimeMs is ${range}` };
  }
  if (lifetimeMs > cap) {
    return { field: "lifetimeMs", message: `lifetimeMs is past this provider's cap of ${cap} ms (${inWords(cap)}): ask for ${range}` };
  }
  return undefined;
}

/**
 * A stopped computer in words, one drift sentence: what refresh, `agentrun ls` and the CLI say of
 * it, so a computer stopped before its deadline never reads as one that merely outlived it.
 */
export function stoppedWords(deadline: Date | undefined, now: Date = new Date()): string {
  if (deadline === undefined || Number.isNaN(deadline.getTime())) return "stopped, and its deadline cannot be read";
  if (deadline.getTime() <= now.getTime()) return `stopped: its deadline ${deadline.toISOString()} has passed`;
  return `stopped before its deadline ${deadline.toISOString()} (by hand, or its programs ended)`;
}
