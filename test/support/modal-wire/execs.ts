// One exec as the task command router holds it: the process (a docker exec of the Docker-backed
// fake), its stdout and stderr kept whole so a read resumes at any offset, its stdin taken in
// order by offset (a write at the wrong offset is refused, as the router refuses it), and its exit.
import type { ModalProcess } from "../../../src/modal/sdk.js";

class Output {
  readonly chunks: Buffer[] = [];
  size = 0;
  ended = false;
  #waiters: (() => void)[] = [];

  push(chunk: Buffer | undefined): void {
    if (chunk) {
      this.chunks.push(chunk);
      this.size += chunk.length;
    } else this.ended = true;
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** The bytes from offset on, as they come, until the stream ends or the caller stops. */
  async *from(offset: number, stopped: () => boolean): AsyncGenerator<Buffer> {
    let index = 0;
    let start = 0;
    for (;;) {
      if (stopped()) return;
      if (index < this.chunks.length) {
        const chunk = this.chunks[index++]!;
        const end = start + chunk.length;
        if (end > offset) yield chunk.subarray(Math.max(0, offset - start));
        start = end;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Wakes every reader (one that stopped then returns). */
  wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}

async function pump(stream: ReadableStream<Uint8Array>, into: Output): Promise<void> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      into.push(Buffer.from(value));
    }
  } catch {
    // The exec ended under the read: what came is kept.
  }
  into.push(undefined);
}

export class Exec {
  readonly stdout = new Output();
  readonly stderr = new Output();
  readonly exited: Promise<number>;
  code: number | undefined;
  stdinWritten = 0;
  stdinClosed = false;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(readonly process: ModalProcess) {
    this.#writer = process.stdin.getWriter();
    void pump(process.stdout, this.stdout);
    void pump(process.stderr, this.stderr);
    this.exited = process.wait().then((code) => (this.code = code));
  }

  /** A write at its offset: an offset already written is a retry (answered, not written twice); one beyond is refused. */
  write(offset: number, data: Buffer, eof: boolean): Promise<"ok" | "gap"> {
    const next = this.#queue.then(async () => {
      if (offset > this.stdinWritten) return "gap" as const;
      const fresh = data.subarray(this.stdinWritten - offset);
      if (fresh.length > 0 && !this.stdinClosed) {
        await this.#writer.write(fresh).catch(() => undefined);
        this.stdinWritten += fresh.length;
      }
      if (eof && !this.stdinClosed) {
        this.stdinClosed = true;
        await this.#writer.close().catch(() => undefined);
      }
      return "ok" as const;
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }
}
