// A computer's user by name. Docker runs it as uid:gid, which the image's /etc/passwd may not
// name (a shell's prompt then reads "I have no name!"), so before the computer starts the
// provider writes the image's /etc/passwd and /etc/group back with a line for the uid and one for
// the gid, each named agent (its home /work), when the image names neither. No mount: the files
// are the container's own, as the image's are. What an image's /etc holds is read once per image
// id (one archive call of /etc whole, tens of milliseconds on every create's path), and an image id
// names its content, so what was read never goes stale. On a remote engine the daemon goes into the
// same archive: each archive put is an extraction by the engine (Engine 20.10 re-executes itself
// for it: 90-110 ms here under load for a 10-byte file, 130-180 ms for the daemon), so a create
// makes one. The same archive puts an allowlisted computer's system trust store (system-trust.ts).
import type { CallOptions } from "../daemon/client.js";
import { ok, type Result } from "../daemon/result.js";
import type { DockerEngine } from "./api.js";
import { failure } from "./containers.js";
import { HOME } from "./constants.js";
import { type ImageTrust, imageTrustOf, TRUST_PATHS, trustFiles } from "./system-trust.js";
import { entriesAt, firstEntryOf, tarOf, type TarEntry, type TarFile } from "../kits/image/tar.js";

const CALL_MS = 30_000;
const NAME = "agent";

type Entries = string[][];
const entriesOf = (text: string): Entries =>
  text
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("#"))
    .map((l) => l.split(":"));

/** A name for a new entry: agent, or agent<id> when agent names another. */
const nameFor = (entries: Entries, id: number) => (entries.some((e) => e[0] === NAME) ? `${NAME}${id}` : NAME);

const withLine = (text: string, line: string) => `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}${line}\n`;

/** The image's /etc/passwd with a line for uid, or undefined when it names uid already. */
export function passwdWith(passwd: string, uid: number, gid: number): string | undefined {
  const entries = entriesOf(passwd);
  if (entries.some((e) => e[2] === String(uid))) return undefined;
  const name = nameFor(entries, uid);
  return withLine(passwd, `${name}:x:${uid}:${gid}:${name}:${HOME}:/bin/sh`);
}

/** The image's /etc/group with a line for gid, or undefined when it names gid already. */
export function groupWith(group: string, gid: number): string | undefined {
  const entries = entriesOf(group);
  if (entries.some((e) => e[2] === String(gid))) return undefined;
  return withLine(group, `${nameFor(entries, gid)}:x:${gid}:`);
}

/** An image's /etc/passwd and /etc/group as text, and its system trust bundle; undefined where the image has none. */
export interface ImageEtc {
  passwd: string | undefined;
  group: string | undefined;
  trust: ImageTrust | undefined;
}

/** The most images whose /etc is kept; past it the oldest read is dropped (and read again when asked). */
const KEPT_IMAGES = 64;

/** What each image's /etc held, by image id, read from the first container of it; a failed read is not kept. */
export class ImageEtcCache {
  readonly #byImage = new Map<string, Promise<Result<ImageEtc>>>();

  /** The image's /etc files, read from container id (made from image) when not read before. */
  read(engine: DockerEngine, image: string, id: string, options: CallOptions): Promise<Result<ImageEtc>> {
    let reading = this.#byImage.get(image);
    if (!reading) {
      reading = readEtc(engine, id, options).then((read) => {
        if (!read.ok) this.#byImage.delete(image);
        return read;
      });
      this.#byImage.set(image, reading);
      if (this.#byImage.size > KEPT_IMAGES) this.#byImage.delete(this.#byImage.keys().next().value!);
    }
    return reading;
  }
}

/** What create reads of an image's /etc, by path below it: its user's two files, and where its trust bundle may be. */
const ETC_PATHS = ["passwd", "group", ...TRUST_PATHS];

/** The folders above a path below /etc: "ssl/certs/ca.crt" has "ssl" and "ssl/certs". */
const foldersAbove = (p: string) =>
  p
    .split("/")
    .slice(0, -1)
    .map((_, i, parts) => parts.slice(0, i + 1).join("/"));

/** One path below /etc read alone, as the engine resolves it; undefined when the image has none. */
async function etcEntry(engine: DockerEngine, id: string, p: string, options: CallOptions): Promise<Result<TarEntry | undefined>> {
  const got = await engine.raw("GET", `/containers/${id}/archive`, { query: { path: `/etc/${p}` }, signal: options.signal, timeoutMs: CALL_MS });
  if (got.status === 404) return ok(undefined);
  if (!got.ok) return failure(engine, `reading /etc/${p} of ${id}`, got);
  return ok(firstEntryOf(got.value!));
}

/**
 * The image's /etc files, from the archive of /etc whole: one archive call, where a call for each
 * file was nine at once on the first create of an image in every up (each call is an extraction
 * by the engine, which Engine 20.10 makes by starting itself again). A path below a folder that is
 * a link (which the archive holds as the link and the engine follows) is read alone, and every
 * path is when the whole could not be read.
 */
async function readEtc(engine: DockerEngine, id: string, options: CallOptions): Promise<Result<ImageEtc>> {
  const got = await engine.raw("GET", `/containers/${id}/archive`, { query: { path: "/etc/." }, signal: options.signal, timeoutMs: CALL_MS });
  if (got.status === 404) return ok({ passwd: undefined, group: undefined, trust: undefined });
  // A reply cut off (an /etc past the engine client's 64 MiB bound, a connection lost): each path alone.
  const cut = !got.ok && got.unreachable && !options.signal?.aborted;
  if (!got.ok && !cut) return failure(engine, `reading /etc of ${id}`, got);
  const found = got.ok ? entriesAt(got.value!, [...new Set(ETC_PATHS.flatMap((p) => [...foldersAbove(p), p]))]) : new Map<string, TarEntry>();
  const entries = new Map<string, TarEntry | undefined>(ETC_PATHS.map((p) => [p, found.get(p)]));
  const alone = ETC_PATHS.filter((p) => cut || foldersAbove(p).some((f) => found.has(f)));
  const read = await Promise.all(alone.map((p) => etcEntry(engine, id, p, options)));
  for (const [i, r] of read.entries()) {
    if (!r.ok) return r;
    entries.set(alone[i]!, r.value);
  }
  const file = (p: string) => {
    const entry = entries.get(p);
    return entry && "bytes" in entry ? entry.bytes.toString("utf8") : undefined;
  };
  return ok({ passwd: file("passwd"), group: file("group"), trust: imageTrustOf(entries) });
}

/**
 * Names the computer's user and group in its /etc/passwd and /etc/group before it starts; an
 * image with neither file is left as it is. The image's files come from etc, read once per image.
 * with: files to put in the same archive, by their paths below / (a remote engine's daemon);
 * allowlisted: the computer goes through an egress proxy, so its system store is linked to init's bundle.
 */
export async function nameUser(
  engine: DockerEngine,
  etc: ImageEtcCache,
  id: string,
  user: { uid: number; gid: number },
  options: CallOptions & { with?: readonly TarFile[]; allowlisted?: boolean } = {},
): Promise<Result<undefined>> {
  // The container's own image id, not its tag: a tag may move to another image between calls.
  const container = await engine.call<{ Image?: string }>("GET", `/containers/${id}/json`, { signal: options.signal, timeoutMs: CALL_MS });
  if (!container.ok || !container.value?.Image) return failure(engine, `reading the image of ${id}`, container);
  const read = await etc.read(engine, container.value.Image, id, options);
  if (!read.ok) return read;
  const files: TarFile[] = [];
  const p = read.value.passwd === undefined ? undefined : passwdWith(read.value.passwd, user.uid, user.gid);
  if (p !== undefined) files.push({ path: "etc/passwd", mode: 0o644, bytes: Buffer.from(p) });
  const g = read.value.group === undefined ? undefined : groupWith(read.value.group, user.gid);
  if (g !== undefined) files.push({ path: "etc/group", mode: 0o644, bytes: Buffer.from(g) });
  files.push(...trustFiles(read.value.trust, options.allowlisted === true), ...(options.with ?? []));
  if (files.length === 0) return ok();
  const put = await engine.call("PUT", `/containers/${id}/archive`, {
    query: { path: "/" },
    body: tarOf(files),
    signal: options.signal,
    timeoutMs: CALL_MS,
  });
  return put.ok ? ok() : failure(engine, `writing ${files.map((f) => `/${f.path}`).join(", ")} into ${id}`, put);
}
