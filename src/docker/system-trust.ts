// An allowlisted computer's system trust store. init keeps a bundle of the image's roots and its
// egress proxy's CA (daemon/internal/egress/trust) and runs as the computer's user, so it cannot
// write /etc; before the computer starts, the provider moves the image's own bundle to
// IMAGE_ROOTS (where init reads the roots first) and puts a link to init's bundle in its place,
// so a program that reads the system store alone (its environment cleared) trusts the proxy's CA
// too, and the CA of a proxy made again the moment init makes the bundle again. A computer with no
// allowlist whose image is a snapshot of one that had it gets the image's bundle back in place.
import type { CallOptions } from "../daemon/client.js";
import { ok, type Result } from "../daemon/result.js";
import type { DockerEngine } from "./api.js";
import { failure } from "./containers.js";
import { RUN_DIR } from "./constants.js";
import { firstEntryOf, type TarFile } from "../kits/image/tar.js";

/** The bundle init keeps for the computer's programs (trust.go's Bundle, in init's folder). */
export const TRUST_BUNDLE = `${RUN_DIR}/egress-trust.pem`;
/** Where the image's own bundle is moved (trust.go reads it before the system's paths). */
export const IMAGE_ROOTS = "/etc/agentrun/image-roots.pem";
/** Where a distribution keeps its roots as one PEM file, as trust.go's systemBundles lists them (test/vectors/trust-bundles.json), the first found taken. */
export const SYSTEM_BUNDLES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/ca-bundle.pem",
  "/etc/pki/tls/cacert.pem",
  "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
  "/etc/ssl/cert.pem",
] as const;

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
