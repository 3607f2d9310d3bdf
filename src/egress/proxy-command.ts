// The egress proxy as every vendor runs it: computerd-egress (the proxy's own static binary, built
// beside computerd from the same tree) alone in an image tagged by its sha256, listening on a
// socket in a folder it shares with its computer (a Docker volume, a Pod's emptyDir), its argv
// built here and read back by the same flags.
import { basename, dirname, join } from "node:path";

/** Where the proxy's folder is, in the proxy and (read-only) in the computer. */
export const EGRESS_MOUNT = "/opt/agentrun/egress";
/** The proxy's socket, which init --egress relays port 3128 to. */
export const EGRESS_SOCKET = `${EGRESS_MOUNT}/egress.sock`;
/** Where a proxy that opens TLS writes its CA's certificate (--ca-file), which init reads into the computer's trust. */
export const EGRESS_CA_FILE = `${EGRESS_MOUNT}/ca.pem`;
/** The proxy's binary inside its image. */
export const EGRESS_ENTRYPOINT = "/computerd-egress";
/** The proxy image's repository: the tag is the proxy binary's sha256's first 16 hex digits. */
export const EGRESS_REPO = "agentrun-egress";

/**
 * The proxy's binary for a daemon: beside it, its name with -egress after "computerd"
 * (dist/computerd-linux-amd64 has dist/computerd-egress-linux-amd64), as build-daemon.sh makes both.
 */
export function proxyBinaryBeside(daemonPath: string): string {
  const name = basename(daemonPath);
  return join(dirname(daemonPath), name.startsWith("computerd") ? `computerd-egress${name.slice("computerd".length)}` : `${name}-egress`);
}

/** The image's tag for a proxy binary of this sha256. */
export function egressImageTag(digest: string): string {
  return `${EGRESS_REPO}:${digest.slice(0, 16)}`;
}

export interface ProxyArgs {
  /** When the proxy stops forwarding (its computer's deadline). */
  deadline: string;
  /** The list, normalized (checkAllowlist). */
  allow: readonly string[];
  /** Where the list is read instead, and read again while the proxy runs (a shared proxy's ConfigMap on Kubernetes). */
  allowFile?: string | undefined;
  /** The host's own addresses, refused as this-host. */
  hostAddresses: readonly string[];
  /** The words every refusal adds (printable ASCII). */
  hint: string;
  /**
   * The test-only seam: a range the proxy reaches as if public (checkTestNetwork), a test upstream's
   * CA (PEM) it trusts beside the system's roots, and names it resolves to addresses in the range
   * ("name=address", where no resolver the test controls answers: a Kubernetes Pod's).
   */
  testNetwork?: { range: string; upstreamRoot?: string | undefined; names?: readonly string[] | undefined };
  /** Rules in their argv form (ruleArg): requests to their hosts judged by method and path. */
  rules?: readonly string[] | undefined;
  /** Credentials (set by the environment, never the argv): only whether there are any counts here. */
  credentials?: readonly unknown[] | undefined;
  /**
   * With allowFile: the files the rules, hint and credentials are read from instead, read again
   * with the list (a shared proxy's ConfigMap and Secret on Kubernetes); the proxy then opens TLS
   * for whatever rules or credentials they come to hold.
   */
  settingsFiles?: { rules: string; hint: string; credentials: string } | undefined;
}

/** Whether a test upstream's root is one PEM certificate, as --upstream-root-for-tests takes it. */
export const isUpstreamRoot = (root: unknown): boolean =>
  typeof root === "string" && /^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n?$/.test(root);

/** Whether a proxy opens TLS: hosts with rules or credentials are judged request by request, HTTPS too. */
export const opensTLS = (plan: Pick<ProxyArgs, "rules" | "credentials" | "settingsFiles">): boolean =>
  Boolean(plan.rules?.length || plan.credentials?.length || plan.settingsFiles);

/** The proxy's argv after its entrypoint: the list, the deadline, the host's addresses and the hint (or the files of the list, rules, hint and credentials). */
export function egressArgs(plan: ProxyArgs): string[] {
  return [
    "egress",
    "--socket",
    EGRESS_SOCKET,
    "--deadline",
    plan.deadline,
    ...(plan.allowFile ? ["--allow-file", plan.allowFile] : plan.allow.flatMap((a) => ["--allow", a])),
    ...(plan.rules ?? []).flatMap((r) => ["--rule", r]),
    ...plan.hostAddresses.flatMap((a) => ["--host-address", a]),
    ...(plan.settingsFiles
      ? ["--rules-file", plan.settingsFiles.rules, "--hint-file", plan.settingsFiles.hint, "--credentials-file", plan.settingsFiles.credentials]
      : ["--hint", plan.hint]),
    ...(plan.testNetwork ? ["--reachable-for-tests", plan.testNetwork.range] : []),
    ...(plan.testNetwork?.upstreamRoot ? ["--upstream-root-for-tests", plan.testNetwork.upstreamRoot] : []),
    ...(plan.testNetwork?.names ?? []).flatMap((n) => ["--resolve-for-tests", n]),
    ...(opensTLS(plan) ? ["--ca-file", EGRESS_CA_FILE] : []),
  ];
}

/** Every flag egressArgs writes but those of the files (--allow-file and settingsFiles'), which a Kubernetes joined sidecar alone has. */
export const EGRESS_FLAGS: ReadonlySet<string> = new Set([
  "--socket",
  "--deadline",
  "--allow",
  "--rule",
  "--host-address",
  "--hint",
  "--reachable-for-tests",
  "--upstream-root-for-tests",
  "--resolve-for-tests",
  "--ca-file",
]);

/** The flags of the proxy's argv: each flag's values in order, or undefined when it is not egress's argv. */
export function flagsOf(cmd: unknown): Map<string, string[]> | undefined {
  if (!Array.isArray(cmd) || cmd[0] !== "egress" || cmd.some((a) => typeof a !== "string")) return undefined;
  const flags = new Map<string, string[]>();
  for (let i = 1; i < cmd.length; i += 2) {
    const name = cmd[i] as string;
    if (!name.startsWith("--") || i + 1 >= cmd.length) return undefined;
    flags.set(name, [...(flags.get(name) ?? []), cmd[i + 1] as string]);
  }
  return flags;
}
