// Pulumi assets and archives as files to load: a string asset, a local file, or a folder (a file
// archive, or an asset archive of named assets), each under its home-relative destination. Paths
// are held to the home rule here, at check, naming the path; bytes are read only to hash and send.
import { readdir, stat } from "node:fs/promises";
import { posix, resolve } from "node:path";
import { fileChunks } from "../../src/inside/file-chunks.js";
import { homeRelative, underHome } from "../../src/inside/paths.js";
import { fileToLoad, type FileToLoad } from "../../src/inside/load.js";
import { fail, ok, type Refusal, type Result } from "../../src/daemon/result.js";
import { isObject, type Props } from "../secrets.js";

// The signatures the engine marks an asset and an archive with (sdk/go/common/resource/sig).
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17";
const ARCHIVE_SIG = "0def7320c3a5731c473e5ecbe6d01bc7";

export const isAsset = (v: unknown): v is Props => isObject(v) && v[SIG_KEY] === ASSET_SIG;
export const isArchive = (v: unknown): v is Props => isObject(v) && v[SIG_KEY] === ARCHIVE_SIG;

/** Where a file's bytes come from: a string, or a local file (absolute). */
export type Source = { text: string } | { file: string };

/** One file a resource loads: its home-relative path, where its bytes come from, and its mode. */
export interface Planned {
  path: string;
  source: Source;
  mode: number;
}

/** A file mode a step writes: the local file's permission bits (string assets: 0644). */
const STRING_MODE = 0o644;

const filesField = (key: string) => (key === "." ? "files" : `files.${key}`);

/**
 * Every file the map names, each under destination, or every refusal naming its path: an absolute
 * path, one that leaves the home, a NUL, a remote asset, a local file that is not there, a
 * tar or zip archive (folders only), and two entries landing on one path. named: how the words
 * name an entry's field (files.<key>; an app's files are one archive, entered as the key ".").
 */
export async function plan(files: Props, destination: string, base = process.cwd(), named = filesField): Promise<Result<Planned[]>> {
  const refusals: Refusal[] = [];
  const planned: Planned[] = [];
  const refuse = (field: string, message: string) => refusals.push({ field, message });
  const add = async (key: string, at: string, value: unknown): Promise<void> => {
    const field = named(key);
    if (isAsset(value)) {
      if (typeof value.text === "string") planned.push({ path: at, source: { text: value.text }, mode: STRING_MODE });
      else if (typeof value.path === "string") {
        const file = resolve(base, value.path);
        const st = await stat(file).catch(() => undefined);
        if (!st?.isFile()) return void refuse(key, `${field}: the local file ${value.path} is not there (or is not a file)`);
        planned.push({ path: at, source: { file }, mode: st.mode & 0o777 });
      } else refuse(key, `${field}: a remote asset (uri) is not fetched: give a local file or a string`);
      return;
    }
    if (isArchive(value)) {
      if (isObject(value.assets)) {
        for (const [name, inner] of Object.entries(value.assets)) {
          const under = underHome(at, name, `${field}'s entry`);
          if (!under.ok) refuse(key, under.error.message);
          else await add(key, under.value, inner);
        }
      } else if (typeof value.path === "string") {
        const dir = resolve(base, value.path);
        const st = await stat(dir).catch(() => undefined);
        if (!st?.isDirectory())
          return void refuse(key, `${field}: ${value.path} is not a local folder (a tar or zip archive is not unpacked: give its folder)`);
        for (const rel of await walk(dir)) {
          const mode = (await stat(resolve(dir, rel))).mode & 0o777;
          planned.push({ path: posix.join(at, rel), source: { file: resolve(dir, rel) }, mode });
        }
      } else refuse(key, `${field}: a remote archive (uri) is not fetched: give a local folder`);
      return;
    }
    refuse(key, `${field} must be an asset or an archive (fn::stringAsset, fn::fileAsset, fn::fileArchive, fn::assetArchive)`);
  };
  for (const [key, value] of Object.entries(files)) {
    const at = underHome(destination, key, "files' destination");
    if (!at.ok) refuse(key, at.error.message);
    else await add(key, at.value, value);
  }
  const seen = new Set<string>();
  for (const p of planned) {
    if (seen.has(p.path)) refuse("files", `two entries of files land on ${p.path}`);
    seen.add(p.path);
  }
  if (refusals.length) return fail("invalid", refusals.map((r) => r.message).join("; "), { field: refusals[0]!.field, refusals });
  return ok(planned);
}

/** The regular files under a folder, relative, in name order (links followed to their files). */
async function walk(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await readdir(resolve(dir, rel), { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    const st = await stat(resolve(dir, path)).catch(() => undefined);
    if (st?.isDirectory()) out.push(...(await walk(dir, path)));
    else if (st?.isFile()) out.push(path);
  }
  return out;
}

/** The destination folder, held to the home rule. */
export const destinationOf = (value: unknown) => homeRelative(value, "destination");

/** Each planned file with its size, ready to send (its sha256 taken as it is sent, or when asked first). */
export async function toLoad(planned: readonly Planned[]): Promise<FileToLoad[]> {
  return Promise.all(
    planned.map(async (p) => {
      if ("text" in p.source) {
        const bytes = Buffer.from(p.source.text, "utf8");
        return fileToLoad(p.path, p.mode, bytes.length, async function* () {
          yield bytes;
        });
      }
      const file = p.source.file;
      const { size } = await stat(file);
      return fileToLoad(p.path, p.mode, size, (lent) => fileChunks(file, size, lent));
    }),
  );
}
