// A connection to a Modal computer's daemon: computerd stdio through Modal's exec in binary mode,
// its stdin and stdout the DaemonClient's stream. Modal has no kill for an exec, so close() ends
// the bridge's stdin and waits up to 5 s for it to exit. One deadline, helloMs, covers the exec's
// start (at most callMs of it) and the hello after it.
import { Readable, Writable } from "node:stream";
import type { ReadableStream as NodeReadableStream, WritableStream as NodeWritableStream } from "node:stream/web";
import { DaemonClient } from "../daemon/client.js";
import { helloWithin } from "../daemon/hello.js";
import type { Connection } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { bounded, wordsOf } from "./calls.js";
import type { ModalProcess, ModalSandbox } from "./sdk.js";
import { boundedBy, type Bounded } from "../daemon/bound.js";

export const CLOSE_WAIT_MS = 5_000;
/** Between tries while init comes up (computerd stdio itself waits 3 s for the socket). */
const RETRY_MS = 500;

export interface BridgeOptions {
  argv: string[];
  helloMs: number;
  callMs: number;
  signal?: AbortSignal | undefined;
  /** Keep trying until init listens, within helloMs (create's first connection). */
  retry?: boolean;
}

function endStdin(process: ModalProcess): void {
  void process.stdin.close().catch(() => undefined);
}

async function once(sandbox: ModalSandbox, options: BridgeOptions, within: Bounded, remainingMs: number): Promise<Result<Connection>> {
  const started = await bounded(() => sandbox.exec(options.argv, { mode: "binary" }), {
    what: `the bridge's exec in ${sandbox.sandboxId}`,
    ms: Math.max(1, Math.min(options.callMs, remainingMs)),
    signal: within.signal,
    // A bridge that lands after it was given up on has its stdin closed as it lands, so it ends.
    late: endStdin,
  });
  if (!started.ok) return started;
  const process = started.value;
  const readable = Readable.fromWeb(process.stdout as unknown as NodeReadableStream<Uint8Array>);
  const writable = Writable.fromWeb(process.stdin as unknown as NodeWritableStream<Uint8Array>);
  writable.on("error", () => undefined);
  readable.on("error", () => undefined);
  const stderr = readText(process.stderr);
  const client = new DaemonClient({ readable, writable });
  const exited = process.wait().catch(() => undefined);
  const close = async () => {
    await client.close();
    if (!writable.writableEnded) writable.end();
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
    readable.destroy();
  };
  const said = await helloWithin({
    client,
    who: "agentrun-modal",
    frames: true,
    target: sandbox.sandboxId,
    bounded: within,
    boundMs: options.helloMs,
    caller: options.signal,
    close,
    // The bridge's stderr, as much as came within 200 ms.
    words: async () => wordsOf(await Promise.race([stderr, new Promise<string>((r) => setTimeout(() => r(""), 200))])),
  });
  if (!said.ok) return said;
  const hello = said.value;
  return ok({ client, hello, close });
}

async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text;
      if (text.length < 4096) text += Buffer.from(value).toString("utf8");
    }
  } catch {
    return text;
  }
}

/** Opens the bridge and says hello within helloMs and the caller's signal. */
export async function openBridge(sandbox: ModalSandbox, options: BridgeOptions): Promise<Result<Connection>> {
  const within = boundedBy(options.helloMs, options.signal);
  const { bound } = within;
  const deadline = Date.now() + options.helloMs;
  for (;;) {
    const tried = await once(sandbox, options, within, deadline - Date.now());
    if (tried.ok) return tried;
    if (options.signal?.aborted) return fail("aborted", `connecting to ${sandbox.sandboxId} was aborted`);
    if (bound.aborted || Date.now() + RETRY_MS >= deadline) {
      return fail("timeout", `the daemon in ${sandbox.sandboxId} did not say hello within ${options.helloMs / 1000} s (${tried.error.message})`);
    }
    if (!options.retry || tried.error.code === "gone" || tried.error.code === "not_found") return tried;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}
