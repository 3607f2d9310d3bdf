// Docker's multiplexed stream, as an attached exec without a TTY (and a container's logs) come
// back: frames of an 8-byte header (the stream, 1 stdout or 2 stderr, three zero bytes, the
// payload's length as a big-endian uint32) and the payload. Stdout passes through as bytes, with
// the socket's backpressure; stderr goes to a callback.
import { Transform, type TransformCallback } from "node:stream";

const HEADER = 8;
const STDOUT = 1;
const STDERR = 2;

export class Frames extends Transform {
  readonly #onStderr: (chunk: Buffer) => void;
  /** A header split across chunks. */
  #header: Buffer = Buffer.alloc(0);
  #stream = 0;
  /** Payload bytes still to come in the current frame. */
  #left = 0;

  constructor(onStderr: (chunk: Buffer) => void = () => {}) {
    super();
    this.#onStderr = onStderr;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.#left === 0) {
        const need = HEADER - this.#header.length;
        const take = chunk.subarray(at, at + need);
        this.#header = this.#header.length ? Buffer.concat([this.#header, take]) : take;
        at += take.length;
        if (this.#header.length < HEADER) break;
        this.#stream = this.#header[0]!;
        this.#left = this.#header.readUInt32BE(4);
        this.#header = Buffer.alloc(0);
        continue;
      }
      const payload = chunk.subarray(at, at + this.#left);
      at += payload.length;
      this.#left -= payload.length;
      if (this.#stream === STDOUT) this.push(payload);
      else if (this.#stream === STDERR) this.#onStderr(payload);
    }
    done();
  }
}

/** Both streams of a whole multiplexed reply (a container's logs), as text. */
export function framesText(bytes: Buffer): { stdout: string; stderr: string } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let at = 0;
  while (at + HEADER <= bytes.length) {
    const size = bytes.readUInt32BE(at + 4);
    const payload = bytes.subarray(at + HEADER, at + HEADER + size);
    (bytes[at] === STDERR ? err : out).push(payload);
    at += HEADER + size;
  }
  return { stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") };
}
