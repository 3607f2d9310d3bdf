// A connection to a Pod's daemon: computerd stdio through the exec subresource, its stdin and
// stdout the DaemonClient's stream. One deadline, helloMs, covers the exec's upgrade (at most
// callMs of it) and the hello after it; create's first connection retries while init comes up,
// and stops when the computer's container has ended.
import { boundedBy } from "../daemon/bound.js";
import type { Connection } from "../contract/provider.js";
import { fail, ok, type Result, type ResultError } from "../daemon/result.js";
import { DaemonClient } from "../daemon/client.js";
import { helloWithin } from "../daemon/hello.js";
import { BRIDGE } from "./commands.js";
import type { ExecStream } from "./exec.js";

/** Runs argv in the computer's container through exec. */
export type ExecRunner = (argv: readonly string[], options: { stdin: boolean; ms: number; signal?: AbortSignal | undefined }) => Promise<Result<ExecStream>>;

export interface BridgeOptions {
  target: string;
  helloMs: number;
  callMs: number;
  signal?: AbortSignal | undefined;
  /**
   * Create's first connection: try again while init comes up, within helloMs, asking between
   * tries why the computer will never answer (its container ended), undefined while it may.
   */
  retry?: { ended(signal: AbortSignal | undefined): Promise<string | undefined> } | undefined;
}

const RETRY_MS = 250;

/** Opens the bridge and says hello within helloMs and the caller's signal, trying again as retry says. */
export async function openBridge(run: ExecRunner, options: BridgeOptions): Promise<Result<Connection>> {
  const deadline = Date.now() + options.helloMs;
  for (;;) {
    const tried = await once(run, options, deadline - Date.now());
    if (tried.ok) return tried;
    const stop = await afterFailed(tried.error, options, deadline);
    if (stop) return stop;
  }
}

/** After a failed try: the failure to end with, or undefined to try again (retry, while the computer may yet answer). */
async function afterFailed(error: ResultError, options: BridgeOptions, deadline: number): Promise<Result<never> | undefined> {
  const { target, signal, retry } = options;
  if (signal?.aborted) return fail("aborted", `connecting to ${target} was aborted`);
  if (!retry || error.code === "not_found" || error.code === "gone") return { ok: false, error };
  if (Date.now() + RETRY_MS >= deadline)
    return fail("timeout", `the daemon in ${target} did not say hello within ${options.helloMs / 1000} s (${error.message})`);
  const [ended] = await Promise.all([retry.ended(signal), new Promise((resolve) => setTimeout(resolve, RETRY_MS))]);
  return ended === undefined ? undefined : fail("gone", `the daemon in ${target} will never answer: ${ended} (${error.message})`);
}

/** One try: the exec's upgrade, then hello, within what is left of the deadline. */
async function once(run: ExecRunner, options: BridgeOptions, remainingMs: number): Promise<Result<Connection>> {
  const within = boundedBy(Math.max(1, remainingMs), options.signal);
  const started = await run(BRIDGE, { stdin: true, ms: Math.max(1, Math.min(options.callMs, remainingMs)), signal: within.signal });
  if (!started.ok) return started;
  const exec = started.value;
  const client = new DaemonClient({ readable: exec.stdout, writable: exec.stdin });
  const close = async () => {
    await client.close();
    if (!exec.stdin.writableEnded) exec.stdin.end();
    exec.close();
  };
  const said = await helloWithin({
    client,
    who: "agentrun-kubernetes",
    target: options.target,
    bounded: within,
    boundMs: options.helloMs,
    caller: options.signal,
    close,
    words: () => exec.stderr(),
  });
  if (!said.ok) return said;
  return ok({ client, hello: said.value, close });
}
