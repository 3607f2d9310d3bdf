// The Kubernetes provider's options, held to their rules at construction: a wrong one throws an
// OptionError naming it, in words that never hold the kubeconfig.
import path from "node:path";
import { MAX_PROBE_TARGETS } from "../contract/probe.js";
import { formatAddress, parseAddress, unmap } from "../egress/address.js";
import { checkAllowlist, checkTestNetwork, DEFAULT_HINT, hintProblem } from "../egress/list.js";
import { isUpstreamRoot } from "../egress/proxy-command.js";
import { OptionError } from "../daemon/result.js";
import { parseUser, userText } from "../contract/user.js";
import { packageRoot } from "../package.js";
import { userProblem } from "./check.js";
import { DEFAULT_ARCH, DEFAULT_NAMESPACE, DEFAULT_USER, MAX_LIFETIME_MS, TIMEOUTS, type KubernetesTimeouts } from "./constants.js";
import { inClusterCredentials } from "./in-cluster.js";
import { type Credentials, parseKubeconfig } from "./kubeconfig.js";

export interface KubernetesProviderOptions {
  /** The kubeconfig's contents (a secret): its current context's server, CA and credentials. One of kubeconfig and inCluster. */
  kubeconfig?: string;
  /** The Pod's own service account, for a process that runs in the cluster (in-cluster.ts). One of kubeconfig and inCluster. */
  inCluster?: boolean;
  /** A context of the kubeconfig other than the current one. */
  context?: string;
  /** Where Pods are made and listed (default the context's, else default). */
  namespace?: string;
  /** The Pods' RuntimeClass (gVisor, Kata) where the cluster has one; none by default. */
  runtimeClass?: string;
  /** The RuntimeClass, backed by gVisor's runsc, of a computer whose spec asks runtime gvisor; unset, runtime gvisor is refused. */
  gvisorRuntimeClass?: string;
  /** The image a spec that names none is shown as the default (best pinned by digest). */
  image?: string;
  /** The container's imagePullPolicy (default IfNotPresent; Never for an image already on the nodes). */
  imagePullPolicy?: "Always" | "IfNotPresent" | "Never";
  /** The nodes' architecture a Pod is scheduled on, and the daemon uploaded for it (default amd64). */
  arch?: "amd64" | "arm64";
  /** The daemon to upload (default this package's dist/computerd-linux-<arch>). */
  daemonPath?: string;
  /** The computer's user when a spec names none (default 2510:2510); never root. */
  user?: string;
  maxLifetimeMs?: number;
  /** The probe's targets (default the shared ones). */
  probeTargets?: string[];
  /** The version hello must report (default this package's); only a drifted provider sets another. */
  version?: string;
  timeouts?: Partial<KubernetesTimeouts>;
  egress?: KubernetesEgressOptions;
  /**
   * Browsers: every computer is kind browser, its image "chromium" this image (the browser
   * recipe's, src/kits/browser/recipe.ts, pushed to a registry the nodes pull from;
   * scripts/kube-browser-image.mjs does it for the test cluster), best pinned by digest.
   */
  browser?: { image: string };
}

/** An allowlist's proxy beside the computer in its Pod. */
export interface KubernetesEgressOptions {
  /** The nodes' own public addresses (IP addresses), refused beside every private, loopback, link-local and metadata range. */
  hostAddresses?: string[];
  /** The words every refusal adds (printable ASCII). */
  hint?: string;
  /** The proxy's image: computerd-egress and the roots it verifies TLS against (default: the recipe's, kits/image/egress-proxy.ts, as Docker's). */
  image?: string;
  /**
   * The test-only seam: a range the proxy reaches as if public (the test's own servers), and names
   * the proxy resolves to addresses in it (a Pod has no resolver the test controls). Refused unless testOnly.
   */
  testNetwork?: { range: string; names?: Record<string, string>; upstreamRoot?: string };
  testOnly?: boolean;
}

export interface Settled {
  creds: Credentials;
  namespace: string;
  runtimeClass: string | undefined;
  gvisorRuntimeClass: string | undefined;
  image: string | undefined;
  pullPolicy: "Always" | "IfNotPresent" | "Never";
  arch: "amd64" | "arm64";
  daemonPath: string;
  user: string;
  maxLifetimeMs: number;
  probeTargets: string[] | undefined;
  t: KubernetesTimeouts;
  egress: { hostAddresses: string[]; hint: string; image: string | undefined; testRange: string | undefined; testNames?: string[]; testRoot?: string };
  /** The browser option's image: set, every computer is a browser. */
  browserImage: string | undefined;
}

/** A DNS label, as a namespace's and a RuntimeClass's names are. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** The credentials from the kubeconfig, or from the Pod's service account: one of them, never both. */
function credentialsOf(options: KubernetesProviderOptions): Credentials {
  if (options.inCluster !== undefined && typeof options.inCluster !== "boolean")
    throw new OptionError("inCluster", "the Kubernetes provider's inCluster", " is true (the Pod's own service account) or false");
  if (options.inCluster) {
    if (options.kubeconfig !== undefined)
      throw new OptionError("inCluster", "the Kubernetes provider's inCluster", " and kubeconfig are both given: give one, the kubeconfig or inCluster: true");
    if (options.context !== undefined)
      throw new OptionError("context", "the Kubernetes provider's context", " names a kubeconfig's context, and inCluster takes none");
    return inClusterCredentials();
  }
  if (options.kubeconfig === undefined)
    throw new OptionError(
      "kubeconfig",
      "the Kubernetes provider's kubeconfig",
      " is required: the kubeconfig's contents (as a secret), or inCluster: true for a process that runs in a Pod",
    );
  return parseKubeconfig(options.kubeconfig, options.context);
}

export function settle(options: KubernetesProviderOptions): Settled {
  if (!options || typeof options !== "object")
    throw new TypeError("the Kubernetes provider takes options: kubeconfig (the kubeconfig's contents), or inCluster: true in a Pod");
  const creds = credentialsOf(options);
  const namespace = options.namespace ?? creds.namespace ?? DEFAULT_NAMESPACE;
  if (typeof namespace !== "string" || !DNS_LABEL.test(namespace))
    throw new OptionError("namespace", "the Kubernetes provider's namespace", " is a namespace's name: lowercase letters, digits and -, up to 63");
  for (const key of ["runtimeClass", "gvisorRuntimeClass"] as const) {
    const rc = options[key];
    if (rc !== undefined && (typeof rc !== "string" || !DNS_SUBDOMAIN.test(rc)))
      throw new OptionError(key, `the Kubernetes provider's ${key}`, " is a RuntimeClass's name: lowercase letters, digits, - and .");
  }
  if (options.image !== undefined && (typeof options.image !== "string" || !/^[^\s\0]+$/.test(options.image)))
    throw new OptionError("image", "the Kubernetes provider's image", " is an image reference with no space or NUL");
  const pullPolicy = options.imagePullPolicy ?? "IfNotPresent";
  if (!["Always", "IfNotPresent", "Never"].includes(pullPolicy))
    throw new OptionError("imagePullPolicy", "the Kubernetes provider's imagePullPolicy", " is Always, IfNotPresent or Never");
  const arch = options.arch ?? DEFAULT_ARCH;
  if (arch !== "amd64" && arch !== "arm64") throw new OptionError("arch", "the Kubernetes provider's arch", " is amd64 or arm64");
  if (options.daemonPath !== undefined && (typeof options.daemonPath !== "string" || !path.isAbsolute(options.daemonPath)))
    throw new OptionError("daemonPath", "the Kubernetes provider's daemonPath", ` is the absolute path of computerd for linux/${arch}`);
  if (options.user !== undefined) {
    const problem = userProblem(options.user);
    if (problem) throw new OptionError("user", "the Kubernetes provider's user", `: ${problem}`);
  }
  const max = options.maxLifetimeMs ?? MAX_LIFETIME_MS;
  if (!Number.isInteger(max) || max < 1000 || max > MAX_LIFETIME_MS)
    throw new OptionError("maxLifetimeMs", "the Kubernetes provider's maxLifetimeMs", ` is a whole number of milliseconds from 1000 to ${MAX_LIFETIME_MS}`);
  const targets = options.probeTargets;
  if (
    targets !== undefined &&
    (!Array.isArray(targets) || targets.length === 0 || targets.length > MAX_PROBE_TARGETS || !targets.every((x) => typeof x === "string" && x))
  )
    throw new OptionError(
      "probeTargets",
      "the Kubernetes provider's probeTargets",
      ` is a list of 1 to ${MAX_PROBE_TARGETS} host:port or host:port/udp targets`,
    );
  for (const [key, value] of Object.entries(options.timeouts ?? {})) {
    if (!(key in TIMEOUTS) || !Number.isInteger(value) || (value as number) <= 0)
      throw new OptionError(
        `timeouts.${key}`,
        `the Kubernetes provider's timeouts.${key}`,
        ` is not a bound it takes (${Object.keys(TIMEOUTS).join(", ")}, each a whole number of ms)`,
      );
  }
  const browser = options.browser;
  if (browser !== undefined && (typeof browser !== "object" || browser === null || typeof browser.image !== "string" || !/^[^\s\0]+$/.test(browser.image)))
    throw new OptionError("browser", "the Kubernetes provider's browser option", " is { image }: the browser recipe's image in a registry the nodes pull from");
  const user = parseUser(options.user ?? DEFAULT_USER);
  const egress = egressOf(options.egress ?? {});
  return {
    creds,
    namespace,
    runtimeClass: options.runtimeClass,
    gvisorRuntimeClass: options.gvisorRuntimeClass,
    image: options.image,
    pullPolicy,
    arch,
    daemonPath: options.daemonPath ?? path.join(packageRoot(), "dist", `computerd-linux-${arch}`),
    user: user.ok ? userText(user.value) : DEFAULT_USER,
    maxLifetimeMs: max,
    probeTargets: targets ? [...targets] : undefined,
    t: { ...TIMEOUTS, ...options.timeouts },
    egress,
    browserImage: browser?.image,
  };
}

function egressOf(egress: KubernetesEgressOptions): Settled["egress"] {
  const bad = (words: string) => new OptionError("egress", "the Kubernetes provider's egress option", words);
  const hostAddresses: string[] = [];
  if (egress.hostAddresses !== undefined && !Array.isArray(egress.hostAddresses)) throw bad(": hostAddresses is a list of IP addresses");
  for (const text of egress.hostAddresses ?? []) {
    const a = typeof text === "string" ? parseAddress(text) : undefined;
    if (!a) throw bad(`: hostAddresses holds ${JSON.stringify(text)}, which is not an IP address`);
    hostAddresses.push(formatAddress(unmap(a)));
  }
  const hint = egress.hint ?? DEFAULT_HINT;
  const words = hintProblem(hint);
  if (words) throw bad(`: ${words}`);
  if (egress.image !== undefined && (typeof egress.image !== "string" || !/^[^\s\0]+$/.test(egress.image)))
    throw bad(": image is an image reference with no space or NUL");
  if (egress.testNetwork !== undefined) {
    const refused = checkTestNetwork(egress.testNetwork?.range, { testOnly: egress.testOnly === true });
    if (refused) throw bad(`: ${refused}`);
    if (egress.testNetwork.upstreamRoot !== undefined && !isUpstreamRoot(egress.testNetwork.upstreamRoot))
      throw bad(": testNetwork.upstreamRoot is one PEM certificate, the test upstream's CA");
  }
  const testNames = Object.entries(egress.testNetwork?.names ?? {}).map(([name, at]) => {
    const range = egress.testNetwork?.range ?? "";
    if (!/^[a-z0-9.-]+$/.test(name) || !checkAllowlist([name], { testNetwork: range }).ok || !checkAllowlist([`${at}/32`], { testNetwork: range }).ok)
      throw bad(
        `: testNetwork.names maps ${JSON.stringify(name)}, which is not a lower-case name, or to ${JSON.stringify(at)}, which is not an address in ${range}`,
      );
    return `${name}=${at}`;
  });
  return {
    hostAddresses: [...new Set(hostAddresses)].sort(),
    hint,
    image: egress.image,
    testRange: egress.testNetwork?.range,
    ...(testNames.length > 0 ? { testNames } : {}),
    ...(egress.testNetwork?.upstreamRoot ? { testRoot: egress.testNetwork.upstreamRoot } : {}),
  };
}
