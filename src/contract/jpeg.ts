// A JPEG's size, read from its frame header while the file is walked to its end marker, so a
// frame that is cut short is refused (a browser's live view, the conformance suite). No decoder.

/** A JPEG's size from its frame header, walked segment by segment to its end marker; throws in words. */
export function jpegSize(bytes: Uint8Array): { width: number; height: number } {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) throw new Error("not a JPEG: no start of image");
  let off = 2;
  let size: { width: number; height: number } | undefined;
  while (off + 4 <= b.length) {
    if (b[off] !== 0xff) throw new Error(`the JPEG has no marker at byte ${off}`);
    const marker = b[off + 1]!;
    if (marker === 0xd9) break;
    const length = b.readUInt16BE(off + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      size = { height: b.readUInt16BE(off + 5), width: b.readUInt16BE(off + 7) };
    }
    off += 2 + length;
    if (marker === 0xda) {
      // The scan's entropy-coded bytes run to the next marker that is not a stuffed 0 or a restart.
      while (off + 1 < b.length && !(b[off] === 0xff && b[off + 1] !== 0 && !(b[off + 1]! >= 0xd0 && b[off + 1]! <= 0xd7))) off++;
    }
  }
  if (off + 2 > b.length || b[off] !== 0xff || b[off + 1] !== 0xd9) throw new Error("the JPEG ends before its end of image");
  if (!size) throw new Error("the JPEG has no frame header");
  return size;
}
