// Init's words at its start, for a computer whose log driver keeps nothing (a pool's: it speaks
// the protocol on its stdout, servesStdio). Its stdout and stderr are attached before it starts,
// without stdin (the claim's alone: the first attach with stdin takes it for good), so the last
// line of a refusal is read there; the attach is closed once init serves, or the computer is gone.
import type { Duplex } from "node:stream";
import { ok, type Result } from "../../daemon/result.js";
import type { DockerEngine } from "../api.js";
import { failure } from "../containers.js";
import { Frames } from "../frames.js";

/** How long the last line waits for the stream to end (the engine ends it when init exits). */
const END_MS = 2_000;
/** What is kept of what init said: its last bytes. */
const KEEP = 4096;

export interface StartWords {
  /** The last line init wrote, once its stream ended (or END_MS passed); "" when it said nothing. */
  last(): Promise<string>;
  close(): void;
}

/** The container's stdout and stderr, attached before its start. */
export async function attachWords(engine: DockerEngine, id: string, name: string, signal?: AbortSignal): Promise<Result<StartWords>> {
  const attached = await engine.attach(id, { stdin: false }, { signal, timeoutMs: 30_000 });
  if (!attached.ok || !attached.value) return failure(engine, `attaching to ${name}'s output before its start`, attached);
  const socket: Duplex = attached.value;
  let said = "";
  const keep = (chunk: Buffer) => {
    said = (said + chunk.toString("utf8")).slice(-KEEP);
  };
  const frames = new Frames(keep);
  frames.on("data", keep);
  socket.on("error", () => frames.destroy());
  socket.pipe(frames);
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return ok({
    last: async () => {
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, END_MS).unref())]);
      return said.trim().split("\n").filter(Boolean).pop() ?? "";
    },
    close: () => void socket.destroy(),
  });
}
