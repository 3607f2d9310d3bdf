// The file helpers that go past one call: whole files in chunks (512 KiB read, 736 KiB written), and trees as tar
// archives streamed through tar.push / tar.pull. Every push or pull that began is ended,
// however it ends: finished, failed, left by its consumer, or aborted. On a connection that took
// up frames (past the spec's wire) the bytes travel as themselves, a push keeps several writes in
// flight and a pull reads ahead, the daemon keeping their order.
import { asFailure, type CallOptions, type ComputerClient } from "./client.js";
import { type FramedMethod, type FramedParamsOf, type FramedResultOf, MAX_WIRE_FRAME_BYTES } from "./frames.js";
import { MAX_CHUNK_BYTES } from "./protocol.js";
import { fail, ok, type Result } from "./result.js";

/** Reads in flight at once for one file: enough to hide a round trip, few enough to bound memory. */
const READ_WINDOW = 4;
/** Writes in flight at once for the middle of one file. */
const WRITE_WINDOW = 4;
/** A framed write's bytes: a frame's most (bench/files-tar.mjs measured 256 KiB, 512 KiB and 1 MiB). */
const FRAMED_WRITE_BYTES = MAX_WIRE_FRAME_BYTES;
/** A framed push's writes in flight, and a framed pull's reads ahead. */
const PUSH_WINDOW = 4;
const PULL_AHEAD = 4;
/**
 * The bytes one files.write or tar.push.write carries. A read gives at most 512 KiB; a write is
 * bound by its line alone (1 MiB), so it carries more: 736 KiB is 981 KiB of base64, leaving
 * 43 KiB of the line for the rest, a path of PATH_MAX escaped six times over included. Fewer
 * writes, fewer round trips: a push sends each after the last one's reply.
 */
export const WRITE_CHUNK_BYTES = 736 * 1024;
/** The bound on ending a push or pull after a failure or an abort, which has no signal of its own. */
const END_BOUND_MS = 10_000;

export interface WriteFileOptions extends CallOptions {
  /** Set with the last chunk, so a read-only file of any size can be written. */
  mode?: number;
  /** Make missing directories. */
  parents?: boolean;
}

/** The client's framed calls, when it took frames up. */
function framedOf(
  client: ComputerClient,
): (<M extends FramedMethod>(method: M, params: FramedParamsOf<M>, options?: CallOptions) => Promise<FramedResultOf<M>>) | undefined {
  return client.framed === true && client.callFramed ? client.callFramed.bind(client) : undefined;
}

/** A file's bytes, read in chunks of at most 512 KiB, several in flight. */
export async function readFile(client: ComputerClient, path: string, options: CallOptions = {}): Promise<Result<Uint8Array>> {
  const { signal } = options;
  const framed = framedOf(client);
  const readAt = (offset: number) =>
    framed
      ? framed("files.read", { path, offset, length: MAX_CHUNK_BYTES }, { signal })
      : client.call("files.read", { path, offset, length: MAX_CHUNK_BYTES }, { signal });
  try {
    const first = await readAt(0);
    // Each chunk's base64 is decoded in place into one buffer of the size first read (grown when
    // the file grows meanwhile): no buffer a chunk, and no copy of the whole at the end.
    const into = new Growing(first.size);
    let offset = into.put(first.data);
    if (first.eof) return ok(into.bytes());
    // Reads run ahead by the file's size as first read; the loop still ends on eof alone,
    // so a file that grows or shrinks meanwhile is read as the daemon gives it.
    const inFlight: Array<ReturnType<typeof readAt>> = [];
    let next = offset;
    const fill = () => {
      while (inFlight.length < READ_WINDOW && (inFlight.length === 0 || next < Math.max(first.size, offset + MAX_CHUNK_BYTES))) {
        inFlight.push(readAt(next));
        next += MAX_CHUNK_BYTES;
      }
    };
    for (;;) {
      fill();
      const chunk = await inFlight.shift()!;
      const read = into.put(chunk.data);
      offset += read;
      if (chunk.eof) break;
      if (read < MAX_CHUNK_BYTES) {
        // A short chunk before the end: what ran ahead read from the wrong offsets.
        await Promise.allSettled(inFlight);
        inFlight.length = 0;
        next = offset;
      }
    }
    // Replies still running ahead past eof are not needed; let them settle quietly.
    for (const r of inFlight) r.catch(() => {});
    return ok(into.bytes());
  } catch (error) {
    return asFailure(error);
  }
}

/** Bytes put (or decoded from base64) in place, at the end of what is there. */
class Growing {
  #buffer: Buffer;
  #length = 0;
  constructor(size: number) {
    // Never from the shared pool: the bytes given back own their ArrayBuffer.
    this.#buffer = Buffer.allocUnsafeSlow(size);
  }
  /** Puts data (bytes, or base64) after the bytes so far; gives how many it added. */
  put(data: string | Uint8Array): number {
    const padding = typeof data !== "string" ? 0 : data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
    const need = this.#length + (typeof data === "string" ? Math.ceil(data.length / 4) * 3 - padding : data.length);
    if (need > this.#buffer.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(need, this.#buffer.length * 2));
      this.#buffer.copy(bigger, 0, 0, this.#length);
      this.#buffer = bigger;
    }
    let added = data.length;
    if (typeof data === "string") added = this.#buffer.write(data, this.#length, "base64");
    else this.#buffer.set(data, this.#length);
    this.#length += added;
    return added;
  }
  bytes(): Uint8Array {
    return new Uint8Array(this.#buffer.buffer, this.#buffer.byteOffset, this.#length);
  }
}

/** Writes a whole file: the first chunk replaces it, the mode goes with the last. */
export async function writeFile(client: ComputerClient, path: string, bytes: Uint8Array, options: WriteFileOptions = {}): Promise<Result<{ size: number }>> {
  const { signal, mode, parents } = options;
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const framed = framedOf(client);
  const chunkBytes = framed ? FRAMED_WRITE_BYTES : WRITE_CHUNK_BYTES;
  const chunks = Math.max(1, Math.ceil(data.length / chunkBytes));
  const write = (i: number, params: { offset?: number; mode?: number; parents?: boolean }) => {
    const piece = data.subarray(i * chunkBytes, (i + 1) * chunkBytes);
    return framed
      ? framed("files.write", { path, data: piece, ...params }, { signal })
      : client.call("files.write", { path, data: piece.toString("base64"), ...params }, { signal });
  };
  const withMode = mode === undefined ? {} : { mode };
  try {
    let written = await write(0, { ...(parents ? { parents } : {}), ...(chunks === 1 ? withMode : {}) });
    if (chunks === 1) return ok({ size: written.size });
    // The middle chunks at their offsets, several at once: each is its own pwrite.
    let nextChunk = 1;
    const worker = async () => {
      while (nextChunk < chunks - 1) {
        const i = nextChunk++;
        await write(i, { offset: i * chunkBytes });
      }
    };
    const workers = Array.from({ length: Math.min(WRITE_WINDOW, chunks - 2) }, worker);
    const settled = await Promise.allSettled(workers);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
    const last = chunks - 1;
    written = await write(last, { offset: last * chunkBytes, ...withMode });
    return ok({ size: written.size });
  } catch (error) {
    return asFailure(error);
  }
}

export interface PushTarOptions extends CallOptions {
  /**
   * The source lends its chunks: it fills a chunk's memory again once the chunk after next is
   * asked for (a file read into two buffers in turn), so a big push allocates nothing per read.
   * The push then copies each chunk, before it asks for the one after next, into writes of its
   * own, each reused once its write is answered.
   */
  lent?: boolean;
}

/**
 * Extracts a tar archive into dir (made if missing). The push owns its source: unless the source
 * was read to its end, its return() is called however the push ends, so a pull piped in is ended.
 * Unless the source lends its chunks (options.lent), a chunk's memory is sent as it is, after the
 * source has moved on: each chunk is then memory of its own (as Node's streams give), never a
 * buffer the source fills again.
 */
export async function pushTar(
  client: ComputerClient,
  dir: string,
  source: Uint8Array | AsyncIterable<Uint8Array>,
  options: PushTarOptions = {},
): Promise<Result<{ entries: number }>> {
  const { signal } = options;
  const iterator = source instanceof Uint8Array ? once(source) : source[Symbol.asyncIterator]();
  const framed = framedOf(client);
  const chunkBytes = framed ? FRAMED_WRITE_BYTES : WRITE_CHUNK_BYTES;
  // Framed, up to PUSH_WINDOW writes are in flight, which the daemon runs in the order sent; on the
  // spec's wire each is sent after the last one's reply, the next encoded while one crosses.
  const window = framed ? PUSH_WINDOW : 1;
  let sourceDone = false;
  let id: string | undefined;
  let ended = false;
  const inFlight: Array<Promise<unknown>> = [];
  try {
    ({ id } = await client.call("tar.push.begin", { path: dir }, { signal }));
    const pushId = id;
    // A frame carries a write's pieces as they are; a line carries their base64, joined and
    // encoded before the wait, so while the write before it crosses.
    const writer = framed
      ? (pieces: Buffer[]) => () => framed("tar.push.write", { id: pushId, data: pieces }, { signal })
      : (pieces: Buffer[]) => {
          const data = Buffer.concat(pieces).toString("base64");
          return () => client.call("tar.push.write", { id: pushId, data }, { signal });
        };
    const gathered = options.lent ? new Copying(chunkBytes) : new Gathering(chunkBytes);
    const send = async (pieces: Buffer[]) => {
      const write = writer(pieces);
      while (inFlight.length >= window) await inFlight.shift();
      const written = write();
      const answered = () => gathered.answered(pieces);
      written.then(answered, answered); // a failure is awaited in its turn, or dropped when one before it failed
      inFlight.push(written);
    };
    let pending = iterator.next();
    for (;;) {
      const step = await pending;
      if (step.done) {
        sourceDone = true;
        break;
      }
      // Ask the source for its next chunk while this one is written: a pull and a push overlap.
      pending = iterator.next();
      pending.catch(() => {}); // settled below, or dropped when the push fails first
      for (const pieces of gathered.add(Buffer.from(step.value.buffer, step.value.byteOffset, step.value.byteLength))) await send(pieces);
    }
    const rest = gathered.rest();
    if (rest.length > 0) await send(rest);
    while (inFlight.length > 0) await inFlight.shift();
    const end = await client.call("tar.push.end", { id }, { signal });
    ended = true;
    return ok({ entries: end.entries });
  } catch (error) {
    return asFailure(error);
  } finally {
    await Promise.allSettled(inFlight);
    if (id !== undefined && !ended) await endQuietly(client, "tar.push.end", id);
    if (!sourceDone) await iterator.return?.().catch(() => {});
  }
}

/** A source's chunks cut into writes of exactly size bytes (the last one shorter). */
abstract class Writes {
  protected bytes = 0;
  constructor(readonly size: number) {}
  /** Takes a chunk; gives the writes it filled. */
  add(chunk: Buffer): Buffer[][] {
    const full: Buffer[][] = [];
    for (let at = 0; at < chunk.length;) {
      const take = Math.min(this.size - this.bytes, chunk.length - at);
      this.put(chunk.subarray(at, at + take));
      this.bytes += take;
      at += take;
      if (this.bytes === this.size) full.push(this.rest());
    }
    return full;
  }
  /** Puts a piece at this.bytes into the write being filled. */
  protected abstract put(piece: Buffer): void;
  /** What is in the write being filled so far, taken. */
  abstract rest(): Buffer[];
  /** A write was answered. */
  answered(_write: Buffer[]): void {}
}

/**
 * Each write a list of views of the chunks' own memory: a big chunk is not copied, and a tree's
 * small pieces (tar headers, padding, small files, a pipe's 64 KiB reads) are not a write each.
 */
class Gathering extends Writes {
  #pieces: Buffer[] = [];
  protected put(piece: Buffer): void {
    this.#pieces.push(piece);
  }
  rest(): Buffer[] {
    const pieces = this.#pieces;
    this.#pieces = [];
    this.bytes = 0;
    return pieces;
  }
}

/**
 * A lent source's chunks copied, each write in a buffer of the push's own, used again once the
 * write is answered: a push holds at most its writes in flight and the one it fills.
 */
class Copying extends Writes {
  #free: ArrayBuffer[] = [];
  #filling: Buffer | undefined;
  protected put(piece: Buffer): void {
    if (!this.#filling) {
      const free = this.#free.pop();
      this.#filling = free ? Buffer.from(free) : Buffer.allocUnsafeSlow(this.size);
    }
    piece.copy(this.#filling, this.bytes);
  }
  rest(): Buffer[] {
    const filling = this.#filling;
    this.#filling = undefined;
    const write = filling ? [filling.subarray(0, this.bytes)] : [];
    this.bytes = 0;
    return write;
  }
  override answered(write: Buffer[]): void {
    this.#free.push(write[0]!.buffer as ArrayBuffer);
  }
}

export interface PullTarStream {
  /** One tar.pull.read each time the loop asks for a chunk; a loop left early ends the pull. */
  chunks: AsyncIterable<Uint8Array>;
  /** How the pull ended: ok with its bytes once read to its end, else what stopped it. */
  done: Promise<Result<{ bytes: number }>>;
}

/** A file's or a directory's tree as a tar archive, read chunk by chunk as the consumer asks. */
export function pullTarStream(client: ComputerClient, path: string, options: CallOptions = {}): PullTarStream {
  const { signal } = options;
  const framed = framedOf(client);
  let settle!: (result: Result<{ bytes: number }>) => void;
  const done = new Promise<Result<{ bytes: number }>>((resolve) => (settle = resolve));
  let id: string | undefined;
  let bytes = 0;
  let finished = false;
  let inFlight: Promise<unknown> = Promise.resolve();
  // Framed, reads run ahead of the consumer, oldest first: the daemon answers them in the order sent.
  const ahead: Array<Promise<{ data: Uint8Array; eof: boolean }>> = [];
  const readNext = (pull: string) =>
    framed
      ? framed("tar.pull.read", { id: pull, maxBytes: MAX_CHUNK_BYTES }, { signal })
      : client.call("tar.pull.read", { id: pull, maxBytes: MAX_CHUNK_BYTES }, { signal }).then((r) => ({ data: Buffer.from(r.data, "base64"), eof: r.eof }));
  const finish = async (result: Result<{ bytes: number }>) => {
    if (finished) return;
    finished = true;
    await Promise.allSettled(ahead.splice(0));
    if (id !== undefined) await endQuietly(client, "tar.pull.end", id);
    id = undefined;
    settle(result);
  };
  const read = async (): Promise<IteratorResult<Uint8Array>> => {
    if (finished) return { done: true, value: undefined };
    try {
      if (id === undefined) ({ id } = await client.call("tar.pull.begin", { path }, { signal }));
      while (ahead.length < (framed ? PULL_AHEAD : 1)) {
        const next = readNext(id);
        next.catch(() => {}); // awaited in its turn, or settled as the pull ends
        ahead.push(next);
      }
      const reply = await ahead.shift()!;
      const data = reply.data;
      bytes += data.length;
      const chunk = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      if (!reply.eof) return { done: false, value: chunk };
      // The reads still ahead answer eof with no bytes.
      await Promise.allSettled(ahead.splice(0));
      const pullId = id;
      id = undefined;
      await client.call("tar.pull.end", { id: pullId }, { signal });
      await finish(ok({ bytes }));
      return data.length > 0 ? { done: false, value: chunk } : { done: true, value: undefined };
    } catch (error) {
      await finish(asFailure(error));
      throw error;
    }
  };
  const iterator: AsyncIterator<Uint8Array> = {
    next: () => {
      const step = inFlight.then(read, read);
      inFlight = step.catch(() => {});
      return step;
    },
    // A consumer that stops early (a loop's break, a push that failed) ends the pull, once any
    // read it still has in flight has come back.
    return: async () => {
      await inFlight;
      await finish(fail("aborted", `the pull of ${path} was left before its end, after ${bytes} bytes`));
      return { done: true, value: undefined };
    },
  };
  return { chunks: { [Symbol.asyncIterator]: () => iterator }, done };
}

/** A file's or a directory's tree as one tar archive in memory. */
export async function pullTar(client: ComputerClient, path: string, options: CallOptions = {}): Promise<Result<Uint8Array>> {
  const { chunks, done } = pullTarStream(client, path, options);
  const parts: Uint8Array[] = [];
  try {
    for await (const chunk of chunks) parts.push(chunk);
  } catch {
    // done says why.
  }
  const ended = await done;
  if (!ended.ok) return ended;
  return ok(new Uint8Array(Buffer.concat(parts)));
}

/** Ends a push or pull after a failure: bounded on its own, since the caller's signal may be the reason. */
async function endQuietly(client: ComputerClient, method: "tar.push.end" | "tar.pull.end", id: string): Promise<void> {
  await client.call(method, { id }, { signal: AbortSignal.timeout(END_BOUND_MS) }).catch(() => {});
}

function once(bytes: Uint8Array): AsyncIterator<Uint8Array> {
  let given = false;
  return {
    next: async () => {
      if (given) return { done: true, value: undefined };
      given = true;
      return { done: false, value: bytes };
    },
  };
}
