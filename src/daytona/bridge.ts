// The bridge to init's socket through the toolbox's session API: computerd stdio as a session
// command of its own; its stdin is the command's input (whole lines, one call after another), its
// stdout the command's split log over a WebSocket. Together the two one-way halves are the duplex
// byte stream DaemonClient needs. close() deletes the session, which ends the bridge alone.
import { randomBytes } from "node:crypto";
import { PassThrough, Writable } from "node:stream";
import type WebSocket from "ws";
import { bridgeCommand } from "../kits/agent-child/install.js";
import { fail, ok, type Result, ResultFailure } from "../daemon/result.js";
import { isEcho, Lines, SplitOutput } from "./framing.js";
import type { Toolbox } from "./toolbox.js";

export interface Bridge {
  readable: PassThrough;
  writable: Writable;
  /** stderr of the bridge so far (its words when it could not reach the daemon). */
  stderr(): string;
  close(): Promise<void>;
}

/** Wires a followed log and an input call into a byte stream; apart from the session calls, for the framing tests. */
export function wire(
  socket: WebSocket,
  send: (line: string) => Promise<Result<undefined>>,
  onEnd: () => Promise<void>,
): Omit<Bridge, "close"> & { end(): Promise<void> } {
  const readable = new PassThrough();
  const split = new SplitOutput();
  const lines = new Lines();
  let stderr = "";
  const take = (pieces: ReturnType<SplitOutput["push"]>) => {
    for (const piece of pieces) {
      if (piece.stream === "stderr") {
        if (stderr.length < 4096) stderr += piece.data.toString("utf8");
        continue;
      }
      for (const line of lines.push(piece.data)) if (!isEcho(line)) readable.push(line);
    }
  };
  socket.on("message", (data: WebSocket.RawData) => {
    const chunk = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    take(split.push(chunk));
  });
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    take(split.end());
    const rest = lines.rest();
    if (rest && !isEcho(rest)) readable.push(rest);
    readable.push(null);
  };
  socket.on("close", finish);
  socket.on("error", finish);

  const out = new Lines();
  const writable = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      void (async () => {
        for (const line of out.push(chunk)) {
          const sent = await send(line.toString("utf8"));
          if (!sent.ok) return callback(new ResultFailure(sent.error));
        }
        callback();
      })();
    },
    final(callback) {
      void onEnd().then(() => callback());
    },
  });
  return {
    readable,
    writable,
    stderr: () => stderr,
    end: async () => {
      socket.close();
      finish();
    },
  };
}

/** Starts computerd stdio in a session of its own and follows its log; the session is deleted on any failure. */
export async function openBridge(toolbox: Toolbox, signal?: AbortSignal): Promise<Result<Bridge>> {
  const session = `agentrun-bridge-${randomBytes(6).toString("hex")}`;
  const made = await toolbox.createSession(session, signal);
  if (!made.ok) return made;
  const drop = () => toolbox.deleteSession(session).then(() => undefined);
  const cmd = await toolbox.exec(session, bridgeCommand(), "starting the bridge (computerd stdio)", signal);
  if (!cmd.ok) {
    await drop();
    return cmd;
  }
  const socket = toolbox.followLogs(session, cmd.value);
  const onAbort = () => socket.emit("error", new Error("connecting was aborted while the bridge's log opened"));
  signal?.addEventListener("abort", onAbort, { once: true });
  const opened = await new Promise<Result<undefined>>((resolve) => {
    socket.once("open", () => resolve(ok()));
    socket.once("error", (error: Error) => resolve(fail("unreachable", `the bridge's log could not be followed: ${error.message}`)));
    socket.once("unexpected-response", (_req: unknown, res: { statusCode?: number }) =>
      resolve(fail("unreachable", `the bridge's log answered ${res.statusCode ?? "?"}, not a WebSocket`)),
    );
  });
  signal?.removeEventListener("abort", onAbort);
  if (signal?.aborted && opened.ok) {
    socket.terminate();
    await drop();
    return fail("aborted", "connecting was aborted while the bridge's log opened");
  }
  if (!opened.ok) {
    socket.terminate();
    await drop();
    return opened;
  }
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      socket.close();
      await drop();
    })());
  const wired = wire(socket, (line) => toolbox.input(session, cmd.value, line), close);
  return ok({
    readable: wired.readable,
    writable: wired.writable,
    stderr: wired.stderr,
    close: async () => {
      await wired.end();
      await close();
    },
  });
}
