// An allowlisted computer's system trust store on Docker (src/egress/trust-store.ts says why): the
// image's own bundle moved to IMAGE_ROOTS and a link to init's bundle put in its place, in the
// archive before the computer starts, so a program that reads the system store alone trusts the
// proxy's CA, and the CA of a proxy made again the moment init makes the bundle again. A computer
// with no allowlist whose image is a snapshot of one that had it gets the image's bundle back.
import type { CallOptions } from "../daemon/client.js";
import { ok, type Result } from "../daemon/result.js";
import type { DockerEngine } from "./api.js";
import { failure } from "./containers.js";
import { firstEntryOf, type TarFile } from "../kits/image/tar.js";
import { IMAGE_ROOTS, SYSTEM_BUNDLES, TRUST_BUNDLE } from "../egress/trust-store.js";

const CALL_MS = 30_000;

/** An image's system bundle: where it is, its roots, and whether it is already the link to init's bundle (a snapshot's). */
export interface ImageTrust {
  path: string;
  roots: Buffer;
  linked: boolean;
}

/** One path of the container's, as its archive's first entry; undefined where there is none. */
async function entryAt(engine: DockerEngine, id: string, path: string, options: CallOptions): Promise<Result<ReturnType<typeof firstEntryOf>>> {
  const got = await engine.raw("GET", `/containers/${id}/archive`, { query: { path }, signal: options.signal, timeoutMs: CALL_MS });
  if (got.status === 404) return ok(undefined);
  if (!got.ok) return failure(engine, `reading ${path} of ${id}`, got);
  return ok(firstEntryOf(got.value!));
}

/** The image's system bundle, read from a container of it (every path at once: each is a round trip); undefined when it has none. */
export async function readImageTrust(engine: DockerEngine, id: string, options: CallOptions): Promise<Result<ImageTrust | undefined>> {
  const read = await Promise.all([IMAGE_ROOTS, ...SYSTEM_BUNDLES].map((p) => entryAt(engine, id, p, options)));
  const failed = read.find((r) => !r.ok);
  if (failed && !failed.ok) return failed;
  const [moved, ...system] = read.map((r) => (r.ok ? r.value : undefined));
  for (const [i, entry] of system.entries()) {
    const path = SYSTEM_BUNDLES[i]!;
    if (entry && "bytes" in entry) return ok({ path, roots: entry.bytes, linked: false });
    if (entry && "link" in entry && entry.link === TRUST_BUNDLE && moved && "bytes" in moved) return ok({ path, roots: moved.bytes, linked: true });
  }
  return ok(undefined);
}

/** What the archive before the start puts: the link and the moved roots for an allowlisted computer, the roots back in place for another. */
export function trustFiles(trust: ImageTrust | undefined, allowlisted: boolean): TarFile[] {
  if (!trust) return [];
  const at = trust.path.slice(1);
  if (!allowlisted) return trust.linked ? [{ path: at, mode: 0o644, bytes: trust.roots }] : [];
  return [
    { path: IMAGE_ROOTS.slice(1, IMAGE_ROOTS.lastIndexOf("/")), mode: 0o755, bytes: new Uint8Array(), dir: true },
    { path: IMAGE_ROOTS.slice(1), mode: 0o644, bytes: trust.roots },
    { path: at, mode: 0o777, bytes: new Uint8Array(), link: TRUST_BUNDLE },
  ];
}
