// agentrun:index:ComputerCommand, a command run inside a computer once: staged under
// ~/.agentrun/run/<urn hash>/, run as the computer's user, its result files read back and the
// folder removed (src/inside/run.ts). Sent exactly once: a run whose connection breaks fails
// naming the computer, the call and the cause, and is never resent; the next up's staging ends
// what is left of it and runs it once. A check that grades: with allowFailure a failing exit (or a
// timeout) is kept as a result, its verdict (passed, exitCode, the tails, the result files as
// bytes, the reward) in state; its result and reward files are removed before it runs. read never
// runs it; diff runs it again (a replace, the old deleted first, so its delete never takes the new
// run's files) only when command, stdin, env, apps or triggers change (or the computer); the old run's
// verdict is then in the stack's history alone. A changed timeoutSeconds, resultPaths, rewardPath
// or allowFailure is kept for the next run. delete removes its result and reward files.
import { createHash } from "node:crypto";
import { z } from "zod";
import { anyValue, fieldsOf, PULUMI_TYPE, strings, wholeIn } from "../inputs.js";
import type { CheckFailure } from "@pulumi/pulumi/provider/index.js";
import { removeFiles } from "../../src/inside/load.js";
import { homeRelative } from "../../src/inside/paths.js";
import { findRunning } from "../../src/inside/session.js";
import { addressVar, APP_NAME, LOOPBACK_ADDRESS } from "../../src/inside/app.js";
import { MAX_RUN_SECONDS, RUN_MARK, RUNNER_MARGIN_SECONDS, runCommand, type RunResult } from "../../src/inside/run.js";
import { DEFAULT_PROVIDER } from "../../src/providers.js";
import { ResultFailure, orThrow } from "../../src/daemon/result.js";
import type { Context, Step, Stored } from "../resource.js";
import { bounded, resource, unknownFields, vendorOf } from "../resource.js";
import { UNKNOWN, hasUnknown, isSecret, secret, unwrap, type Props } from "../secrets.js";
import { checkComputer, ENV_NAME, inComputer } from "./computer-step.js";

const TYPE = "agentrun:index:ComputerCommand";
const DEFAULT_TIMEOUT_SECONDS = 300;
/** The longest timeoutSeconds: the runner keeps 10 s of the daemon's bound to stop the command and report. */
export const MAX_TIMEOUT_SECONDS = MAX_RUN_SECONDS - RUNNER_MARGIN_SECONDS;
/** How much of stdout and stderr the outputs keep: their tails. */
export const TAIL_CHARS = 16 * 1024;
/** Inputs whose change runs the command again. */
const RERUN = ["computer", "provider", "command", "stdin", "env", "apps", "triggers"] as const;
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
  rewardPath: z.string().optional(),
  allowFailure: z.boolean().optional(),
  apps: strings().optional(),
});
const INPUTS = fieldsOf(Given);
type Given = z.infer<typeof Given>;
/** What check gives: the provider, the timeout and the result paths filled in. */
const Checked = Given.required({ provider: true, timeoutSeconds: true, resultPaths: true, allowFailure: true });
type Inputs = z.infer<typeof Checked>;
/** What the steps read of the stored state: the inputs, then the last run's verdict. */
const Stored = Given.extend({
  runId: z.string(),
  exitCode: z.number(),
  timedOut: z.boolean(),
  passed: z.boolean(),
  stdout: z.string(),
  stderr: z.string(),
  results: strings(),
  resultEncodings: strings(),
  reward: z.number(),
});
type State = Stored<z.infer<typeof Stored>>;
/** Inputs whose change is kept for the next run. */
const KEPT = ["timeoutSeconds", "resultPaths", "rewardPath", "allowFailure"] as const;

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
  if (timeout !== UNKNOWN && !wholeIn(timeout, 1, MAX_TIMEOUT_SECONDS)) {
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
  let rewardPath = plain.rewardPath;
  if (rewardPath !== undefined && rewardPath !== UNKNOWN) {
    const r = homeRelative(rewardPath, "the reward path");
    if (!r.ok) refuse("rewardPath", r.error.message);
    else rewardPath = r.value;
  }
  const allowFailure = plain.allowFailure ?? false;
  if (allowFailure !== UNKNOWN && typeof allowFailure !== "boolean")
    refuse("allowFailure", "allowFailure is true (a failing exit or a timeout is kept as this step's verdict) or false (it fails the step)");
  checkApps(plain.apps, env, refuse);
  if (failures.length) return { failures };
  const inputs: Props = { computer, provider, command, timeoutSeconds: timeout, resultPaths: paths === UNKNOWN ? paths : resultPaths, allowFailure };
  if (rewardPath !== undefined) inputs.rewardPath = rewardPath;
  for (const k of ["stdin", "env", "triggers", "apps"] as const) if (plain[k] !== undefined) inputs[k] = plain[k];
  for (const k of secretKeys) if (k in inputs) inputs[k] = secret(inputs[k]);
  return { inputs };
}

/** apps: app names to their loopback addresses (a ComputerApp's `address`), each given to the command as a variable. */
function checkApps(apps: unknown, env: unknown, refuse: (property: string, reason: string) => void): void {
  if (apps === undefined || apps === UNKNOWN) return;
  if (typeof apps !== "object" || apps === null || Array.isArray(apps))
    return refuse("apps", "apps is a map of app names to their addresses (a ComputerApp's `address` output)");
  for (const [name, address] of Object.entries(apps)) {
    if (!APP_NAME.test(name))
      refuse("apps", `apps' name ${JSON.stringify(name.slice(0, 64))} is not an app's name (lowercase letters, digits, _ and -, at most 63)`);
    else if (typeof env === "object" && env !== null && addressVar(name) in env)
      refuse("apps", `env's ${addressVar(name)} is the address of the app ${name}: name another`);
    if (address !== UNKNOWN && (typeof address !== "string" || !LOOPBACK_ADDRESS.test(address)))
      refuse(
        "apps",
        `apps.${name} is an address on the computer's loopback, http://127.0.0.1:<port> (a ComputerApp's \`address\`): a check reaches an app with no network`,
      );
  }
}

/** The run's folder's name: one per resource, from its URN (never its inputs, which may be secret). */
export function runKey(urn: string | undefined): string {
  if (!urn) throw new Error("a ComputerCommand step was given no URN, so it has no folder of its own");
  return createHash("sha256").update(urn).digest("hex").slice(0, 16);
}

const tail = (text: string) => (text.length > TAIL_CHARS ? text.slice(-TAIL_CHARS) : text);

/** A result's bytes as state holds them: UTF-8 text where they are text, else base64. */
export function encodeResult(bytes: Uint8Array): { text: string; encoding: "utf8" | "base64" } {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), encoding: "utf8" };
  } catch {
    return { text: Buffer.from(bytes).toString("base64"), encoding: "base64" };
  }
}

/** What a run gave, as state keeps it (the results already encoded). */
type Verdict = Pick<RunResult, "runId" | "exitCode" | "timedOut" | "passed" | "stdout" | "stderr" | "reward"> & {
  results: Record<string, string>;
  resultEncodings: Record<string, string>;
};

function verdictOf(run: RunResult): Verdict {
  const encoded = Object.entries(run.results).map(([path, bytes]) => [path, encodeResult(bytes)] as const);
  return {
    ...run,
    results: Object.fromEntries(encoded.map(([p, e]) => [p, e.text])),
    resultEncodings: Object.fromEntries(encoded.map(([p, e]) => [p, e.encoding])),
  };
}

/** The outputs: the inputs, then what the run gave; with any input a secret, everything it gave is one. */
function outputsOf(raw: Props, inputs: Inputs, run: Verdict): Props {
  const anySecret = Object.values(raw).some(isSecret);
  const keep = (v: unknown) => (anySecret ? secret(v) : v);
  const outs: Props = {
    ...raw,
    provider: inputs.provider,
    timeoutSeconds: inputs.timeoutSeconds,
    resultPaths: raw.resultPaths ?? [],
    allowFailure: inputs.allowFailure,
    runId: run.runId,
    exitCode: run.exitCode ?? -1,
    timedOut: run.timedOut,
    passed: run.passed,
    stdout: keep(tail(run.stdout)),
    stderr: keep(tail(run.stderr)),
    results: keep(run.results),
    resultEncodings: run.resultEncodings,
  };
  if (run.reward !== undefined) outs.reward = keep(run.reward);
  return outs;
}

async function create(ctx: Context, { inputs, raw }: Step<Inputs>) {
  const anySecret = Object.values(raw).some(isSecret);
  const key = runKey(ctx.urn);
  ctx.say?.(`running the command in ${inputs.computer} (at most ${inputs.timeoutSeconds} s)`);
  const spec = {
    key,
    command: inputs.command,
    stdin: inputs.stdin,
    env: { ...inputs.env, ...Object.fromEntries(Object.entries(inputs.apps ?? {}).map(([name, address]) => [addressVar(name), address])) },
    timeoutSeconds: inputs.timeoutSeconds,
    resultPaths: inputs.resultPaths,
    rewardPath: inputs.rewardPath,
  };
  const ran = orThrow(
    await inComputer(ctx, inputs, (inputs.timeoutSeconds + RUNNER_MARGIN_SECONDS) * 1000 + STEP_MS, (session, signal) => runCommand(session, spec, { signal })),
  );
  if (ran.leftovers > 0) ctx.say?.(`ended ${ran.leftovers} process(es) an earlier run of this command left running in ${inputs.computer}`);
  const said = (text: string) => (anySecret || !text.trim() ? "" : `: ${text.trim().split("\n").slice(-5).join("; ").slice(-1000)}`);
  const outs = outputsOf(raw, inputs, verdictOf(ran));
  if (ran.passed) return { id: `run-${ran.runId}`, outs };
  const how = ran.timedOut
    ? `ran past its timeout of ${inputs.timeoutSeconds} s and was stopped, with everything it started`
    : `exited ${ran.exitCode ?? `on ${ran.signal}`}`;
  if (inputs.allowFailure) {
    ctx.say?.(`the command ${how}: kept as its verdict (allowFailure)`);
    return { id: `run-${ran.runId}`, outs };
  }
  if (ran.timedOut) throw new ResultFailure({ code: "timeout", message: `${inputs.computer}: the command ${how}; its folder is removed${said(ran.stderr)}` });
  throw new ResultFailure({ code: "failed", message: `${inputs.computer}: the command ${how}${said(ran.stderr)}` });
}

async function read(ctx: Context, id: string, { old, raw: props }: State) {
  // Never run again: only whether its computer is still there, since a computer made again has not run it.
  const provider = await vendorOf(ctx, old.provider ?? DEFAULT_PROVIDER);
  const found = await findRunning(provider, String(old.computer), { signal: bounded(ctx, STEP_MS) });
  if (!found.ok && found.error.code === "gone") return {};
  orThrow(found);
  return { id, props };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

async function diff(_ctx: Context, _id: string, { old: o }: State, n: Props) {
  const replaces = RERUN.filter((k) => hasUnknown(n[k]) || !same(o[k], n[k]));
  // State from before allowFailure holds none: it was false.
  const updates = KEPT.filter((k) => (k === "allowFailure" ? (o[k] ?? false) !== (n[k] ?? false) : !same(o[k], n[k])));
  // The old run goes first: its delete removes its result files, which the new run writes again.
  return { changes: replaces.length + updates.length > 0, replaces, deleteBeforeReplace: replaces.length > 0 };
}

/** Only what is kept for the next run changed: the verdict in state stays the last run's. */
async function update(_ctx: Context, _id: string, { old: before }: State, { inputs, raw }: Step<Inputs>) {
  const outs = outputsOf(raw, inputs, {
    runId: String(before.runId),
    exitCode: before.exitCode ?? null,
    timedOut: before.timedOut === true,
    // State from before allowFailure holds only runs that passed.
    passed: before.passed !== false,
    stdout: String(before.stdout ?? ""),
    stderr: String(before.stderr ?? ""),
    results: before.results ?? {},
    resultEncodings: before.resultEncodings ?? {},
    reward: before.reward,
  });
  return { outs };
}

/** Its folder went when the run ended; its result and reward files go now (files only: folders stay). */
async function remove(ctx: Context, _id: string, { old }: State): Promise<void> {
  const paths = [...(old.resultPaths ?? []), ...(old.rewardPath ? [old.rewardPath] : [])];
  if (paths.length === 0 || typeof old.computer !== "string") return;
  const removed = await inComputer(ctx, { computer: old.computer, provider: old.provider }, STEP_MS, (session, signal) =>
    removeFiles(session, paths, { signal }),
  );
  if (!removed.ok && removed.error.code === "gone") return; // gone with its computer
  orThrow(removed);
}

export const computerCommand = resource(TYPE, {
  given: Given,
  inputs: INPUTS,
  checked: Checked,
  stored: Stored,
  check,
  diff,
  create,
  read,
  update,
  delete: remove,
});
