// The suite's assertion helpers: a failed check throws CaseFailure with what the case found, in
// words; a call's result or error is unwrapped here so each case reads as its checks.
import { CallError, type CallOptions, type ComputerClient } from "../daemon/client.js";
import type { ClientErrorKind, ExecRunResult } from "../daemon/protocol.js";
import type { Result, ResultCode } from "../daemon/result.js";

/** What a case found that is not what the spec says. */
export class CaseFailure extends Error {
  override readonly name = "CaseFailure";
}

/** Fails the case with the words unless the condition holds. */
export function check(condition: unknown, words: string | (() => string)): asserts condition {
  if (!condition) throw new CaseFailure(typeof words === "string" ? words : words());
}

/** A short JSON of what was found, for a failure's words. */
export function shown(value: unknown, max = 200): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The value of an ok result; a failure fails the case with its code and words. */
export function must<T>(result: Result<T>, what: string): T {
  if (!result.ok) throw new CaseFailure(`${what} failed (${result.error.code}): ${result.error.message}`);
  return result.value;
}

/** The error of a failed result with one of the codes; ok, or another code, fails the case. */
export function mustFail<T>(result: Result<T>, codes: readonly ResultCode[], what: string): { code: ResultCode; message: string; field?: string } {
  if (result.ok) throw new CaseFailure(`${what} was accepted (${shown(result.value)}); it must be refused (${codes.join(" or ")})`);
  check(codes.includes(result.error.code), `${what} was refused as ${result.error.code} (${result.error.message}), not ${codes.join(" or ")}`);
  return result.error;
}

/** A call's result; a CallError fails the case with its kind and words. */
export async function call<T>(what: string, sent: Promise<T>): Promise<T> {
  try {
    return await sent;
  } catch (error) {
    if (error instanceof CallError) throw new CaseFailure(`${what} failed (${error.kind}): ${error.message}`);
    throw error;
  }
}

/** The CallError a call must end in, of one of the kinds; a reply, or another kind, fails the case. */
export async function callFails(what: string, sent: Promise<unknown>, kinds: readonly ClientErrorKind[]): Promise<CallError> {
  let reply: unknown;
  try {
    reply = await sent;
  } catch (error) {
    if (!(error instanceof CallError)) throw error;
    check(kinds.includes(error.kind), `${what} failed as ${error.kind} (${error.message}), not ${kinds.join(" or ")}`);
    return error;
  }
  throw new CaseFailure(`${what} answered ${shown(reply)}; it must fail as ${kinds.join(" or ")}`);
}

export const b64 = (text: string | Uint8Array): string => Buffer.from(text).toString("base64");
export const unb64 = (data: string): string => Buffer.from(data, "base64").toString("utf8");

/** exec.run's result with stdout and stderr decoded. */
export type Ran = Omit<ExecRunResult, "stdout" | "stderr"> & { stdout: string; stderr: string; bytes: number };

export interface RunOptions extends CallOptions {
  cwd?: string;
  env?: Record<string, string>;
  user?: string;
  stdin?: string;
  timeoutMs?: number;
  maxOutput?: number;
}

/** exec.run of argv, decoded; a CallError fails the case. */
export async function run(client: ComputerClient, argv: string[], options: RunOptions = {}): Promise<Ran> {
  const { signal, stdin, timeoutMs = 30_000, ...rest } = options;
  const params = { argv, timeoutMs, ...rest, ...(stdin === undefined ? {} : { stdin: b64(stdin) }) };
  const result = await call(`exec.run ${shown(argv, 80)}`, client.call("exec.run", params, { signal }));
  const stdout = Buffer.from(result.stdout, "base64");
  return { ...result, stdout: stdout.toString("utf8"), stderr: unb64(result.stderr), bytes: stdout.length };
}

/** exec.run that must exit 0; its stdout. */
export async function output(client: ComputerClient, argv: string[], options: RunOptions = {}): Promise<string> {
  const ran = await run(client, argv, options);
  check(
    ran.exitCode === 0,
    `${shown(argv, 80)} exited ${ran.exitCode ?? `by ${ran.signal}`}${ran.timedOut ? " (timed out)" : ""}: ${ran.stderr.trim().slice(0, 200)}`,
  );
  return ran.stdout;
}

/** A /proc status file's fields by name. */
export function statusFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}

export const CAPABILITY_SETS = ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] as const;

/**
 * What /proc/self/status says that breaks the line: a capability in any set, no no_new_privs,
 * or a field not reported. Empty when every set reads zero and NoNewPrivs 1. A field the status
 * leaves out (gVisor's /proc has no CapAmb or NoNewPrivs) is taken from the kernel's own answer
 * where one is given: util-linux's `setpriv --dump`, which asks by prctl.
 */
export function privilegeProblems(status: string, dump?: string): string[] {
  const fields = statusFields(status);
  const asked = dump === undefined ? undefined : setprivFields(dump);
  const problems: string[] = [];
  for (const set of CAPABILITY_SETS) {
    const value = fields.get(set);
    // A kernel with no ambient set (prctl says EINVAL: "[unsupported]") holds no ambient capability.
    if (value === undefined && set === "CapAmb" && asked?.ambient !== undefined) {
      if (asked.ambient !== "[none]" && asked.ambient !== "[unsupported]") problems.push(`the ambient capabilities are ${asked.ambient}, not none`);
    } else if (value === undefined) problems.push(`${set} is not reported`);
    else if (!/^0+$/.test(value)) problems.push(`${set} is ${value}, not 0000000000000000`);
  }
  const nnp = fields.get("NoNewPrivs") ?? asked?.noNewPrivs;
  if (nnp === undefined) problems.push("NoNewPrivs is not reported");
  else if (nnp !== "1") problems.push(`NoNewPrivs is ${nnp}, not 1`);
  return problems;
}

/** The fields of `setpriv --dump` the privilege line needs. */
function setprivFields(dump: string): { noNewPrivs?: string; ambient?: string } {
  const fields = statusFields(dump);
  const noNewPrivs = fields.get("no_new_privs");
  const ambient = fields.get("Ambient capabilities");
  return { ...(noNewPrivs !== undefined ? { noNewPrivs } : {}), ...(ambient !== undefined ? { ambient } : {}) };
}

/**
 * A program's /proc/self/status in the computer, and what breaks the privilege line; where the
 * status leaves a field out, the kernel is asked by `setpriv --dump` when the image has it.
 */
export async function privilegeOf(client: ComputerClient, signal: AbortSignal): Promise<{ status: string; problems: string[] }> {
  const status = await output(client, ["cat", "/proc/self/status"], { signal });
  const problems = privilegeProblems(status);
  if (!problems.some((p) => p.endsWith("is not reported"))) return { status, problems };
  const dump = await run(client, ["setpriv", "--dump"], { signal });
  // setpriv exits 1 after its dump where the secure bits cannot be read (gVisor): the lines before stand.
  return { status, problems: dump.stdout.includes("no_new_privs:") ? privilegeProblems(status, dump.stdout) : problems };
}

/** The real uid and gid /proc/self/status reports. */
export function idsOf(status: string): { uid: number; gid: number } | undefined {
  const fields = statusFields(status);
  const uid = Number(fields.get("Uid")?.split(/\s+/)[0]);
  const gid = Number(fields.get("Gid")?.split(/\s+/)[0]);
  return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
}

/** Polls read until done accepts, every stepMs, for at most boundMs; the last value read. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, boundMs: number, signal: AbortSignal, stepMs = 500): Promise<T> {
  const end = Date.now() + boundMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() >= end || signal.aborted) return value;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}
