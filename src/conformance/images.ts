// The suite's readers of what screen.shot and screen.watch send: a PNG decoded whole (8-bit,
// non-interlaced, at most 16384 pixels a side and 2^25 pixels, inflated no further than its
// IHDR gives), and a JPEG walked to its end for its size (the library's, src/contract/jpeg.ts).
import { inflateSync } from "node:zlib";

export { jpegSize } from "../contract/jpeg.js";

export const MAX_SIDE = 16384;
export const MAX_PIXELS = 2 ** 25;

export interface DecodedPng {
  width: number;
  height: number;
  /** The pixel's red, green and blue. */
  rgb(x: number, y: number): [number, number, number];
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Channels by colour type: grey, RGB, grey with alpha, RGBA. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

/** Decodes every pixel of a PNG, or throws in words saying what is wrong with it. */
export function decodePng(bytes: Uint8Array): DecodedPng {
  const { width, height, channels, idat } = pngChunks(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const stride = width * channels;
  const want = (stride + 1) * height;
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat), { maxOutputLength: want });
  } catch (error) {
    throw new Error(`the PNG's pixels do not inflate to its ${width}x${height}: ${(error as Error).message}`);
  }
  if (raw.length !== want) throw new Error(`the PNG's pixels inflate to ${raw.length} bytes, not the ${want} its IHDR gives`);
  const px = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const prev = y > 0 ? px.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    unfilter(raw.subarray(y * (stride + 1), (y + 1) * (stride + 1)), prev, px.subarray(y * stride, (y + 1) * stride), channels, y);
  }
  return {
    width,
    height,
    rgb(x, y) {
      const i = (y * width + x) * channels;
      return channels < 3 ? [px[i]!, px[i]!, px[i]!] : [px[i]!, px[i + 1]!, px[i + 2]!];
    },
  };
}

/** A PNG's chunks walked to IEND: its header, held to the bounds, and its pixel data. */
function pngChunks(b: Buffer): { width: number; height: number; channels: number; idat: Buffer[] } {
  if (b.length < 8 || !b.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG: no PNG signature");
  let off = 8;
  let header: { width: number; height: number; channels: number } | undefined;
  const idat: Buffer[] = [];
  let ended = false;
  while (off + 8 <= b.length) {
    const length = b.readUInt32BE(off);
    const type = b.toString("latin1", off + 4, off + 8);
    if (off + 12 + length > b.length) throw new Error(`the PNG's ${type} chunk runs past its end`);
    const data = b.subarray(off + 8, off + 8 + length);
    off += 12 + length;
    if (type === "IHDR") header = pngHeader(data);
    else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") {
      ended = true;
      break;
    }
  }
  if (!header) throw new Error("the PNG has no IHDR");
  if (!ended) throw new Error("the PNG has no IEND");
  return { ...header, idat };
}

/** The IHDR: 8 bits a channel, not interlaced, grey or RGB (with or without alpha), within the bounds. */
function pngHeader(data: Buffer): { width: number; height: number; channels: number } {
  const width = data.readUInt32BE(0);
  const height = data.readUInt32BE(4);
  const [depth, colour, , , interlace] = [data[8]!, data[9]!, data[10]!, data[11]!, data[12]!];
  if (depth !== 8) throw new Error(`the PNG has ${depth} bits a channel, not 8`);
  if (interlace !== 0) throw new Error("the PNG is interlaced");
  const channels = CHANNELS[colour] ?? 0;
  if (!channels) throw new Error(`the PNG's colour type ${colour} is not grey, RGB or RGBA`);
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS) {
    throw new Error(`the PNG is ${width}x${height}, past ${MAX_SIDE} a side or ${MAX_PIXELS} pixels`);
  }
  return { width, height, channels };
}

/** One row undone from its filter (its first byte) into out, given the row above. */
function unfilter(row: Buffer, prev: Buffer, out: Buffer, channels: number, y: number): void {
  const filter = row[0]!;
  const line = row.subarray(1);
  for (let i = 0; i < out.length; i++) {
    const a = i >= channels ? out[i - channels]! : 0;
    const up = prev[i]!;
    const c = i >= channels ? prev[i - channels]! : 0;
    let v = line[i]!;
    switch (filter) {
      case 0:
        break;
      case 1:
        v += a;
        break;
      case 2:
        v += up;
        break;
      case 3:
        v += (a + up) >> 1;
        break;
      case 4: {
        const p = a + up - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? up : c;
        break;
      }
      default:
        throw new Error(`the PNG's row ${y} has filter ${filter}, not 0 to 4`);
    }
    out[i] = v & 0xff;
  }
}
