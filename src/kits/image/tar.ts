// The few ustar archives the provider writes and reads through the Engine API: regular files,
// directories and symbolic links owned by 0:0 and dated at the epoch (the egress image's daemon, a
// computer's /etc/passwd and system trust store, a snapshot's tmpfs mount points), and
// the entries at given paths of an archive Docker hands back (GET /containers/{id}/archive).

export interface TarFile {
  /** Relative to where the archive is put: "computerd", "passwd". */
  path: string;
  mode: number;
  bytes: Uint8Array;
  /** A directory (bytes empty): its mode set where it is already there. */
  dir?: true;
  /** A symbolic link to this path (bytes empty), replacing what is there. */
  link?: string;
}

function header(file: TarFile): Buffer {
  const h = Buffer.alloc(512);
  const put = (text: string, at: number) => h.write(text, at, "ascii");
  const octal = (n: number, width: number) => `${n.toString(8).padStart(width - 1, "0")}\0`;
  put(file.path, 0);
  put(octal(file.mode, 8), 100);
  put(octal(0, 8), 108);
  put(octal(0, 8), 116);
  put(octal(file.bytes.length, 12), 124);
  put(octal(0, 12), 136);
  put("        ", 148); // the checksum counts its own field as spaces
  put(file.dir ? "5" : file.link !== undefined ? "2" : "0", 156);
  if (file.link !== undefined) put(file.link, 157);
  put("ustar\0", 257);
  put("00", 263);
  const sum = h.reduce((a, b) => a + b, 0);
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return h;
}

/** An archive of regular files and directories, each owned by 0:0 and dated at the epoch. */
export function tarOf(files: readonly TarFile[]): Buffer {
  const parts = files.flatMap((f) => [header(f), Buffer.from(f.bytes), Buffer.alloc((512 - (f.bytes.length % 512)) % 512)]);
  return Buffer.concat([...parts, Buffer.alloc(1024)]);
}

/** An entry read back: a regular file's bytes, or a symbolic link's target. */
export type TarEntry = { bytes: Buffer } | { link: string };

const text = (b: Buffer) => b.toString("utf8").replace(/\0.*$/s, "");

/** A pax header's records ("<length> <key>=<value>\n" each), by key. */
function paxRecords(body: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  for (let at = 0; at < body.length;) {
    const space = body.indexOf(0x20, at);
    const length = Number.parseInt(body.subarray(at, space).toString("ascii"), 10);
    if (space < 0 || !Number.isInteger(length) || length <= 0) break;
    const record = body.subarray(space + 1, at + length - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) records.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return records;
}

/** Each entry of an archive in order, with its whole name (a pax header's path, GNU's L entry, ustar's prefix read) and a leading "./" dropped. */
function* entriesOf(tar: Buffer): Generator<{ name: string; type: string; body: Buffer; link: string }> {
  let longName: string | undefined;
  let longLink: string | undefined;
  for (let at = 0; at + 512 <= tar.length;) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) return;
    const size = Number.parseInt(text(h.subarray(124, 136)).trim() || "0", 8);
    if (!Number.isInteger(size) || size < 0 || at + 512 + size > tar.length) return;
    const body = tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    const type = String.fromCharCode(h[156]!);
    if (type === "x") {
      const records = paxRecords(body);
      longName = records.get("path") ?? longName;
      longLink = records.get("linkpath") ?? longLink;
    } else if (type === "L") longName = text(body);
    else if (type === "K") longLink = text(body);
    else if (type !== "g") {
      const prefix = text(h.subarray(257, 263)).startsWith("ustar") ? text(h.subarray(345, 500)) : "";
      const name = longName ?? (prefix ? `${prefix}/${text(h.subarray(0, 100))}` : text(h.subarray(0, 100)));
      yield { name: name.replace(/^\.\//, ""), type, body, link: longLink ?? text(h.subarray(157, 257)) };
      [longName, longLink] = [undefined, undefined];
    }
  }
}

/** A regular file's bytes or a link's target; undefined for any other kind. */
const entryOf = (e: { type: string; body: Buffer; link: string }): TarEntry | undefined =>
  e.type === "2" ? { link: e.link } : e.type === "0" || e.type === "\0" ? { bytes: e.body } : undefined;

/** The first entry of an archive of one path (GET /containers/{id}/archive of a file): its bytes or its link's target. */
export function firstEntryOf(tar: Buffer): TarEntry | undefined {
  for (const e of entriesOf(tar)) return entryOf(e);
  return undefined;
}

/**
 * The entries at these paths of an archive Docker hands back (GET /containers/{id}/archive of a
 * folder, its names "./passwd" or "etc/passwd" as it names them): a regular file's bytes or a
 * link's target, by path; a path the archive does not hold, or holds as anything else, is not in
 * the map. A long name is read whole, so no long name is taken for a short one.
 */
export function entriesAt(tar: Buffer, paths: readonly string[]): Map<string, TarEntry> {
  const wanted = new Set(paths);
  const found = new Map<string, TarEntry>();
  for (const e of entriesOf(tar)) {
    const entry = wanted.has(e.name) ? entryOf(e) : undefined;
    if (entry) found.set(e.name, entry);
    if (found.size === wanted.size) break;
  }
  return found;
}
