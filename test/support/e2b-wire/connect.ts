// The Connect protocol as envd serves it to the e2b SDK (its transport is @connectrpc/connect-web
// with useBinaryFormat: false): a unary call is a POST of application/json answered by the message
// or, on an error, by the code's HTTP status and {code, message}; a server-streaming call is a POST
// of application/connect+json holding one enveloped request, answered 200 with enveloped messages
// and a last end-stream envelope (flag 0x02) carrying the error, if any. Written from the Connect
// protocol's specification (connectrpc.com/docs/protocol).
import type { IncomingMessage, ServerResponse } from "node:http";

/** Connect's error codes this server answers with, and the HTTP status a unary error carries. */
export const CODES = {
  canceled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  resource_exhausted: 429,
  failed_precondition: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  unauthenticated: 401,
} as const;
export type ConnectCode = keyof typeof CODES;

export class ConnectError extends Error {
  constructor(
    readonly code: ConnectCode,
    message: string,
  ) {
    super(message);
  }
}

const END_STREAM = 0x02;

/** One envelope: a flags byte, the length as 4 bytes big-endian, the JSON. */
export function envelope(flags: number, message: object): Buffer {
  const data = Buffer.from(JSON.stringify(message));
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(data.length, 1);
  return Buffer.concat([head, data]);
}

export async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A unary request's message, or why it is not one. */
export function unaryRequest(req: IncomingMessage, body: Buffer): Record<string, unknown> {
  if (!/^application\/json\b/.test(req.headers["content-type"] ?? "")) throw new ConnectError("invalid_argument", "a unary call is application/json");
  return body.length ? (JSON.parse(body.toString("utf8")) as Record<string, unknown>) : {};
}

/** A server-streaming request's one enveloped message. */
export function streamRequest(req: IncomingMessage, body: Buffer): Record<string, unknown> {
  if (!/^application\/connect\+json\b/.test(req.headers["content-type"] ?? ""))
    throw new ConnectError("invalid_argument", "a server-streaming call is application/connect+json");
  if (body.length < 5 || body.readUInt32BE(1) !== body.length - 5) throw new ConnectError("invalid_argument", "the request is not one whole envelope");
  return JSON.parse(body.subarray(5).toString("utf8")) as Record<string, unknown>;
}

export function answerUnary(res: ServerResponse, message: object): void {
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(message));
}

export function answerUnaryError(res: ServerResponse, error: ConnectError): void {
  res.writeHead(CODES[error.code], { "content-type": "application/json" }).end(JSON.stringify({ code: error.code, message: error.message }));
}

/** A server stream's response: its messages as they come, then its end, with an error or none. */
export class ServerStream {
  #ended = false;

  constructor(readonly res: ServerResponse) {
    res.writeHead(200, { "content-type": "application/connect+json" });
  }

  get open(): boolean {
    return !this.#ended && !this.res.destroyed;
  }

  send(message: object): void {
    if (this.open) this.res.write(envelope(0, message));
  }

  end(error?: ConnectError): void {
    if (!this.open) return;
    this.#ended = true;
    this.res.end(envelope(END_STREAM, error ? { error: { code: error.code, message: error.message } } : {}));
  }
}
