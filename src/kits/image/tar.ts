// The few ustar archives the provider writes and reads through the Engine API: regular files,
// directories and symbolic links owned by 0:0 and dated at the epoch (the egress image's daemon, a
// computer's /etc/passwd and system trust store, a snapshot's tmpfs mount points), and
// the first entry of an archive Docker hands back (GET /containers/{id}/archive).

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

/** The first entry's bytes when it is a regular file, else undefined. */
export function firstFileOf(tar: Buffer): Buffer | undefined {
  const entry = firstEntryOf(tar);
  return entry && "bytes" in entry ? entry.bytes : undefined;
}

/** The first entry: a regular file's bytes, or a symbolic link's target; undefined for anything else. */
export function firstEntryOf(tar: Buffer): { bytes: Buffer } | { link: string } | undefined {
  if (tar.length < 512) return undefined;
  const type = String.fromCharCode(tar[156]!);
  if (type === "2") return { link: tar.subarray(157, 257).toString("utf8").replace(/\0.*$/s, "") };
  if (type !== "0" && type !== "\0") return undefined;
  const size = parseInt(tar.subarray(124, 136).toString("ascii").replace(/\0.*$/, "").trim(), 8);
  if (!Number.isFinite(size) || 512 + size > tar.length) return undefined;
  return { bytes: tar.subarray(512, 512 + size) };
}
