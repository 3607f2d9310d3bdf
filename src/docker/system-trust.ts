// An allowlisted computer's system trust store on Docker (src/egress/trust-store.ts says why): the
// image's own bundle moved to IMAGE_ROOTS and a link to init's bundle put in its place, in the
// archive before the computer starts, so a program that reads the system store alone trusts the
// proxy's CA, and the CA of a proxy made again the moment init makes the bundle again. A computer
// with no allowlist whose image is a snapshot of one that had it gets the image's bundle back.
import type { TarEntry, TarFile } from "../kits/image/tar.js";
import { IMAGE_ROOTS, SYSTEM_BUNDLES, TRUST_BUNDLE } from "../egress/trust-store.js";

/** An image's system bundle: where it is, its roots, and whether it is already the link to init's bundle (a snapshot's). */
export interface ImageTrust {
  path: string;
  roots: Buffer;
  linked: boolean;
}

/** Where an image's bundle may be, and a snapshot's moved roots, below /etc (create reads /etc whole: user-name.ts). */
export const TRUST_PATHS = [IMAGE_ROOTS, ...SYSTEM_BUNDLES].map((p) => p.slice("/etc/".length));

/** The image's system bundle among its /etc's entries (by their paths below /etc); undefined when it has none. */
export function imageTrustOf(entries: ReadonlyMap<string, TarEntry | undefined>): ImageTrust | undefined {
  const [moved, ...system] = TRUST_PATHS.map((p) => entries.get(p));
  for (const [i, entry] of system.entries()) {
    const path = SYSTEM_BUNDLES[i]!;
    if (entry && "bytes" in entry) return { path, roots: entry.bytes, linked: false };
    if (entry && "link" in entry && entry.link === TRUST_BUNDLE && moved && "bytes" in moved) return { path, roots: moved.bytes, linked: true };
  }
  return undefined;
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
