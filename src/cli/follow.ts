// A running process's stream copied to a local one as it comes, one read in flight, and the
// process's end as an exit code (a signal as 128 + its number, as a shell reports it).
import { constants } from "node:os";
import type { Writable } from "node:stream";
import type { ComputerClient } from "../daemon/client.js";
import { MAX_CHUNK_BYTES, MAX_READ_WAIT_MS, type ProcessStream } from "../daemon/protocol.js";

/** Copies the stream to out until the process has ended and nothing is left. */
export async function follow(client: ComputerClient, id: string, stream: ProcessStream, out: Writable, signal: AbortSignal): Promise<void> {
  let offset = 0;
  for (;;) {
    const read = await client.call("process.read", { id, stream, offset, maxBytes: MAX_CHUNK_BYTES, waitMs: MAX_READ_WAIT_MS }, { signal });
    if (read.data.length > 0) {
      const bytes = Buffer.from(read.data, "base64");
      // Waits for the local side to take the bytes, so a slow reader holds the reads back.
      await new Promise<void>((resolve, reject) => out.write(bytes, (error) => (error ? reject(error) : resolve())));
    }
    offset = read.nextOffset;
    if (read.exited) return;
  }
}

/** Waits for the process's end: its exit code, or 128 + the signal's number. */
export async function exitOf(client: ComputerClient, id: string, signal: AbortSignal): Promise<number> {
  for (;;) {
    const waited = await client.call("process.wait", { id, timeoutMs: MAX_READ_WAIT_MS }, { signal });
    if (waited.running) continue;
    if (waited.exitCode !== null) return waited.exitCode;
    const number = waited.signal ? constants.signals[`SIG${waited.signal}` as keyof typeof constants.signals] : undefined;
    return 128 + (number ?? 0);
  }
}

/**
 * Sends a local stream to the process's stdin, one write after the other, and closes it at the
 * stream's end. Stops quietly when the program no longer takes input (it closed its stdin, or ended).
 */
export async function feed(client: ComputerClient, id: string, input: NodeJS.ReadableStream, signal: AbortSignal): Promise<void> {
  try {
    for await (const chunk of input) {
      await client.call("process.write", { id, data: Buffer.from(chunk as Buffer).toString("base64") }, { signal });
    }
    await client.call("process.write", { id, close: true }, { signal });
  } catch {
    // The program's stdin is gone (closed, or the program ended): what it did not read is dropped, as a pipe drops it.
  }
}
