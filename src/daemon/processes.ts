// Helpers over the process methods: a stream followed to the process's end, the whole table, and
// exec.run's output as text.
import { asFailure, type CallOptions, type ComputerClient } from "./client.js";
import { type ExecRunResult, MAX_CHUNK_BYTES, MAX_READ_WAIT_MS, type ProcessInfo, type ProcessStream } from "./protocol.js";
import { ok, type Result } from "./result.js";

export interface ReadAllOptions extends CallOptions {
  /** Where to start, in bytes since the process started (default 0). */
  offset?: number;
  /** How long each read waits for new bytes (default and most 30 s). */
  waitMs?: number;
}

export interface ReadAll {
  data: Uint8Array;
  /** Where a later read would start. */
  nextOffset: number;
  /** The bytes the ring had dropped before they were read. */
  dropped: number;
}

/** Pages a stream by offset, one call in flight, until the process has ended and nothing is left. */
export async function readAll(client: ComputerClient, id: string, stream: ProcessStream, options: ReadAllOptions = {}): Promise<Result<ReadAll>> {
  const { signal, waitMs = MAX_READ_WAIT_MS } = options;
  let offset = options.offset ?? 0;
  let dropped = 0;
  const parts: Buffer[] = [];
  try {
    for (;;) {
      const read = await client.call("process.read", { id, stream, offset, maxBytes: MAX_CHUNK_BYTES, waitMs }, { signal });
      parts.push(Buffer.from(read.data, "base64"));
      dropped += read.dropped;
      offset = read.nextOffset;
      if (read.exited) break;
    }
    return ok({ data: new Uint8Array(Buffer.concat(parts)), nextOffset: offset, dropped });
  } catch (error) {
    return asFailure(error);
  }
}

/** Every process in the table, in start order, paging process.list while it is truncated. */
export async function listProcesses(client: ComputerClient, options: CallOptions = {}): Promise<Result<ProcessInfo[]>> {
  const { signal } = options;
  const processes: ProcessInfo[] = [];
  try {
    let from: string | undefined;
    for (;;) {
      const page = await client.call("process.list", from === undefined ? {} : { from }, { signal });
      processes.push(...page.processes);
      if (!page.truncated || page.next === undefined) break;
      from = page.next;
    }
    return ok(processes);
  } catch (error) {
    return asFailure(error);
  }
}

/** exec.run's result with its streams as text: the protocol gives them as base64 bytes, decoded here as UTF-8. */
export type ExecRunText = Omit<ExecRunResult, "stdout" | "stderr"> & { stdout: string; stderr: string };

/** exec.run's result as text (`const ran = runText(await client.call("exec.run", { argv }))`; `ran.stdout` is what the program printed). */
export function runText(result: ExecRunResult): ExecRunText {
  return { ...result, stdout: Buffer.from(result.stdout, "base64").toString("utf8"), stderr: Buffer.from(result.stderr, "base64").toString("utf8") };
}
