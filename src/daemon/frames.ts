// Frames, past the spec's wire, for a client that asked for them in hello: a request or reply whose
// data travels as its own bytes beside the JSON, never as base64. The daemon's side writes
// test/vectors/frames.json; test/unit/frames-vectors.test.ts holds these to it. docs/frames.md
// says the format.
import { z } from "zod";
import { METHODS } from "./protocol.js";

/** A frame opens with this byte, which no JSON line starts with. */
export const FRAME_MARK = 0x00;
/** The mark, then the header's and the bytes' lengths, each a big-endian uint32. */
export const FRAME_LEAD_BYTES = 9;
/** The frame format this library reads. */
export const FRAME_VERSION = 1;
/** The most bytes one frame carries, as a line carries at most 1 MiB; its header is a line's bound. */
export const MAX_WIRE_FRAME_BYTES = 1 << 20;
/** Methods whose params carry data: a frame carries it as bytes, the header's data "". */
export const BYTES_IN = ["files.write", "tar.push.write"] as const;
/** Methods whose result carries data: a request sent as a frame is answered by one. */
export const BYTES_OUT = ["files.read", "process.read", "screen.read", "screen.shot", "tar.pull.read"] as const;
/** Methods whose requests, on a framed connection, run in the order they came by their id. */
export const IN_ORDER = ["tar.pull.end", "tar.pull.read", "tar.push.end", "tar.push.write"] as const;

const Bytes = z.custom<Uint8Array<ArrayBufferLike>>((v) => v instanceof Uint8Array, "bytes");
/** A frame's bytes as one array, or as pieces the frame carries one after another (never joined into one buffer). */
const BytesIn = z.custom<Uint8Array<ArrayBufferLike> | readonly Uint8Array<ArrayBufferLike>[]>(
  (v) => v instanceof Uint8Array || (Array.isArray(v) && v.every((p) => p instanceof Uint8Array)),
  "bytes",
);
/** The framed forms of the methods this library sends as frames: data as bytes, never base64. */
export const FRAMED = {
  "files.read": { params: METHODS["files.read"].params, result: METHODS["files.read"].result.extend({ data: Bytes }) },
  "files.write": { params: METHODS["files.write"].params.extend({ data: BytesIn }), result: METHODS["files.write"].result },
  "tar.pull.read": { params: METHODS["tar.pull.read"].params, result: METHODS["tar.pull.read"].result.extend({ data: Bytes }) },
  "tar.push.write": { params: METHODS["tar.push.write"].params.extend({ data: BytesIn }), result: METHODS["tar.push.write"].result },
} as const;
export type FramedMethod = keyof typeof FRAMED;
export type FramedParamsOf<M extends FramedMethod> = z.input<(typeof FRAMED)[M]["params"]>;
export type FramedResultOf<M extends FramedMethod> = z.output<(typeof FRAMED)[M]["result"]>;
