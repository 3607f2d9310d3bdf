// The egress proxy's image: computerd-egress and the roots it verifies an opened host's TLS
// against (Node's own Mozilla roots, tls.rootCertificates, where Go's crypto/x509 reads a Linux
// system's bundle), made with docker import from a tar that holds those two files and nothing
// else, tagged by their sha256. No registry and no build step: the proxy is built beside the
// provider's daemon (proxyBinaryBeside), so the image is a few MB and always the same tree as the
// computers it serves.
import { createHash } from "node:crypto";
import { rootCertificates } from "node:tls";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fail, ok, type Result } from "../daemon/result.js";
import { type CallBound, type DockerCli, failureOf } from "./cli.js";
import { EGRESS_ENTRYPOINT, egressImageTag } from "../egress/proxy-command.js";

export { egressImageTag } from "../egress/proxy-command.js";
import { daemonDigest } from "./daemon-cache.js";
import { tarOf } from "../kits/image/tar.js";

const IMPORT_MS = 120_000;

/** Where the image holds its roots: the first path Go's crypto/x509 reads on Linux. */
export const ROOTS_PATH = "/etc/ssl/certs/ca-certificates.crt";
// Made at first use: reading tls.rootCertificates parses Node's hundred and more roots, which a
// preview's first Check, loading this module, does not need.
let madeRoots: Buffer | undefined;
const nodeRoots = () => (madeRoots ??= Buffer.from(rootCertificates.join("\n") + "\n"));
const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

/** A ustar archive of /computerd-egress (0755) and the roots (0644), owned by 0:0, dated at the epoch. */
export function proxyTar(proxy: Uint8Array, roots: Uint8Array = nodeRoots()): Buffer {
  return tarOf([
    { path: EGRESS_ENTRYPOINT.slice(1), mode: 0o755, bytes: proxy },
    { path: ROOTS_PATH.slice(1), mode: 0o644, bytes: roots },
  ]);
}

/** The image's digest for a proxy binary of this sha256: that and the roots' together. */
export const imageDigestOf = (proxyDigest: string): string => sha256(`${proxyDigest}\n${sha256(nodeRoots())}`);

/** The tag of the image for the proxy binary at proxyPath (throws when it cannot be read). */
export async function proxyImageTag(proxyPath: string): Promise<string> {
  return egressImageTag(imageDigestOf(await daemonDigest(proxyPath)));
}

const making = new Map<string, Promise<Result<string>>>();

/**
 * The proxy's image for the proxy binary at proxyPath: there already (docker image inspect), or
 * made now by docker import. Creates at the same moment share one import.
 */
export async function ensureEgressImage(cli: DockerCli, proxyPath: string, bound: CallBound = {}): Promise<Result<string>> {
  let tag: string;
  try {
    tag = await proxyImageTag(proxyPath);
  } catch (error) {
    return fail("invalid", unreadable(proxyPath, error));
  }
  const there = await cli.run(["image", "inspect", "--format", "{{.Id}}", tag], { ...bound, timeoutMs: 30_000 });
  if (there.ok) return ok(tag);
  if (bound.signal?.aborted) return fail("aborted", "making the egress proxy's image was aborted");
  let flight = making.get(tag);
  if (!flight) {
    flight = importImage(cli, proxyPath, tag).finally(() => making.delete(tag));
    making.set(tag, flight);
  }
  return flight;
}

const unreadable = (proxyPath: string, error: unknown) =>
  `the egress proxy ${proxyPath} (built beside computerd by scripts/build-daemon.sh) cannot be read for its image: ${(error as Error).message}`;

async function importImage(cli: DockerCli, proxyPath: string, tag: string): Promise<Result<string>> {
  let proxy: Buffer;
  try {
    proxy = await readFile(proxyPath);
  } catch (error) {
    return fail("invalid", unreadable(proxyPath, error));
  }
  if (egressImageTag(imageDigestOf(sha256(proxy))) !== tag)
    return fail("failed", `the egress proxy ${proxyPath} changed while its image was made; run the step again`);
  const dir = await mkdtemp(join(tmpdir(), "agentrun-egress-"));
  try {
    const tar = join(dir, "computerd-egress.tar");
    await writeFile(tar, proxyTar(proxy));
    const made = await cli.run(["import", "--change", `ENTRYPOINT ["${EGRESS_ENTRYPOINT}"]`, tar, tag], { timeoutMs: IMPORT_MS });
    if (!made.ok) {
      const f = failureOf(`docker import of the egress proxy's image ${tag}`, made, cli.path);
      return fail(f.code, f.message);
    }
    return ok(tag);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
