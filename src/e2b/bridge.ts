// The bridge to init's socket through envd: computerd stdio as a background command run as root,
// with stdin kept open and no command timeout. Its stdout comes through onStdout (the SDK decodes
// it as a stream) and requests go in with sendStdin, one call after another: the two halves are the
// byte stream DaemonClient needs. close() kills the bridge (SIGKILL), which ends nothing else.
//
// The SDK ties a command's whole stream to the signal its run was given, so run gets a signal of
// its own that follows the connection's bound only until the start has answered: after that, the
// bound passing must not end a connection in use.
import { PassThrough, Writable } from "node:stream";
import { bridgeCommand } from "../kits/agent-child/install.js";
import { DaemonClient } from "../daemon/client.js";
import { helloWithin } from "../daemon/hello.js";
import type { Connection } from "../contract/provider.js";
import { ok, type Result, ResultFailure } from "../daemon/result.js";
import { boundedBy } from "../daemon/bound.js";
import { call } from "./calls.js";
import type { E2BCommandHandle, E2BSandbox } from "./sdk.js";

export interface BridgeOptions {
  /** The computer, in words. */
  target: string;
  /** The bridge's start and hello, together. */
  helloMs: number;
  /** Each sendStdin, kill and disconnect. */
  requestMs: number;
  signal?: AbortSignal | undefined;
}

/** A handle given up on, or closed: killed and disconnected, never waited on past requestMs. */
function end(handle: E2BCommandHandle, ms: number): Promise<void> {
  const bounded = (p: Promise<unknown>) => Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, ms).unref())]);
  return bounded(handle.kill())
    .then(() => bounded(handle.disconnect()))
    .then(() => undefined);
}

export async function openBridge(sandbox: E2BSandbox, o: BridgeOptions): Promise<Result<Connection>> {
  const within = boundedBy(o.helloMs, o.signal);
  const readable = new PassThrough();
  let stderr = "";
  const startOnly = new AbortController();
  const follow = () => startOnly.abort(within.signal.reason);
  within.signal.addEventListener("abort", follow, { once: true });
  const started = await call(
    (_signal, ms) =>
      sandbox.commands.run(bridgeCommand(), {
        background: true,
        user: "root",
        stdin: true,
        timeoutMs: 0,
        requestTimeoutMs: ms,
        signal: startOnly.signal,
        onStdout: (data) => void readable.write(Buffer.from(data, "utf8")),
        onStderr: (data) => void (stderr.length < 4096 && (stderr += data)),
      }),
    {
      what: `starting the bridge (computerd stdio) in ${o.target}`,
      ms: o.helloMs,
      signal: within.signal,
      // A bridge that lands after it was given up on is killed as it lands: it has no timeout of its own.
      late: (handle) => void end(handle, o.requestMs),
    },
  );
  within.signal.removeEventListener("abort", follow);
  if (!started.ok) return started;
  const handle = started.value;
  void handle
    .wait()
    .then(
      () => undefined,
      () => undefined,
    )
    .then(() => readable.end());

  // Requests go in one whole write at a time, in order, each its own bounded call.
  let queue: Promise<unknown> = Promise.resolve();
  const writable = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      queue = queue.then(async () => {
        const sent = await call((signal, ms) => sandbox.commands.sendStdin(handle.pid, new Uint8Array(chunk), { requestTimeoutMs: ms, signal }), {
          what: `sending to the bridge in ${o.target}`,
          ms: o.requestMs,
        });
        callback(sent.ok ? undefined : new ResultFailure(sent.error));
      });
    },
  });
  writable.on("error", () => undefined);
  const client = new DaemonClient({ readable, writable });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await client.close();
      await end(handle, o.requestMs);
      readable.end();
    })());
  const said = await helloWithin({
    client,
    who: "agentrun-e2b",
    target: o.target,
    bounded: within,
    boundMs: o.helloMs,
    caller: o.signal,
    close,
    words: () => stderr,
  });
  if (!said.ok) return said;
  return ok({ client, hello: said.value, close });
}
