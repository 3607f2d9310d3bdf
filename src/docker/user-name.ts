// A computer's user by name. Docker runs it as uid:gid, which the image's /etc/passwd may not
// name (a shell's prompt then reads "I have no name!"), so before the computer starts the
// provider writes the image's /etc/passwd and /etc/group back with a line for the uid and one for
// the gid, each named agent (its home /work), when the image names neither. No mount: the files
// are the container's own, as the image's are.
import type { CallOptions } from "../daemon/client.js";
import { ok, type Result } from "../contract/result.js";
import type { DockerEngine } from "./api.js";
import { failure } from "./containers.js";
import { HOME } from "./constants.js";
import { firstFileOf, tarOf, type TarFile } from "./tar.js";

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

/** One of the container's /etc files as text; undefined when the image has none. */
async function etcFile(engine: DockerEngine, id: string, file: string, options: CallOptions): Promise<Result<string | undefined>> {
  const got = await engine.raw("GET", `/containers/${id}/archive`, { query: { path: `/etc/${file}` }, signal: options.signal, timeoutMs: CALL_MS });
  if (got.status === 404) return ok(undefined);
  if (!got.ok) return failure(engine, `reading /etc/${file} of ${id}`, got);
  return ok(firstFileOf(got.value!)?.toString("utf8"));
}

/** Names the computer's user and group in its /etc/passwd and /etc/group before it starts; an image with neither file is left as it is. */
export async function nameUser(engine: DockerEngine, id: string, user: { uid: number; gid: number }, options: CallOptions = {}): Promise<Result<undefined>> {
  // Both read at once: each is a round trip on every create's path.
  const [passwd, group] = await Promise.all([etcFile(engine, id, "passwd", options), etcFile(engine, id, "group", options)]);
  if (!passwd.ok) return passwd;
  if (!group.ok) return group;
  const files: TarFile[] = [];
  const p = passwd.value === undefined ? undefined : passwdWith(passwd.value, user.uid, user.gid);
  if (p !== undefined) files.push({ path: "passwd", mode: 0o644, bytes: Buffer.from(p) });
  const g = group.value === undefined ? undefined : groupWith(group.value, user.gid);
  if (g !== undefined) files.push({ path: "group", mode: 0o644, bytes: Buffer.from(g) });
  if (files.length === 0) return ok();
  const put = await engine.call("PUT", `/containers/${id}/archive`, {
    query: { path: "/etc" },
    body: tarOf(files),
    signal: options.signal,
    timeoutMs: CALL_MS,
  });
  return put.ok ? ok() : failure(engine, `naming the user in /etc of ${id}`, put);
}
