// A small ustar writer and reader, for the tar cases: the suite builds the archive it pushes and
// reads the one it pulls itself, so the check never leans on the tar it is checking.

export interface TarEntry {
  name: string;
  type: "file" | "dir" | "symlink";
  mode: number;
  data?: Uint8Array;
  linkname?: string;
}

const BLOCK = 512;
const TYPE_FLAG = { file: "0", dir: "5", symlink: "2" } as const;

function field(header: Buffer, offset: number, length: number, text: string): void {
  header.write(text, offset, Math.min(length, Buffer.byteLength(text)), "utf8");
}

function octal(header: Buffer, offset: number, length: number, value: number): void {
  field(header, offset, length, `${value.toString(8).padStart(length - 1, "0")}\0`);
}

/** A ustar archive of the entries, in order, ended by two zero blocks. */
export function tarOf(entries: TarEntry[]): Uint8Array {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.type === "file" ? (entry.data ?? new Uint8Array()) : new Uint8Array());
    const header = Buffer.alloc(BLOCK);
    field(header, 0, 100, entry.name);
    octal(header, 100, 8, entry.mode);
    octal(header, 108, 8, 0);
    octal(header, 116, 8, 0);
    octal(header, 124, 12, data.length);
    octal(header, 136, 12, Math.floor(Date.now() / 1000));
    header.fill(" ", 148, 156);
    field(header, 156, 1, TYPE_FLAG[entry.type]);
    if (entry.linkname) field(header, 157, 100, entry.linkname);
    field(header, 257, 6, "ustar\0");
    field(header, 263, 2, "00");
    let sum = 0;
    for (const byte of header) sum += byte;
    field(header, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
    parts.push(header, data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return new Uint8Array(Buffer.concat(parts));
}

function text(block: Buffer, offset: number, length: number): string {
  const raw = block.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? raw.length : end).toString("utf8");
}

/** The entries of a ustar or pax archive (pax path records applied); throws on a broken header. */
export function entriesOf(archive: Uint8Array): TarEntry[] {
  const bytes = Buffer.from(archive);
  const entries: TarEntry[] = [];
  let offset = 0;
  let paxPath: string | undefined;
  while (offset + BLOCK <= bytes.length) {
    const header = bytes.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(text(header, 124, 12).trim() || "0", 8);
    const flag = text(header, 156, 1) || "0";
    const prefix = text(header, 345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
    const data = bytes.subarray(offset + BLOCK, offset + BLOCK + size);
    if (!Number.isInteger(size) || size < 0) throw new Error(`the archive's header at ${offset} has no size`);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (flag === "x") {
      const match = /\d+ path=([^\n]*)\n/.exec(data.toString("utf8"));
      paxPath = match?.[1];
      continue;
    }
    if (flag === "g") continue;
    paxPath = undefined;
    const mode = parseInt(text(header, 100, 8).trim() || "0", 8);
    if (flag === "5") entries.push({ name: name.replace(/\/$/, ""), type: "dir", mode });
    else if (flag === "2") entries.push({ name, type: "symlink", mode, linkname: text(header, 157, 100) });
    else entries.push({ name, type: "file", mode, data: new Uint8Array(data) });
  }
  return entries;
}
