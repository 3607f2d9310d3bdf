// The run and epoch labels: the one fence for runs and computers, set in this one place; and the
// owner and declaration labels that tie a computer to the resource it was made for.
import { createHash } from "node:crypto";
import { canonical } from "./canonical.js";
import { fail, ok, type Refusal, type Result } from "../daemon/result.js";

/** The run's id. */
export const RUN_LABEL = "agentrun.run";
/** The epoch of the run's claim (a RunEpoch's) that made the computer, in decimal. */
export const EPOCH_LABEL = "agentrun.epoch";

/** Who a computer was made for (a Pulumi resource: its stack's folder and URN), hashed. */
export const OWNER_LABEL = "agentrun.owner";
/** The owner and the spec it was made from, hashed: a create with the same one may adopt it. */
export const DECLARATION_LABEL = "agentrun.declaration";

const MAX_EPOCH = Number.MAX_SAFE_INTEGER; // 2^53 - 1
const EPOCH_DIGITS = /^(0|[1-9][0-9]*)$/;

/** Why a run id cannot be a label's value, or undefined when it can. */
export function runProblem(run: unknown): string | undefined {
  if (typeof run !== "string") return `a run id is a string, not ${typeof run}`;
  if (run.length === 0) return "a run id is a non-empty string";
  if (run.includes("\0")) return "a run id has no NUL byte";
  return undefined;
}

/** Why a value cannot be an epoch, or undefined when it can. */
export function epochProblem(epoch: unknown): string | undefined {
  if (typeof epoch !== "number" || !Number.isInteger(epoch)) return "an epoch is a whole number";
  if (epoch < 0 || epoch > MAX_EPOCH) return "an epoch is from 0 to 2^53 - 1";
  return undefined;
}

/** The two labels of a run's computer, for ComputerSpec.labels. Throws in words on a bad run or epoch. */
export function runLabels(run: string, epoch: number): Record<string, string> {
  const problem = runProblem(run) ?? epochProblem(epoch);
  if (problem) throw new TypeError(`runLabels: ${problem}`);
  return { [RUN_LABEL]: run, [EPOCH_LABEL]: String(epoch) };
}

/** A computer's epoch from its labels: not_found when the label is missing, invalid when it is not one. */
export function epochOf(labels: Record<string, string | undefined>): Result<number> {
  const value = labels[EPOCH_LABEL];
  if (value === undefined) return fail("not_found", `the computer has no ${EPOCH_LABEL} label`);
  const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (!EPOCH_DIGITS.test(value)) {
    return fail("invalid", `the ${EPOCH_LABEL} label reads ${shown}, not an epoch: decimal digits with no sign, leading zero or space`);
  }
  const epoch = Number(value);
  if (epoch > MAX_EPOCH) return fail("invalid", `the ${EPOCH_LABEL} label reads ${shown}, past the largest epoch, 2^53 - 1`);
  return ok(epoch);
}

const hash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 32);

/** The owner label's value for an owner (any string; only its hash is ever written). */
export function ownerLabel(owner: string): Record<string, string> {
  return { [OWNER_LABEL]: hash(owner) };
}

/**
 * The two labels a computer made for an owner carries from its create request on: the owner,
 * and the declaration (the owner with the spec it was made from). Both are hashes, so neither a
 * path nor a secret in the spec reaches a label.
 */
export function ownerLabels(owner: string, spec: unknown): Record<string, string> {
  const ownerHash = hash(owner);
  return { [OWNER_LABEL]: ownerHash, [DECLARATION_LABEL]: hash(`${ownerHash}\0${canonical(spec)}`) };
}

/** The declaration label alone: what adoption looks a computer of this owner and spec up by. */
export function declarationLabel(owner: string, spec: unknown): Record<string, string> {
  return { [DECLARATION_LABEL]: ownerLabels(owner, spec)[DECLARATION_LABEL]! };
}

/**
 * The labels a create writes: these, with the owner label when made for an owner, and beside it
 * the declaration label when a computer's spec is given (ownerLabels); a part that is not a
 * computer (an egress proxy) has no declaration to hash.
 */
export function withOwnerLabel(labels: Record<string, string> | undefined, owner: string | undefined, spec?: object): Record<string, string> {
  if (owner === undefined) return { ...labels };
  return { ...labels, ...(spec === undefined ? ownerLabel(owner) : ownerLabels(owner, spec)) };
}

/** The labels without the two owner labels: what a caller declared. */
export function withoutOwner(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([k]) => !isOwnerLabel(k)));
}

/** True for the owner and declaration labels, which only a create for an owner writes. */
export function isOwnerLabel(key: string): boolean {
  return key === OWNER_LABEL || key === DECLARATION_LABEL;
}

/** A spec's label that is an owner label, refused in words. */
export function ownerLabelRefusal(key: string): Refusal {
  return { field: "labels", message: `the label ${key} is the provider's own (it ties a computer to the resource it was made for); choose another key` };
}

/**
 * A spec's labels, each refused in words: an object of strings, keys non-empty with no NUL, = or
 * space, none in the provider's own namespace (agentrun.computer and below).
 */
export function labelRefusals(labels: unknown, namespace: string): Refusal[] {
  if (typeof labels !== "object" || labels === null || Array.isArray(labels)) return [{ field: "labels", message: "labels is an object of strings" }];
  const out: Refusal[] = [];
  for (const [key, value] of Object.entries(labels)) {
    if (key.length === 0 || key.includes("\0") || key.includes("=") || /\s/.test(key)) {
      out.push({ field: "labels", message: "a label's key is a non-empty string with no NUL, = or space" });
    } else if (isOwnerLabel(key)) {
      out.push(ownerLabelRefusal(key));
    } else if (key === namespace || key.startsWith(`${namespace}.`)) {
      out.push({ field: "labels", message: `the label ${key} is in the provider's own namespace (${namespace}); choose another key` });
    }
    if (typeof value !== "string" || value.includes("\0"))
      out.push({ field: "labels", message: `the label ${key.replace(/\0/g, "")} is a string with no NUL` });
  }
  return out;
}

/** The label a warm pool's computers are made with: the pool's id (src/fleet/pool.ts). */
export const POOL_LABEL = "agentrun.pool";
