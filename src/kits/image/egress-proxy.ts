// The egress proxy's image, the same on every vendor that runs it as a container (Docker's proxy
// container, Kubernetes' sidecar): computerd-egress and the roots it verifies an opened host's TLS
// against (Node's own Mozilla roots, tls.rootCertificates, at the path Go's crypto/x509 reads first
// on Linux), and nothing else, tagged by the sha256 of the two. A proxy that opens TLS (rules,
// credentials) in an image with no roots could verify no upstream at all.
import { createHash } from "node:crypto";
import { rootCertificates } from "node:tls";
import { EGRESS_ENTRYPOINT, egressImageTag } from "../../egress/proxy-command.js";
import { tarOf } from "./tar.js";

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

/** The image's tag for a proxy binary of this sha256 (hex). */
export const proxyImageTagOf = (proxyDigest: string): string => egressImageTag(imageDigestOf(proxyDigest));
