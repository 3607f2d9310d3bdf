// A Computer's declared run state: running (the default) or paused, held by the vendor's pause
// hooks. The output `state` is what was read back (running, paused or stopped); a paused or running
// computer that is not what was declared is drift named `state`, and an up puts it back with a
// pause or a resume: an update of that computer alone, never a replace. A stopped one is past its
// deadline (which a pause does not hold off) and is made again, as before.
import type { CheckFailure } from "@pulumi/pulumi/provider/index.js";
import type { ComputerProvider, ComputerRef, ComputerState } from "../../src/contract/provider.js";
import { checkRunState, forkProblem, pauseProblem, type RunState } from "../../src/contract/state.js";
import { orThrow } from "../../src/daemon/result.js";
import { UNKNOWN, type Props } from "../secrets.js";

/** A declared state's refusal (checkRunState's words), or undefined; a secret's value is never quoted. */
export function runStateRefusal(state: unknown, secret: boolean): CheckFailure | undefined {
  if (state === UNKNOWN) return undefined;
  const checked = checkRunState(state);
  if (checked.ok) return undefined;
  return { property: "state", reason: secret ? "state (a secret) must be running or paused" : checked.error.message };
}

/** What the provider refuses of a declaration known now: paused where it cannot pause, a fork of another provider's snapshot. */
export function forkAndPauseRefusals(provider: ComputerProvider, inputs: Props, refused: ReadonlySet<string>): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const state = inputs.state;
  if ((state === "running" || state === "paused") && !refused.has("state")) {
    // The hooks and the capability row both: a row that says pause with no hooks to do it is none.
    const paused = pauseProblem(state, provider.id, provider.pause ? provider.capabilities().pause : undefined);
    if (!paused.ok) failures.push({ property: "state", reason: paused.error.message });
  }
  if (typeof inputs.image === "string" && inputs.image !== UNKNOWN && !refused.has("image")) {
    const fork = forkProblem(inputs.image, provider.id);
    if (!fork.ok) failures.push({ property: "image", reason: fork.error.message });
  }
  return failures;
}

/** A declared state: absent is running. */
export const declaredState = (state: unknown): RunState => (state === "paused" ? "paused" : "running");

/** The sentence a computer's drift holds while it is paused or running against its declaration; undefined when it is as declared (or stopped). */
export function stateWords(declared: RunState, found: ComputerState): string | undefined {
  if (found === "stopped" || found === declared) return undefined;
  return found === "paused" ? "paused, though declared running: an up resumes it" : "running, though declared paused: an up pauses it again";
}

/** The drift's sentences less the state's, which an update heals (a pause or a resume), not a replace. */
export function withoutStateWords(drift: unknown): unknown[] {
  const state = new Set([stateWords("running", "paused"), stateWords("paused", "running")]);
  return Array.isArray(drift) ? drift.filter((d) => !state.has(d)) : [];
}

/** Whether the state read back (a stored output) differs from the declared one in a way a pause or resume heals. */
export function stateMoves(found: unknown, declared: unknown): boolean {
  if (found === "stopped") return false;
  return declared === UNKNOWN || (found !== undefined && found !== declaredState(declared));
}

/**
 * The computer put in its declared state: paused (one already paused is ok), or resumed when it
 * was read back paused. A provider with no pause leaves a running computer as it is.
 */
export async function putState(provider: ComputerProvider, ref: ComputerRef, declared: RunState, found: unknown, signal: AbortSignal): Promise<void> {
  if (!provider.pause) {
    if (declared === "paused") throw new Error(`state paused cannot be put back: ${provider.id} cannot pause a computer`);
    return;
  }
  if (declared === "paused") orThrow(await provider.pause.pause(ref, { signal }));
  else if (found !== "running") orThrow(await provider.pause.resume(ref, { signal }));
}
