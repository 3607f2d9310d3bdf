// An app's install steps: run once, in order, as the computer's user, from the app's folder, each
// bounded and marked with the app's folder (so stopping the app ends what a step left running),
// each its own result. The first step that fails stops the install, naming it; the caller removes
// what the install wrote (the app's folder).
import { CallError, type CallOptions } from "../daemon/client.js";
import { MAX_OUTPUT_BYTES } from "../daemon/protocol.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { APP_MARK } from "./app.js";
import type { Session } from "./session.js";

/** How much of a step's stdout and stderr its result keeps: their tails. */
export const STEP_TAIL_CHARS = 4 * 1024;

export interface InstallStep {
  name: string;
  /** A script (run by sh) or an argv. */
  command: string | string[];
  timeoutSeconds: number;
}

/** One step's result. */
export interface StepResult {
  name: string;
  exitCode: number;
  stdout: string;
  stderr: string;
}

const text = (b64: string) => Buffer.from(b64, "base64").toString("utf8");
const tail = (s: string) => (s.length > STEP_TAIL_CHARS ? s.slice(-STEP_TAIL_CHARS) : s);
const lastLines = (s: string) => s.trim().split("\n").slice(-3).join("; ").slice(-500);

/** Runs the steps in order from dir (absolute); every step's result, or a failure naming the step that failed and why. */
export async function runInstallSteps(session: Session, dir: string, steps: readonly InstallStep[], options: CallOptions = {}): Promise<Result<StepResult[]>> {
  const done: StepResult[] = [];
  for (const [i, step] of steps.entries()) {
    const which = `install step ${i + 1} of ${steps.length} (${step.name})`;
    const argv = typeof step.command === "string" ? ["sh", "-c", step.command] : step.command;
    let run;
    try {
      run = await session.client.call(
        "exec.run",
        { argv, cwd: dir, env: { [APP_MARK]: dir }, timeoutMs: step.timeoutSeconds * 1000, maxOutput: MAX_OUTPUT_BYTES },
        options,
      );
    } catch (error) {
      const cause = error instanceof Error ? error.message : String(error);
      return fail(error instanceof CallError ? error.kind : "failed", `${session.name}: ${which} could not run: ${cause}`);
    }
    const result = { name: step.name, exitCode: run.exitCode ?? -1, stdout: tail(text(run.stdout)), stderr: tail(text(run.stderr)) };
    if (run.timedOut) return fail("timeout", `${session.name}: ${which} ran past its ${step.timeoutSeconds} s and was stopped`);
    const said = lastLines(result.stderr);
    if (run.exitCode !== 0) return fail("failed", `${session.name}: ${which} exited ${run.exitCode ?? `on ${run.signal}`}${said ? `: ${said}` : ""}`);
    done.push(result);
  }
  return ok(done);
}
