// agentrun:index:ComputerCommand, a command run inside a computer once: staged under
// ~/.agentrun/run/<urn hash>/, run as the computer's user, its result files read back and the
// folder removed (src/inside/run.ts). Sent exactly once: a run whose connection breaks fails
// naming the computer, the call and the cause, and is never resent; the next up's staging ends
// what is left of it and runs it once. read never runs it; diff runs it again (a replace) only
// when command, stdin, env or triggers change (or the computer); a changed timeoutSeconds or
// resultPaths is kept for the next run. delete removes its result files.
import { createHash } from "node:crypto";
import { z } from "zod";
import { anyValue, fieldsOf, PULUMI_TYPE, strings } from "../inputs.js";
import type { CheckFailure } from "@pulumi/pulumi/provider/index.js";
import { removeFiles } from "../../src/inside/load.js";
import { homeRelative } from "../../src/inside/paths.js";
import { findRunning } from "../../src/inside/session.js";
import { MAX_RUN_SECONDS, RUN_MARK, RUNNER_MARGIN_SECONDS, runCommand, type RunResult } from "../../src/inside/run.js";
import { DEFAULT_PROVIDER } from "../../src/providers.js";
import { ResultFailure, orThrow } from "../../src/contract/result.js";
import type { Context, ResourceHandler } from "../resource.js";
import { bounded, unknownFields, vendorOf } from "../resource.js";
import { UNKNOWN, isSecret, secret, unwrap, type Props } from "../secrets.js";
import { checkComputer, ENV_NAME, hasUnknown, inComputer } from "./computer-step.js";

const TYPE = "agentrun:index:ComputerCommand";
const DEFAULT_TIMEOUT_SECONDS = 300;
/** The longest timeoutSeconds: the runner keeps 10 s of the daemon's bound to stop the command and report. */
export const MAX_TIMEOUT_SECONDS = MAX_RUN_SECONDS - RUNNER_MARGIN_SECONDS;
/** How much of stdout and stderr the outputs keep: their tails. */
export const TAIL_CHARS = 16 * 1024;
/** Inputs whose change runs the command again. */
const RERUN = ["computer", "provider", "command", "stdin", "env", "triggers"] as const;
const STEP_MS = 2 * 60_000;

/** A ComputerCommand's inputs as a stack gives them. */
const Given = z.strictObject({
  computer: z.string(),
  provider: z.string().optional(),
  // A script or an argv: Pulumi's schema has no union, so schema.json says Any and check the rest.
  command: z.union([z.string(), z.array(z.string())]).meta({ [PULUMI_TYPE]: "pulumi.json#/Any" }),
  stdin: z.string().optional(),
  env: strings().optional(),
  timeoutSeconds: z.number().int().optional(),
  triggers: z.array(anyValue()).optional(),
  resultPaths: z.array(z.string()).optional(),
});
const INPUTS = fieldsOf(Given);
type Given = z.infer<typeof Given>;
/** What check gives: the provider, the timeout and the result paths filled in. */
type Inputs = Required<Pick<Given, "computer" | "provider" | "command" | "timeoutSeconds" | "resultPaths">> & Pick<Given, "stdin" | "env" | "triggers">;

async function check(ctx: Context, _olds: Props, news: Props) {
  const { plain, secretKeys } = unwrap(news);
  const failures: CheckFailure[] = unknownFields(plain, INPUTS, TYPE);
  const { computer, provider } = await checkComputer(ctx, plain, failures);
  const refuse = (property: string, reason: string) => failures.push({ property, reason });
  const { command, stdin, env, triggers } = plain;
  const shown = (k: string, words: string) => (secretKeys.has(k) ? `${k} (a secret) is refused` : words);

  const isArgv = Array.isArray(command) && command.length > 0 && command.every((a) => typeof a === "string" || a === UNKNOWN);
  if (command !== UNKNOWN && !(typeof command === "string" && command.trim() !== "") && !isArgv) {
    refuse("command", "command is required: a script (run by sh from the home) or an argv, a list of strings");
  }
  if (stdin !== undefined && stdin !== UNKNOWN && typeof stdin !== "string") refuse("stdin", "stdin is text given to the command's standard input");
  if (env !== undefined && env !== UNKNOWN) {
    if (typeof env !== "object" || env === null || Array.isArray(env)) refuse("env", "env is a map of variable names to text");
    else
      for (const [k, v] of Object.entries(env)) {
        if (!ENV_NAME.test(k)) refuse("env", shown("env", `env's name ${JSON.stringify(k)} is not a variable name (letters, digits and _, not first a digit)`));
        else if (k === RUN_MARK || k === "AGENTRUN_RUN_ID") refuse("env", `env's ${k} is the runner's own: name another`);
        if (v !== UNKNOWN && typeof v !== "string") refuse("env", `env's ${k} must be text`);
      }
  }
  const timeout = plain.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  if (timeout !== UNKNOWN && !(Number.isInteger(timeout) && (timeout as number) >= 1 && (timeout as number) <= MAX_TIMEOUT_SECONDS)) {
    refuse(
      "timeoutSeconds",
      `timeoutSeconds is whole seconds from 1 to ${MAX_TIMEOUT_SECONDS}: the daemon's bound on a run is ${MAX_RUN_SECONDS} s, and the runner keeps ${RUNNER_MARGIN_SECONDS} s of it to stop the command and report`,
    );
  }
  if (triggers !== undefined && triggers !== UNKNOWN && !Array.isArray(triggers))
    refuse("triggers", "triggers is a list of values whose change runs the command again");
  const paths = plain.resultPaths ?? [];
  const resultPaths: unknown[] = [];
  if (paths !== UNKNOWN) {
    if (!Array.isArray(paths)) refuse("resultPaths", "resultPaths is a list of home-relative files to read back");
    else
      for (const p of paths) {
        if (p === UNKNOWN) {
          resultPaths.push(p);
          continue;
        }
        const r = homeRelative(p, "a result path");
        if (!r.ok) refuse("resultPaths", r.error.message);
        else if (resultPaths.includes(r.value)) refuse("resultPaths", `the result path ${r.value} is named twice`);
        else resultPaths.push(r.value);
      }
  }
  if (failures.length) return { failures };
  const inputs: Props = { computer, provider, command, timeoutSeconds: timeout, resultPaths: paths === UNKNOWN ? paths : resultPaths };
  for (const k of ["stdin", "env", "triggers"] as const) if (plain[k] !== undefined) inputs[k] = plain[k];
  for (const k of secretKeys) if (k in inputs) inputs[k] = secret(inputs[k]);
  return { inputs };
}

/** The run's folder's name: one per resource, from its URN (never its inputs, which may be secret). */
export function runKey(urn: string | undefined): string {
  if (!urn) throw new Error("a ComputerCommand step was given no URN, so it has no folder of its own");
  return createHash("sha256").update(urn).digest("hex").slice(0, 16);
}

const tail = (text: string) => (text.length > TAIL_CHARS ? text.slice(-TAIL_CHARS) : text);

/** The outputs: the inputs, then what the run gave; with any input a secret, everything it gave is one. */
function outputsOf(raw: Props, inputs: Inputs, run: Pick<RunResult, "runId" | "exitCode" | "stdout" | "stderr" | "results">): Props {
  const anySecret = Object.values(raw).some(isSecret);
  const keep = (v: unknown) => (anySecret ? secret(v) : v);
  const outs: Props = { ...raw, provider: inputs.provider, timeoutSeconds: inputs.timeoutSeconds, resultPaths: raw.resultPaths ?? [] };
  return {
    ...outs,
    runId: run.runId,
    exitCode: run.exitCode ?? -1,
    stdout: keep(tail(run.stdout)),
    stderr: keep(tail(run.stderr)),
    results: keep(run.results),
  };
}

async function create(ctx: Context, raw: Props) {
  const inputs = unwrap(raw).plain as Inputs;
  const anySecret = Object.values(raw).some(isSecret);
  const key = runKey(ctx.urn);
  ctx.say?.(`running the command in ${inputs.computer} (at most ${inputs.timeoutSeconds} s)`);
  const ran = orThrow(
    await inComputer(ctx, inputs, (inputs.timeoutSeconds + RUNNER_MARGIN_SECONDS) * 1000 + STEP_MS, (session, signal) =>
      runCommand(
        session,
        { key, command: inputs.command, stdin: inputs.stdin, env: inputs.env, timeoutSeconds: inputs.timeoutSeconds, resultPaths: inputs.resultPaths },
        { signal },
      ),
    ),
  );
  if (ran.leftovers > 0) ctx.say?.(`ended ${ran.leftovers} process(es) an earlier run of this command left running in ${inputs.computer}`);
  const said = (text: string) => (anySecret || !text.trim() ? "" : `: ${text.trim().split("\n").slice(-5).join("; ").slice(-1000)}`);
  if (ran.timedOut) {
    throw new ResultFailure({
      code: "timeout",
      message: `${inputs.computer}: the command ran past its timeout of ${inputs.timeoutSeconds} s and was stopped, with everything it started; its folder is removed${said(ran.stderr)}`,
    });
  }
  if (ran.exitCode !== 0) {
    throw new ResultFailure({ code: "failed", message: `${inputs.computer}: the command exited ${ran.exitCode ?? `on ${ran.signal}`}${said(ran.stderr)}` });
  }
  return { id: `run-${ran.runId}`, outs: outputsOf(raw, inputs, ran) };
}

async function read(ctx: Context, id: string, props: Props) {
  const old = unwrap(props).plain as Partial<Inputs>;
  // Never run again: only whether its computer is still there, since a computer made again has not run it.
  const provider = await vendorOf(ctx, old.provider ?? DEFAULT_PROVIDER);
  const found = await findRunning(provider, String(old.computer), { signal: bounded(ctx, STEP_MS) });
  if (!found.ok && found.error.code === "gone") return {};
  orThrow(found);
  return { id, props };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

async function diff(_ctx: Context, _id: string, olds: Props, news: Props) {
  const o = unwrap(olds).plain;
  const n = unwrap(news).plain;
  const replaces = RERUN.filter((k) => hasUnknown(n[k]) || !same(o[k], n[k]));
  const updates = (["timeoutSeconds", "resultPaths"] as const).filter((k) => !same(o[k], n[k]));
  return { changes: replaces.length + updates.length > 0, replaces, deleteBeforeReplace: false };
}

/** Only timeoutSeconds or resultPaths changed: kept for the next run, which this is not. */
async function update(_ctx: Context, _id: string, olds: Props, news: Props) {
  const inputs = unwrap(news).plain as Inputs;
  const before = unwrap(olds).plain as Props;
  const outs = outputsOf(news, inputs, {
    runId: String(before.runId),
    exitCode: before.exitCode as number,
    stdout: String(before.stdout ?? ""),
    stderr: String(before.stderr ?? ""),
    results: (before.results ?? {}) as Record<string, string>,
  });
  return { outs };
}

/** Its folder went when the run ended; its result files go now (files only: folders stay). */
async function remove(ctx: Context, _id: string, props: Props): Promise<void> {
  const old = unwrap(props).plain as Partial<Inputs>;
  const paths = old.resultPaths ?? [];
  if (paths.length === 0 || typeof old.computer !== "string") return;
  const removed = await inComputer(ctx, { computer: old.computer, provider: old.provider }, STEP_MS, (session, signal) =>
    removeFiles(session, paths, { signal }),
  );
  if (!removed.ok && removed.error.code === "gone") return; // gone with its computer
  orThrow(removed);
}

export const computerCommand: ResourceHandler = { given: Given, inputs: INPUTS, check, diff, create, read, update, delete: remove };
