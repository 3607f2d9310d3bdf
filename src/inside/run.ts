// A command run inside a computer exactly once: staged in a folder of its own under the home,
// run as the computer's user by a runner that stops it at its timeout, its result files read
// back, and the folder removed. A run is sent once: a connection that breaks fails the run naming
// the computer, the call and the cause, and nothing resends it. Staging first ends whatever still
// runs from the folder (every process marked with it: marks.ts), so a retried step runs once.
// A check that grades: its result and reward files are removed before it runs, so nothing an
// earlier run left is read as this one's; they are read back as bytes, and the reward as a number.
import { randomBytes } from "node:crypto";
import { posix } from "node:path";
import { CallError, type CallOptions } from "../daemon/client.js";
import { readFile, writeFile } from "../daemon/files.js";
import { MAX_OUTPUT_BYTES } from "../daemon/protocol.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { runQuietly } from "./load.js";
import { endMarked } from "./marks.js";
import { inHome, RUN_ROOT } from "./paths.js";
import type { Session } from "./session.js";

/** The daemon's bound on one run, as this library asks it (exec.run's timeoutMs). */
export const MAX_RUN_SECONDS = 3600;
/** What the runner keeps for itself inside that bound: it stops the command, then reports. */
export const RUNNER_MARGIN_SECONDS = 10;
/** How long the client waits past the daemon's bound before it gives up on the reply. */
const CLIENT_MARGIN_MS = 30_000;
/** The most a result file may hold (the seed's bound on every read-back). */
export const MAX_RESULT_BYTES = 50 * 1024 * 1024;
/** The variable that marks every process of a run with its folder, so a later staging finds them. */
export const RUN_MARK = "AGENTRUN_RUN";
const STAGE_MS = 60_000;

export interface RunSpec {
  /** The run's folder's name under ~/.agentrun/run (one per resource). */
  key: string;
  /** A script (run by sh) or an argv. */
  command: string | string[];
  stdin?: string;
  env?: Record<string, string>;
  timeoutSeconds: number;
  /** Home-relative files read back after the run (removed before it). */
  resultPaths?: string[];
  /** A home-relative file holding the run's reward, one number (removed before the run). */
  rewardPath?: string;
}

export interface RunResult {
  /** This run's own id, fresh each time it is sent. */
  runId: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Whether the daemon kept only the first 360 KiB of stdout or stderr. */
  truncated: boolean;
  /** Whether it exited 0 within its timeout. */
  passed: boolean;
  /** Each result path's bytes. A run that passed left every one; one that failed, those it left. */
  results: Record<string, Uint8Array>;
  /** The number in the reward file, when there is one (a run that passed must leave it). */
  reward?: number;
  /** How many processes of an earlier run of this folder were still running and were ended. */
  leftovers: number;
}

/**
 * The runner, run by sh from the folder: the command from the home, with stdin from the folder,
 * stopped by timeout(1) at its bound (TERM to its process group, KILL 2 s later). A timeout is
 * written to the folder as the word "timeout", so a command's own exit 124 is not one.
 */
const RUNNER = `dir=$1 secs=$2; shift 2
cd "$HOME" || exit 125
start=$(date +%s)
timeout -k 2 "$secs" "$@" < "$dir/stdin"
code=$?
if { [ "$code" = 124 ] || [ "$code" = 137 ]; } && [ $(( $(date +%s) - start )) -ge "$secs" ]; then echo timeout > "$dir/status"; fi
exit "$code"
`;

export const runFolder = (home: string, key: string) => inHome(home, posix.join(RUN_ROOT, key));

/** Stages, runs once and reads back: a connection that breaks during the run fails it, never resent. */
export async function runCommand(session: Session, spec: RunSpec, options: CallOptions = {}): Promise<Result<RunResult>> {
  const dir = runFolder(session.home, spec.key);
  const staged = await stage(session, dir, spec, options);
  if (!staged.ok) return staged;
  const ran = await runOnce(session, dir, spec, staged.value, options);
  // A broken connection leaves the folder to the retry's staging, which ends what still runs there.
  if (!ran.ok && ran.error.code === "closed") return ran;
  const removed = await removeFolder(session, dir);
  if (!ran.ok) return ran;
  if (!removed.ok) return fail(removed.error.code, `${session.name}: the run's folder ${dir} could not be removed: ${removed.error.message}`);
  return ran;
}

async function stage(session: Session, dir: string, spec: RunSpec, options: CallOptions): Promise<Result<number>> {
  const signal = options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(STAGE_MS)]) : AbortSignal.timeout(STAGE_MS);
  const ended = await endMarked(session, RUN_MARK, dir, { signal });
  if (!ended.ok) return ended;
  // Before the folder is made, so a run stopped here leaves none.
  const cleared = await clearOutputs(session, [...(spec.resultPaths ?? []), ...(spec.rewardPath ? [spec.rewardPath] : [])], signal);
  if (!cleared.ok) return cleared;
  const made = await runQuietly(session, ["sh", "-c", 'rm -rf -- "$1" && mkdir -p -m 700 -- "$1"', "sh", dir], STAGE_MS, "staging the run's folder", {
    signal,
  });
  if (!made.ok) return made;
  const writes: Array<[string, string, number]> = [
    ["run.sh", RUNNER, 0o600],
    ["stdin", spec.stdin ?? "", 0o600],
  ];
  if (typeof spec.command === "string") writes.push(["script", spec.command, 0o600]);
  for (const [name, text, mode] of writes) {
    const written = await writeFile(session.client, posix.join(dir, name), Buffer.from(text, "utf8"), { mode, signal });
    if (!written.ok) return fail(written.error.code, `${session.name}: staging ${name} in ${dir} failed: ${written.error.message}`);
  }
  return ok(ended.value);
}

async function runOnce(session: Session, dir: string, spec: RunSpec, leftovers: number, options: CallOptions): Promise<Result<RunResult>> {
  const runId = randomBytes(8).toString("hex");
  const argv = typeof spec.command === "string" ? ["sh", posix.join(dir, "script")] : spec.command;
  const timeoutMs = (spec.timeoutSeconds + RUNNER_MARGIN_SECONDS) * 1000;
  const wait = AbortSignal.timeout(timeoutMs + CLIENT_MARGIN_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, wait]) : wait;
  let run;
  try {
    run = await session.client.call(
      "exec.run",
      {
        argv: ["sh", posix.join(dir, "run.sh"), dir, String(spec.timeoutSeconds), ...argv],
        env: { ...spec.env, [RUN_MARK]: dir, AGENTRUN_RUN_ID: runId },
        timeoutMs,
        maxOutput: MAX_OUTPUT_BYTES,
      },
      { signal },
    );
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    const kind = error instanceof CallError ? error.kind : "failed";
    if (kind === "closed") {
      return fail(
        "closed",
        `${session.name}: the connection to its daemon broke during exec.run of the command (run ${runId}): ${cause}. It is not sent again (it may have run in part); the next up ends what is left of it and runs it once`,
      );
    }
    if (wait.aborted)
      return fail("timeout", `${session.name}: exec.run of the command (run ${runId}) had no reply within its ${spec.timeoutSeconds} s and the margins`);
    return fail(kind, `${session.name}: exec.run of the command (run ${runId}) failed: ${cause}`);
  }
  const status = await readFile(session.client, posix.join(dir, "status"), { signal: AbortSignal.timeout(STAGE_MS) });
  const timedOut = run.timedOut || (status.ok && Buffer.from(status.value).toString("utf8").trim() === "timeout");
  const passed = !timedOut && run.exitCode === 0;
  const outputs = await readOutputs(session, spec, passed);
  if (!outputs.ok) return outputs;
  return ok({
    runId,
    exitCode: run.exitCode,
    signal: run.signal,
    timedOut,
    passed,
    stdout: Buffer.from(run.stdout, "base64").toString("utf8"),
    stderr: Buffer.from(run.stderr, "base64").toString("utf8"),
    truncated: run.truncated,
    ...outputs.value,
    leftovers,
  });
}

// Removes each path given (home-relative) that is there; the first that cannot go stops it, rm naming it.
const CLEAR = `cd "$HOME" || exit 1
for f do
  if [ -e "$f" ] || [ -h "$f" ]; then rm -f -- "$f" || exit 1; fi
done`;

/** Removes what an earlier run left at the result and reward paths; one that cannot be removed stops the run, in words. */
async function clearOutputs(session: Session, paths: readonly string[], signal: AbortSignal): Promise<Result<undefined>> {
  if (paths.length === 0) return ok();
  const cleared = await runQuietly(session, ["sh", "-c", CLEAR, "sh", ...paths], STAGE_MS, "rm of the result and reward files", { signal });
  if (cleared.ok) return ok();
  return fail(
    cleared.error.code,
    `${cleared.error.message}. A result or reward file an earlier run left could not be removed, so the command was not run: it would be read as this run's`,
  );
}

/** The result files and the reward: all required of a run that passed; of one that failed, those it left. */
async function readOutputs(session: Session, spec: RunSpec, passed: boolean): Promise<Result<Pick<RunResult, "results" | "reward">>> {
  const results: Record<string, Uint8Array> = {};
  for (const path of spec.resultPaths ?? []) {
    const read = await readResult(session, path, "result");
    if (!read.ok && (passed || read.error.code !== "not_found")) return read;
    if (read.ok) results[path] = read.value;
  }
  if (!spec.rewardPath) return ok({ results });
  const read = await readResult(session, spec.rewardPath, "reward file");
  if (!read.ok) return !passed && read.error.code === "not_found" ? ok({ results }) : read;
  const reward = rewardOf(read.value);
  if (reward === undefined)
    return fail(
      "invalid",
      `${session.name}: the reward file ${spec.rewardPath} holds ${read.value.length} bytes that are not one number: a reward is a number such as 1, 0.75 or -2e-3`,
    );
  return ok({ results, reward });
}

/** The one number a reward file holds (JSON's number, space around it allowed), else undefined. */
export function rewardOf(bytes: Uint8Array): number | undefined {
  const text = Buffer.from(bytes).toString("utf8").trim();
  if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

async function readResult(session: Session, path: string, what: string): Promise<Result<Uint8Array>> {
  const full = inHome(session.home, path);
  const signal = AbortSignal.timeout(STAGE_MS * 5);
  try {
    const st = await session.client.call("files.stat", { path: full, follow: true }, { signal });
    if (st.type !== "file") return fail("invalid", `${session.name}: the ${what} ${path} is a ${st.type}, not a file`);
    if (st.size > MAX_RESULT_BYTES)
      return fail("limit", `${session.name}: the ${what} ${path} holds ${st.size} bytes, past the most read back, ${MAX_RESULT_BYTES} (50 MiB)`);
  } catch (error) {
    const kind = error instanceof CallError ? error.kind : "failed";
    if (kind === "not_found") return fail("not_found", `${session.name}: the command left no ${what} ${path}`);
    return fail(kind, `${session.name}: the ${what} ${path} could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  const read = await readFile(session.client, full, { signal });
  if (!read.ok) return fail(read.error.code, `${session.name}: the ${what} ${path} could not be read: ${read.error.message}`);
  return ok(read.value);
}

async function removeFolder(session: Session, dir: string): Promise<Result<undefined>> {
  try {
    await session.client.call("files.remove", { path: dir, recursive: true }, { signal: AbortSignal.timeout(STAGE_MS) });
    return ok();
  } catch (error) {
    if (error instanceof CallError && error.kind === "not_found") return ok();
    return fail(error instanceof CallError ? error.kind : "failed", error instanceof Error ? error.message : String(error));
  }
}
