// The split log's framing: Daytona prefixes each stdout line of a session command's log with
// 01 01 01 and each stderr line with 02 02 02. A WebSocket message may hold several lines, part
// of one, or a prefix cut across two messages; this reads the bytes as they come.
import { STDERR_PREFIX, STDOUT_PREFIX } from "./constants.js";

export type Stream = "stdout" | "stderr";
export interface Piece {
  stream: Stream;
  data: Buffer;
}

const EMPTY = Buffer.alloc(0);

export class SplitOutput {
  #held: Buffer = EMPTY;
  /** Bytes before any prefix are stdout's. */
  #stream: Stream = "stdout";

  /** The pieces a chunk completes, in order; a prefix cut at its end waits for the next. */
  push(chunk: Uint8Array): Piece[] {
    const buf = this.#held.length ? Buffer.concat([this.#held, chunk]) : Buffer.from(chunk);
    this.#held = EMPTY;
    const out: Piece[] = [];
    let start = 0;
    const emit = (end: number) => {
      if (end > start) out.push({ stream: this.#stream, data: buf.subarray(start, end) });
    };
    let i = 0;
    while (i < buf.length) {
      const b = buf[i];
      if (b === STDOUT_PREFIX[0] || b === STDERR_PREFIX[0]) {
        const rest = buf.length - i;
        if (rest < 3 && buf.subarray(i).every((x) => x === b)) {
          emit(i);
          this.#held = Buffer.from(buf.subarray(i));
          return out;
        }
        if (rest >= 3 && buf[i + 1] === b && buf[i + 2] === b) {
          emit(i);
          this.#stream = b === STDOUT_PREFIX[0] ? "stdout" : "stderr";
          i += 3;
          start = i;
          continue;
        }
      }
      i += 1;
    }
    emit(buf.length);
    return out;
  }

  /** What is held at the end (a lone 01 or 02 that no prefix followed) is data after all. */
  end(): Piece[] {
    const held = this.#held;
    this.#held = EMPTY;
    return held.length ? [{ stream: this.#stream, data: held }] : [];
  }
}

/** Whole lines out of a byte stream; the rest waits for its newline. */
export class Lines {
  #parts: Buffer[] = [];

  push(data: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let start = 0;
    for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
      this.#parts.push(data.subarray(start, nl + 1));
      out.push(Buffer.concat(this.#parts));
      this.#parts = [];
      start = nl + 1;
    }
    if (start < data.length) this.#parts.push(Buffer.from(data.subarray(start)));
    return out;
  }

  rest(): Buffer | undefined {
    const rest = this.#parts.length ? Buffer.concat(this.#parts) : undefined;
    this.#parts = [];
    return rest;
  }
}

/** True for a request or a notification: an echoed input line, never a reply of the daemon's. */
export function isEcho(line: Buffer): boolean {
  try {
    const value = JSON.parse(line.toString("utf8")) as unknown;
    return typeof value === "object" && value !== null && "method" in value;
  } catch {
    return false;
  }
}
