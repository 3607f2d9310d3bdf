// A tar archive of regular files, streamed: each file's bytes are read from their source as the
// push asks for them, so a batch is never held whole in memory. A name that does not fit ustar's
// 100 bytes (or is not ASCII) goes in a pax record before its header.

const BLOCK = 512;

/** One regular file of an archive: its name inside the push's folder, mode, size and bytes. */
export interface StreamEntry {
  name: string;
  mode: number;
  size: number;
  /**
   * The file's bytes, exactly size of them. Lent: the caller is done with each chunk before it
   * asks for the one after next, so the entry may read into buffers it fills again.
   */
  bytes(lent?: boolean): AsyncIterable<Uint8Array>;
}

function header(name: string, mode: number, size: number, type: "0" | "x"): Buffer {
  const h = Buffer.alloc(BLOCK);
  const put = (offset: number, length: number, text: string) => h.write(text, offset, Math.min(length, Buffer.byteLength(text)), "utf8");
  const octal = (offset: number, length: number, value: number) => put(offset, length, `${value.toString(8).padStart(length - 1, "0")}\0`);
  put(0, 100, name);
  octal(100, 8, mode & 0o7777);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, size);
  octal(136, 12, 0);
  h.fill(" ", 148, 156);
  put(156, 1, type);
  put(257, 6, "ustar\0");
  put(263, 2, "00");
  let sum = 0;
  for (const byte of h) sum += byte;
  put(148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return h;
}

const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** A pax record "<len> path=<name>\n", whose length counts its own digits. */
function paxPath(name: string): Buffer {
  const body = ` path=${name}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length += 1;
  return Buffer.from(`${length}${body}`, "utf8");
}

/**
 * The archive's bytes, entry by entry; a source that gives more or fewer bytes than its size
 * throws. Lent: each entry's chunks are asked for lent, and the archive's chunks are lent in turn.
 */
export async function* tarStream(entries: Iterable<StreamEntry>, lent = false): AsyncGenerator<Uint8Array> {
  for (const entry of entries) {
    const long = Buffer.byteLength(entry.name) > 100 || /[^\x20-\x7e]/.test(entry.name);
    if (long) {
      const record = paxPath(entry.name);
      yield header("PaxHeader", 0o644, record.length, "x");
      yield Buffer.concat([record, padding(record.length)]);
    }
    yield header(long ? entry.name.slice(-99).replace(/[^\x20-\x7e]/g, "_") : entry.name, entry.mode, entry.size, "0");
    let sent = 0;
    for await (const chunk of entry.bytes(lent)) {
      sent += chunk.byteLength;
      if (sent > entry.size) throw new Error(`${entry.name} grew while it was sent (past its ${entry.size} bytes)`);
      yield chunk;
    }
    if (sent !== entry.size) throw new Error(`${entry.name} shrank while it was sent (${sent} of its ${entry.size} bytes)`);
    yield padding(entry.size);
  }
  yield Buffer.alloc(2 * BLOCK);
}
