// The few ustar archives the provider writes and reads through the Engine API: regular files and
// directories owned by 0:0 and dated at the epoch (the egress image's daemon, a computer's
// /etc/passwd, a snapshot's tmpfs mount points), and
// the first file of an archive Docker hands back (GET /containers/{id}/archive).

export interface TarFile {
  /** Relative to where the archive is put: "computerd", "passwd". */
  path: string;
  mode: number;
  bytes: Uint8Array;
  /** A directory (bytes empty): its mode set where it is already there. */
  dir?: true;
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
  put(file.dir ? "5" : "0", 156);
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
  if (tar.length < 512) return undefined;
  const type = String.fromCharCode(tar[156]!);
  if (type !== "0" && type !== "\0") return undefined;
  const size = parseInt(tar.subarray(124, 136).toString("ascii").replace(/\0.*$/, "").trim(), 8);
  if (!Number.isFinite(size) || 512 + size > tar.length) return undefined;
  return tar.subarray(512, 512 + size);
}
