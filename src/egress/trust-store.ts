// An allowlisted computer's system trust store, as every vendor keeps it. init keeps a bundle of
// the image's roots and its egress proxy's CA (daemon/internal/egress/trust) and runs as the
// computer's user, so it cannot write /etc; before init starts, the provider moves the image's own
// bundle to IMAGE_ROOTS (where init reads the roots first) and puts a link to init's bundle in its
// place, so a program that reads the system store alone (its environment cleared) trusts the
// proxy's CA too. Docker does it by archive before the start (src/docker/system-trust.ts); a
// vendor whose start script runs as root before init (Kubernetes) runs RELINK_SCRIPT.

/** The bundle init keeps for the computer's programs (trust.go's Bundle, in init's socket folder /run/agentrun). */
export const TRUST_BUNDLE = "/run/agentrun/egress-trust.pem";
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

/**
 * POSIX sh, run as root before init: the first of SYSTEM_BUNDLES that is a file (not a link, as
 * on Docker) moved to IMAGE_ROOTS and its place linked to init's bundle. Silent and never failing
 * the start: an image with no bundle keeps none, and the read-back's trust says what the
 * computer's programs trust.
 */
export const RELINK_SCRIPT = [
  `for f in ${SYSTEM_BUNDLES.join(" ")}; do`,
  '  if [ -f "$f" ] && [ ! -L "$f" ]; then',
  `    mkdir -p ${IMAGE_ROOTS.slice(0, IMAGE_ROOTS.lastIndexOf("/"))} && mv -f "$f" ${IMAGE_ROOTS} && ln -s ${TRUST_BUNDLE} "$f"`,
  "    break",
  "  fi",
  "done 2>/dev/null",
].join("\n");
