// DaemonClient: JSON-RPC 2.0, one object a line, over any duplex byte stream (a child's stdio,
// a socket, a vendor's exec stream). Requests run concurrently and replies are matched by id.
import type { Duplex, Readable, Writable } from "node:stream";
import type { z } from "zod";
import { FRAME_LEAD_BYTES, FRAME_MARK, FRAMED, type FramedMethod, type FramedParamsOf, type FramedResultOf, MAX_WIRE_FRAME_BYTES } from "./frames.js";
import {
  CANCEL_METHOD,
  type Hello,
  type ClientErrorKind,
  isLimitIssue,
  MAX_LINE_BYTES,
  METHODS,
  type Method,
  type ParamsOf,
  type ResultOf,
  RpcErrorObject,
} from "./protocol.js";
import { fail, type ResultError } from "./result.js";
import { parseLine, requestLine } from "./wire.js";

export interface CallOptions {
  signal?: AbortSignal;
}

/** A connection's client: computerd through DaemonClient, or a provider's in-process client. */
export interface ComputerClient {
  /** One method, params and result checked against src/daemon/protocol.ts. Rejects with CallError only. */
  call<M extends Method>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<ResultOf<M>>;
  /** Any method by name, unchecked (the conformance suite's unknown-method case). */
  request(method: string, params: unknown, options?: CallOptions): Promise<unknown>;
  /** Ends the connection; every call in flight settles as closed. */
  close(): Promise<void>;
  /** Past the spec's wire: true once hello took up frames on this connection. */
  readonly framed?: boolean;
  /** A call whose data travels as a frame's bytes, never base64; only where framed is true. */
  callFramed?<M extends FramedMethod>(method: M, params: FramedParamsOf<M>, options?: CallOptions): Promise<FramedResultOf<M>>;
}

/** How a call failed: the daemon's error kind, or closed / protocol from this side. */
export class CallError extends Error {
  override readonly name = "CallError";
  constructor(
    readonly kind: ClientErrorKind,
    message: string,
    readonly method: string,
    readonly code?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A stream with both directions: a Duplex (a socket), or a pair (a child's stdout and stdin). */
export type ByteStream = { readable: Readable; writable: Writable } | Duplex;

interface Pending {
  method: string;
  schema: z.ZodType | undefined;
  resolve(value: unknown): void;
  reject(error: CallError): void;
  cleanup(): void;
}

// JSON-RPC's own codes, for a reply that carries no kind of ours.
const STANDARD_CODES: Record<number, ClientErrorKind> = {
  [-32700]: "invalid",
  [-32600]: "invalid",
  [-32601]: "unsupported",
  [-32602]: "invalid",
};

/** A frame's bytes: its pieces, written one after another, and their length, counted once. */
interface FrameBytes {
  pieces: readonly Uint8Array[];
  length: number;
}

export class DaemonClient implements ComputerClient {
  readonly #readable: Readable;
  readonly #writable: Writable;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #parts: Buffer[] = [];
  #partsBytes = 0;
  #framed = false;
  /** The frame being read: its whole length, lead included, and its header's (-1 while the lead is read). */
  #frame: { total: number; head: number } | undefined;
  #closedReason: string | undefined;
  #resolveClosed!: (reason: string) => void;
  /** Settles once the connection has ended, with why in words. */
  readonly closed: Promise<string> = new Promise((resolve) => (this.#resolveClosed = resolve));

  constructor(stream: ByteStream) {
    const pair = stream as { readable: unknown; writable: unknown };
    if (isStream(pair.readable) && isStream(pair.writable)) {
      this.#readable = pair.readable as Readable;
      this.#writable = pair.writable as Writable;
    } else {
      this.#readable = stream as Duplex;
      this.#writable = stream as Duplex;
    }
    this.#readable.on("data", this.#onData);
    this.#readable.on("end", this.#onEnd);
    this.#readable.on("close", this.#onEnd);
    this.#readable.on("error", this.#onStreamError);
    if ((this.#writable as unknown) !== this.#readable) this.#writable.on("error", this.#onStreamError);
  }

  /** The connection has ended (closed here, or by the other side). */
  get isClosed(): boolean {
    return this.#closedReason !== undefined;
  }

  call<M extends Method>(method: M, params: ParamsOf<M>, options: CallOptions = {}): Promise<ResultOf<M>> {
    const spec = METHODS[method] as { params: z.ZodType; result: z.ZodType } | undefined;
    if (!spec) return Promise.reject(new CallError("invalid", `${String(method)} is not a method of the protocol`, method));
    const checked = spec.params.safeParse(params ?? {});
    if (!checked.success) {
      // A bound the daemon answers as limit is limit here too; anything else wrong is invalid.
      const kind = checked.error.issues.every(isLimitIssue) ? "limit" : "invalid";
      return Promise.reject(new CallError(kind, `${method}: ${issuesInWords(checked.error)}`, method));
    }
    return this.#send(method, checked.data, spec.result, options) as Promise<ResultOf<M>>;
  }

  request(method: string, params: unknown, options: CallOptions = {}): Promise<unknown> {
    return this.#send(method, params ?? {}, undefined, options);
  }

  get framed(): boolean {
    return this.#framed;
  }

  /** Frames from here on, both ways: hello took them up (helloWithin, for a bridge that carries any byte). */
  useFrames(): void {
    this.#framed = true;
  }

  callFramed<M extends FramedMethod>(method: M, params: FramedParamsOf<M>, options: CallOptions = {}): Promise<FramedResultOf<M>> {
    if (!this.#framed) return Promise.reject(new CallError("invalid", `${method}: frames were not taken up on this connection`, method));
    const { data, ...rest } = params as { data?: Uint8Array | readonly Uint8Array[] };
    const pieces = data === undefined ? [] : data instanceof Uint8Array ? [data] : data;
    const length = pieces.reduce((n, p) => n + p.length, 0);
    // The method's own checks, on the params as the spec has them: data "" in the header.
    const checked = METHODS[method].params.safeParse(data === undefined ? rest : { ...rest, data: "" });
    if (!checked.success) {
      const kind = checked.error.issues.every(isLimitIssue) ? "limit" : "invalid";
      return Promise.reject(new CallError(kind, `${method}: ${issuesInWords(checked.error)}`, method));
    }
    if (length > MAX_WIRE_FRAME_BYTES) {
      return Promise.reject(
        new CallError(
          "limit",
          `${method}: ${length} bytes are over the ${MAX_WIRE_FRAME_BYTES} (1 MiB) one frame carries; send them in smaller chunks`,
          method,
        ),
      );
    }
    return this.#send(method, checked.data, FRAMED[method].result, options, { pieces, length }) as Promise<FramedResultOf<M>>;
  }

  async close(): Promise<void> {
    if (this.#closedReason === undefined) this.#end("the connection was closed by this client");
    await new Promise<void>((resolve) => {
      if (this.#writable.writableFinished || this.#writable.destroyed) return resolve();
      const done = () => resolve();
      this.#writable.once("finish", done);
      this.#writable.once("close", done);
      this.#writable.once("error", done);
      this.#writable.end();
    });
    this.#readable.destroy();
    if ((this.#writable as unknown) !== this.#readable) this.#writable.destroy();
  }

  #send(method: string, params: unknown, schema: z.ZodType | undefined, options: CallOptions, frame?: FrameBytes): Promise<unknown> {
    const { signal } = options;
    if (this.#closedReason !== undefined) {
      return Promise.reject(new CallError("closed", `${method} was not sent: ${this.#closedReason}`, method));
    }
    if (signal?.aborted) return Promise.reject(new CallError("aborted", `${method} was aborted before it was sent`, method));
    const id = this.#nextId++;
    // Encoded once: its length is checked and the same bytes are written. Refused here rather
    // than by the daemon, so an oversized line never crosses the stream.
    let bytes: Buffer;
    try {
      bytes = requestLine(id, method, params);
    } catch (error) {
      return Promise.reject(new CallError("invalid", `${method}: its params are not JSON`, method, undefined, { cause: error }));
    }
    if (bytes.length > MAX_LINE_BYTES) {
      return Promise.reject(
        new CallError("limit", `${method}: the request is ${bytes.length} bytes, over the protocol's 1 MiB line; send it in smaller parts`, method),
      );
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.#pending.delete(id)) return;
        this.#write(Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", method: CANCEL_METHOD, params: { id } })}\n`));
        reject(new CallError("aborted", `${method} was aborted`, method));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        method,
        schema,
        resolve,
        reject,
        cleanup: () => signal?.removeEventListener("abort", onAbort),
      });
      if (frame) this.#writeFrame(bytes.subarray(0, bytes.length - 1), frame);
      else this.#write(bytes);
    });
  }

  #write(line: Buffer): void {
    if (this.#closedReason !== undefined || this.#writable.destroyed || this.#writable.writableEnded) return;
    this.#writable.write(line);
  }

  /** A frame: its lead, its header and its bytes' pieces, written together and never copied into one buffer. */
  #writeFrame(head: Buffer, { pieces, length }: FrameBytes): void {
    if (this.#closedReason !== undefined || this.#writable.destroyed || this.#writable.writableEnded) return;
    const lead = Buffer.allocUnsafe(FRAME_LEAD_BYTES);
    lead[0] = FRAME_MARK;
    lead.writeUInt32BE(head.length, 1);
    lead.writeUInt32BE(length, 5);
    this.#writable.cork();
    this.#writable.write(Buffer.concat([lead, head]));
    for (const piece of pieces) if (piece.length > 0) this.#writable.write(piece);
    this.#writable.uncork();
  }

  #onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    while (data.length > 0 && this.#closedReason === undefined) {
      if (!this.#frame && this.#framed && this.#partsBytes === 0 && data[0] === FRAME_MARK) this.#frame = { total: FRAME_LEAD_BYTES, head: -1 };
      if (this.#frame) {
        data = this.#onFrameData(data);
        continue;
      }
      const newline = data.indexOf(10);
      if (newline < 0) break;
      const head = data.subarray(0, newline);
      const line = this.#parts.length === 0 ? head : Buffer.concat([...this.#parts, head]);
      this.#parts = [];
      this.#partsBytes = 0;
      if (line.length > MAX_LINE_BYTES) return this.#end("the daemon sent a line over the protocol's 1 MiB");
      this.#onLine(line);
      data = data.subarray(newline + 1);
    }
    if (data.length > 0) {
      this.#parts.push(data);
      this.#partsBytes += data.length;
      if (this.#partsBytes > MAX_LINE_BYTES) this.#end("the daemon sent a line over the protocol's 1 MiB");
    }
  };

  /** Takes what the frame being read still needs from data, and gives the rest. */
  #onFrameData(data: Buffer): Buffer {
    const frame = this.#frame!;
    const want = frame.total - this.#partsBytes;
    if (data.length < want) {
      this.#parts.push(data);
      this.#partsBytes += data.length;
      return data.subarray(data.length);
    }
    // A frame whole in one chunk is read where it lies; one across chunks is copied once.
    const whole = this.#parts.length === 0 ? data.subarray(0, want) : Buffer.concat([...this.#parts, data.subarray(0, want)]);
    this.#parts = [];
    this.#partsBytes = 0;
    if (frame.head < 0) {
      const head = whole.readUInt32BE(1);
      const bytes = whole.readUInt32BE(5);
      if (head === 0 || head > MAX_LINE_BYTES || bytes > MAX_WIRE_FRAME_BYTES) {
        this.#end(`the daemon sent a frame of a ${head}-byte header and ${bytes} bytes, past the protocol's bounds`);
        return data.subarray(data.length);
      }
      this.#frame = { total: FRAME_LEAD_BYTES + head + bytes, head };
      this.#parts = [whole];
      this.#partsBytes = whole.length;
      return data.subarray(want);
    }
    this.#frame = undefined;
    const end = FRAME_LEAD_BYTES + frame.head;
    this.#onLine(whole.subarray(FRAME_LEAD_BYTES, end), whole.subarray(end));
    return data.subarray(want);
  }

  /** A line, or a frame's header and bytes. */
  #onLine(line: Buffer, bytes?: Buffer): void {
    if (line.length === 0) return;
    let message: unknown;
    try {
      message = parseLine(line);
    } catch {
      return; // not a reply: nothing to match it to, and the calls in flight still wait for theirs
    }
    if (typeof message !== "object" || message === null) return;
    const { id, result, error } = message as { id?: unknown; result?: unknown; error?: unknown };
    if (typeof id !== "number") return; // a notification, or a reply to nothing we sent
    const pending = this.#pending.get(id);
    if (!pending) return; // a reply to a call already aborted
    this.#pending.delete(id);
    pending.cleanup();
    const { method } = pending;
    if (error !== undefined) {
      const parsed = RpcErrorObject.safeParse(error);
      if (!parsed.success) {
        return pending.reject(new CallError("protocol", `${method}: the daemon's error reply is not a JSON-RPC error`, method));
      }
      const { code, message: words, data } = parsed.data;
      const kind: ClientErrorKind = data?.kind ?? STANDARD_CODES[code] ?? "protocol";
      return pending.reject(new CallError(kind, words, method, code));
    }
    if (!("result" in (message as object))) {
      return pending.reject(new CallError("protocol", `${method}: the daemon's reply has neither result nor error`, method));
    }
    if (bytes && typeof result === "object" && result !== null) (result as { data?: unknown }).data = bytes;
    if (!pending.schema) return pending.resolve(result);
    const checked = pending.schema.safeParse(result);
    if (!checked.success) {
      return pending.reject(new CallError("protocol", `${method}: the daemon's result does not match the protocol (${issuesInWords(checked.error)})`, method));
    }
    pending.resolve(checked.data);
  }

  #onEnd = (): void => {
    this.#end("the connection to the daemon ended");
  };

  #onStreamError = (error: Error): void => {
    // A write to a peer that has gone (a bridge killed, a socket closed) is the connection ending,
    // whichever the stream reports first: the same words as its end, with the cause.
    const code = (error as NodeJS.ErrnoException).code;
    this.#end(
      code === "EPIPE" || code === "ECONNRESET"
        ? `the connection to the daemon ended (${error.message})`
        : `the connection to the daemon failed: ${error.message}`,
    );
  };

  #end(reason: string): void {
    if (this.#closedReason !== undefined) return;
    this.#closedReason = reason;
    this.#parts = [];
    this.#partsBytes = 0;
    this.#frame = undefined;
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.cleanup();
      pending.reject(new CallError("closed", `${pending.method} got no reply: ${reason}`, pending.method));
    }
    this.#resolveClosed(reason);
  }
}

function isStream(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeof (value as { on?: unknown }).on === "function";
}

/** zod's issues as "path: words", never the values themselves (a value may be a secret). */
export function issuesInWords(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "params"}: ${issue.message}`).join("; ");
}

/** A call's failure as a result: a CallError keeps its kind; anything else is failed, in its words. */
export function asFailure(error: unknown): { ok: false; error: ResultError } {
  if (error instanceof CallError) return fail(error.kind, error.message);
  return fail("failed", error instanceof Error ? error.message : String(error));
}

/** An open connection to a computer's daemon (or the provider's in-process client). */
export interface Connection {
  client: ComputerClient;
  hello: Hello;
  /**
   * A browser's CDP target: a secret, never logged. servedHere: this process serves it through the
   * connection (a browser we run), so it answers only while the connection is open.
   */
  cdp?: { url: string; servedHere?: true };
  close(): Promise<void>;
}
