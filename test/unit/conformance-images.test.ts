// The suite's PNG decoder and JPEG walker on images made here: every filter decodes, and each
// bound (bit depth, interlace, size, an inflate past IHDR, a cut-short file) is refused in words.
import { crc32, deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decodePng, jpegSize } from "../../src/conformance/images.js";

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, "latin1"), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

function png(width: number, height: number, rows: Buffer, { depth = 8, colour = 2, interlace = 0 } = {}): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  ihdr[9] = colour;
  ihdr[12] = interlace;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("decodePng", () => {
  it("decodes each filter to the same pixels", () => {
    // 2x2 RGB: red, green / blue, white; row 0 raw, row 1 under each filter in turn.
    const top = [255, 0, 0, 0, 255, 0];
    const bottom = [0, 0, 255, 255, 255, 255];
    const encode: Record<number, (i: number) => number> = {
      0: (i) => bottom[i]!,
      1: (i) => bottom[i]! - (i >= 3 ? bottom[i - 3]! : 0),
      2: (i) => bottom[i]! - top[i]!,
      3: (i) => bottom[i]! - (((i >= 3 ? bottom[i - 3]! : 0) + top[i]!) >> 1),
    };
    for (const [filter, f] of Object.entries(encode)) {
      const rows = Buffer.from([0, ...top, Number(filter), ...bottom.map((_, i) => f(i) & 0xff)]);
      const image = decodePng(png(2, 2, rows));
      expect([image.rgb(0, 0), image.rgb(1, 0), image.rgb(0, 1), image.rgb(1, 1)]).toEqual([
        [255, 0, 0],
        [0, 255, 0],
        [0, 0, 255],
        [255, 255, 255],
      ]);
    }
  });

  it.each<[string, Buffer, RegExp]>([
    ["no signature", Buffer.from("GIF89a"), /no PNG signature/],
    ["16 bits a channel", png(1, 1, Buffer.alloc(7), { depth: 16 }), /16 bits a channel, not 8/],
    ["interlaced", png(1, 1, Buffer.alloc(4), { interlace: 1 }), /interlaced/],
    ["a palette", png(1, 1, Buffer.alloc(2), { colour: 3 }), /colour type 3/],
    ["too wide", png(16385, 1, Buffer.alloc(4)), /past 16384 a side/],
    ["too many pixels", png(8192, 8192, Buffer.alloc(4)), /past 16384 a side or 33554432 pixels/],
    ["more pixels than IHDR gives", png(1, 1, Buffer.alloc(400)), /do not inflate to its 1x1/],
    ["fewer pixels than IHDR gives", png(2, 2, Buffer.alloc(3)), /inflate to 3 bytes, not the 14/],
    ["cut short", png(1, 1, Buffer.alloc(4)).subarray(0, 40), /runs past its end|no IEND/],
  ])("refuses %s", (_what, bytes, words) => {
    expect(() => decodePng(bytes)).toThrow(words);
  });
});

describe("jpegSize", () => {
  const sof = Buffer.from([0xff, 0xc0, 0, 11, 8, 0x01, 0x90, 0x02, 0x80, 1, 1, 0x11, 0]); // 640x400
  const sos = Buffer.from([0xff, 0xda, 0, 8, 1, 1, 0, 0, 0x3f, 0]);
  const scan = Buffer.from([0x12, 0xff, 0x00, 0x34, 0xff, 0xd0, 0x56]); // a stuffed 0xff and a restart marker
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8]), sof, sos, scan, Buffer.from([0xff, 0xd9])]);

  it("walks to the end and reads the frame's size", () => {
    expect(jpegSize(jpeg)).toEqual({ width: 640, height: 400 });
  });

  it("refuses one with no start, no end, or no frame header", () => {
    expect(() => jpegSize(Buffer.from("nope"))).toThrow(/no start of image/);
    expect(() => jpegSize(jpeg.subarray(0, jpeg.length - 2))).toThrow(/ends before its end of image/);
    expect(() => jpegSize(Buffer.concat([Buffer.from([0xff, 0xd8]), sos, scan, Buffer.from([0xff, 0xd9])]))).toThrow(/no frame header/);
  });
});
