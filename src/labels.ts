// The run and epoch labels: the one fence for runs and computers, set in this one place.
import { fail, ok, type Refusal, type Result } from "./result.js";

/** The run's id. */
export const RUN_LABEL = "agentrun.run";
/** The claim epoch of the runner that made the computer, in decimal. */
export const EPOCH_LABEL = "agentrun.epoch";

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
    } else if (key === namespace || key.startsWith(`${namespace}.`)) {
      out.push({ field: "labels", message: `the label ${key} is in the provider's own namespace (${namespace}); choose another key` });
    }
    if (typeof value !== "string" || value.includes("\0")) out.push({ field: "labels", message: `the label ${key.replace(/\0/g, "")} is a string with no NUL` });
  }
  return out;
}
