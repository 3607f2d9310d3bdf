// An allowlisted computer's egress proxy on Kubernetes: a second container in the Pod running
// computerd egress, non-root with every capability dropped, the only one with the Pod's network;
// it shares with the computer only the folder of its socket (an emptyDir in memory), where init
// --own-network --egress relays 127.0.0.1:3128 of its own loopback. Read back from the Pod: the
// sidecar there, running, hardened as made, its image the provider's and its argv the list.
// A computer that joined a shared proxy (proxies.ts) runs the same sidecar with --allow-file,
// --rules-file, --hint-file and --credentials-file on one read-only volume projecting the proxy's
// ConfigMap (its list, rules and hint) and its Secret (its credentials, optional: a proxy may have
// none yet), mounted in the sidecar alone: all four are read again as the kubelet rewrites them, so
// a change of any reaches a running computer. It opens TLS for the hosts of whatever rules or
// credentials it comes to hold, writing its CA (--ca-file) beside its socket, in the folder the
// computer mounts read-only, where init reads it into the computer's trust bundle.
import type { NetworkPolicy, NetworkReadBack } from "../contract/provider.js";
import { checkAllowlist } from "../egress/list.js";
import type { ProxyNetwork } from "../egress/proxies.js";
import { userSecurity } from "./unprivileged.js";
import { LAST_WORDS } from "./constants.js";
import { EGRESS_CA_FILE, EGRESS_ENTRYPOINT, EGRESS_FLAGS, EGRESS_MOUNT, EGRESS_SOCKET, egressArgs, flagsOf, type ProxyArgs } from "../egress/proxy-command.js";
import { show } from "./shown.js";
import { SECRET_KEY, secretName } from "./proxy-secret.js";

/** The sidecar's container, and the emptyDir of its socket. */
export const EGRESS_CONTAINER = "egress";
export const EGRESS_VOLUME = "egress";

/** The sidecar's bounds: half a CPU and 256 MiB at most (as on Docker), a little asked for. */
export const EGRESS_RESOURCES = {
  requests: { cpu: "10m", memory: "16Mi" },
  limits: { cpu: "500m", memory: "256Mi" },
} as const;
/** The socket's folder: memory, 1 MiB. */
export const EGRESS_VOLUME_SIZE = "1Mi";
/** A joined computer's list, rules, hint and credentials: the shared proxy's ConfigMap and Secret, read-only in the sidecar. */
export const LIST_VOLUME = "egress-list";
export const LIST_MOUNT = "/opt/agentrun/egress-list";
export const LIST_KEY = "allow";
export const LIST_FILE = `${LIST_MOUNT}/${LIST_KEY}`;
/** The proxy's rules in its ConfigMap (argv form, one a line; "" for none: the key is always there, as the volume names it). */
export const RULES_KEY = "rules";
export const HINT_KEY = "hint";
/** The files the sidecar reads beside its list. */
export const SETTINGS_FILES = { rules: `${LIST_MOUNT}/${RULES_KEY}`, hint: `${LIST_MOUNT}/${HINT_KEY}`, credentials: `${LIST_MOUNT}/${SECRET_KEY}` } as const;

/** The proxy's argv (the list, deadline, host addresses, hint) and what the Pod runs it as. */
export interface SidecarPlan extends Omit<ProxyArgs, "testNetwork"> {
  image: string;
  pullPolicy: string;
  uid: number;
  gid: number;
  /** The test-only seam's range (checkTestNetwork), and the names the proxy resolves into it ("name=address"). */
  testRange?: string | undefined;
  testNames?: readonly string[] | undefined;
  /** The test-only seam's upstream root (PEM), trusted beside the system's roots by a sidecar that opens TLS. */
  testRoot?: string | undefined;
  /** A shared proxy joined: its ConfigMap's name, whose list, rules and hint the sidecar reads with its Secret's credentials (allow, rules and hint are then unused). */
  proxy?: string | undefined;
}

/**
 * What init adds for a network: none and an allowlist are a network namespace of its own; an
 * allowlist relays to the socket. Under gVisor (none alone) the sandbox's network is the
 * handler's, where init cannot make a namespace (gVisor's netstack has no SIOCSIFFLAGS): init
 * reads back that it holds lo alone, and refuses to start on a handler that gave it more.
 */
export function initNetworkArgs(network: NetworkPolicy, runtime: "gvisor" | undefined): string[] {
  if (network === "open") return [];
  if (runtime === "gvisor") return ["--loopback-alone"];
  return typeof network === "object" ? ["--own-network", "--egress", EGRESS_SOCKET] : ["--own-network"];
}

/** The proxy's securityContext: its own user, nothing held, nothing gained, its root read-only. */
export const sidecarSecurity = (uid: number, gid: number) => userSecurity(uid, gid, true);

export function sidecarContainer(plan: SidecarPlan): Record<string, unknown> {
  return {
    name: EGRESS_CONTAINER,
    image: plan.image,
    imagePullPolicy: plan.pullPolicy,
    ...LAST_WORDS,
    command: [EGRESS_ENTRYPOINT],
    args: egressArgs({
      ...plan,
      ...(plan.proxy ? { allow: [], allowFile: LIST_FILE, rules: [], settingsFiles: SETTINGS_FILES } : {}),
      ...(plan.testRange ? { testNetwork: { range: plan.testRange, names: plan.testNames, upstreamRoot: plan.testRoot } } : {}),
    }),
    securityContext: sidecarSecurity(plan.uid, plan.gid),
    resources: EGRESS_RESOURCES,
    volumeMounts: sidecarMounts(plan.proxy !== undefined),
  };
}

/** The sidecar's mounts: its socket's folder, and a joined computer's list read-only (the folder, never a subPath, which the kubelet would not update). */
const sidecarMounts = (joined: boolean) => [
  { name: EGRESS_VOLUME, mountPath: EGRESS_MOUNT },
  ...(joined ? [{ name: LIST_VOLUME, mountPath: LIST_MOUNT, readOnly: true }] : []),
];

export const egressVolume = () => ({ name: EGRESS_VOLUME, emptyDir: { medium: "Memory", sizeLimit: EGRESS_VOLUME_SIZE } });
/**
 * A joined computer's list, rules, hint and credentials: the proxy's ConfigMap and Secret projected
 * into one folder, written by the kubelet in one swap; a ConfigMap gone leaves the last files it
 * wrote, a Secret not there (optional) no credentials file.
 */
export const listVolume = (proxy: string) => ({
  name: LIST_VOLUME,
  projected: {
    sources: [
      { configMap: { name: proxy, items: [LIST_KEY, RULES_KEY, HINT_KEY].map((key) => ({ key, path: key })) } },
      { secret: { name: secretName(proxy), items: [{ key: SECRET_KEY, path: SECRET_KEY }], optional: true } },
    ],
  },
});
/** The computer's side: the socket's folder, read-only. */
export const computerEgressMount = () => ({ name: EGRESS_VOLUME, mountPath: EGRESS_MOUNT, readOnly: true });

/** The sidecar's slice of a Pod as read back. */
export interface SidecarReadBack {
  container:
    | {
        image?: string;
        imagePullPolicy?: string;
        command?: string[];
        args?: string[];
        env?: unknown[];
        securityContext?: object;
        resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
        volumeMounts?: Array<{ name?: string; mountPath?: string; readOnly?: boolean }>;
      }
    | undefined;
  running: boolean;
  /** Its state in words when it does not run. */
  state: string;
  volume: { name?: string; emptyDir?: { medium?: string; sizeLimit?: string } } | undefined;
  /** A joined computer's list volume. */
  listVolume: { name?: string; projected?: { sources?: unknown[] } } | undefined;
}

/** What the sidecar read back must hold: its plan but the list, the hint and the rules (a joined one's are its ConfigMap's, which inspect.ts holds its log to); hostAddresses are those it must refuse now (more is fine). */
export type SidecarWant = Omit<SidecarPlan, "allow" | "hint" | "rules">;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Each field the sidecar was made with holds (the API server may add defaults beside them). */
function hardened(have: object, want: object): boolean {
  return Object.entries(want).every(([k, v]) => same((have as Record<string, unknown>)[k], v));
}

/** Why the sidecar is not as made, in words, or undefined when it is. */
function problemOf(s: SidecarReadBack, want: SidecarWant): string | undefined {
  const c = s.container;
  if (!c) return "is gone (the Pod has no egress container)";
  if (!s.running) return `is not running (${s.state}; a Pod's container is not restarted: make a new computer)`;
  if (c.image !== want.image) return `runs ${String(c.image)}, not the provider's proxy image ${want.image}`;
  if (c.imagePullPolicy !== want.pullPolicy) return `has imagePullPolicy ${String(c.imagePullPolicy)}, not ${want.pullPolicy}`;
  if (!same(c.command, [EGRESS_ENTRYPOINT])) return "has another command than the proxy's";
  if (!hardened(c.securityContext ?? {}, sidecarSecurity(want.uid, want.gid)))
    return `is not hardened as made (non-root ${want.uid}:${want.gid}, every capability dropped, no privilege escalation, a read-only root, seccomp RuntimeDefault)`;
  if (!same(c.resources?.limits ?? {}, EGRESS_RESOURCES.limits)) return "is not bounded to half a CPU and 256 MiB";
  const mounts = (c.volumeMounts ?? []).map((m) => ({ name: m.name, mountPath: m.mountPath, readOnly: m.readOnly === true }));
  const wantMounts = sidecarMounts(want.proxy !== undefined).map((m) => ({ ...m, readOnly: "readOnly" in m }));
  if (!same(mounts, wantMounts))
    return want.proxy
      ? `does not mount its socket's folder at ${EGRESS_MOUNT} and its list read-only at ${LIST_MOUNT}, and nothing else`
      : `does not mount its socket's folder alone at ${EGRESS_MOUNT}`;
  if (want.proxy && !same(s.listVolume?.projected?.sources ?? null, listVolume(want.proxy).projected.sources))
    return `does not read its list, rules and hint from the ConfigMap ${want.proxy} and its credentials from the Secret ${secretName(want.proxy)} alone (its list volume is ${show(s.listVolume?.projected?.sources ?? null)})`;
  if (!same(s.volume?.emptyDir ?? null, { medium: "Memory", sizeLimit: EGRESS_VOLUME_SIZE }))
    return `its socket's folder is not the emptyDir in memory of ${EGRESS_VOLUME_SIZE} it was made with`;
  return undefined;
}

/** Flags a computer's own sidecar never has: it holds no rules, so it opens no TLS. */
const TLS_FLAGS: ReadonlySet<string> = new Set(["--rule", "--ca-file", "--upstream-root-for-tests"]);
/** Flags only a joined computer's sidecar has: its files, and the CA its proxy's rules and credentials need (and a test upstream's root). */
const JOINED_FLAGS: ReadonlySet<string> = new Set([
  "--allow-file",
  "--rules-file",
  "--hint-file",
  "--credentials-file",
  "--ca-file",
  "--upstream-root-for-tests",
]);

/** The sidecar's list as the computer reads it: { allow } only when it is as made, else words. */
export function sidecarNetwork(s: SidecarReadBack, want: SidecarWant): ProxyNetwork {
  const other = (why: string) => ({ other: `network allow, but its egress proxy ${why}` });
  const problem = problemOf(s, want);
  if (problem) return other(problem);
  const flags = flagsOf(s.container?.args);
  if (!flags) return other("runs another command than computerd egress");
  // A computer's own sidecar holds no rules or credentials, so it never opens TLS; a joined one
  // reads its proxy's from its files (held to the ConfigMap by inspect.ts), with a CA for them.
  const unknown = [...flags.keys()].find((k) => (!EGRESS_FLAGS.has(k) || TLS_FLAGS.has(k)) && !(want.proxy && JOINED_FLAGS.has(k)));
  if (unknown) return other(`runs with ${unknown}, which the provider never gives`);
  if ((s.container?.env ?? []).length > 0) return other("has variables the provider never gives");
  const caFile = flags.get("--ca-file");
  if (caFile && !same(caFile, [EGRESS_CA_FILE])) return other(`writes its CA elsewhere than ${EGRESS_CA_FILE}`);
  if ((want.proxy !== undefined) !== (caFile !== undefined))
    return other(caFile ? "opens TLS with no rules or credentials to judge it by" : "may hold rules or credentials but opens no TLS for their hosts");
  const root = flags.get("--upstream-root-for-tests");
  if (root && !(caFile && want.testRoot && same(root, [want.testRoot])))
    return other("trusts an upstream root of its own, a test-only setting this provider does not have");
  if (!same(flags.get("--resolve-for-tests") ?? [], want.testNames ?? []))
    return other("resolves names of its own, a test-only setting this provider does not have");
  if (!same(flags.get("--socket"), [EGRESS_SOCKET])) return other(`does not listen on ${EGRESS_SOCKET}`);
  if (!same(flags.get("--deadline"), [want.deadline])) return other("ends at another time than its computer");
  const reach = flags.get("--reachable-for-tests");
  if (reach && !(want.testRange && same(reach, [want.testRange])))
    return other(`marks ${reach.join(", ")} reachable, a test-only setting this provider does not have`);
  const refused = new Set(flags.get("--host-address") ?? []);
  const missing = want.hostAddresses.filter((a) => !refused.has(a));
  if (missing.length > 0)
    return other(`does not refuse the nodes' addresses ${missing.join(", ")} (the nodes or egress.hostAddresses gained them after the proxy was made)`);
  // A joined computer's list is its ConfigMap's, which inspect.ts reads and holds the sidecar's log to.
  if (want.proxy)
    return same(flags.get("--allow-file"), [LIST_FILE]) &&
      same(flags.get("--rules-file"), [SETTINGS_FILES.rules]) &&
      same(flags.get("--hint-file"), [SETTINGS_FILES.hint]) &&
      same(flags.get("--credentials-file"), [SETTINGS_FILES.credentials]) &&
      !flags.has("--allow") &&
      !flags.has("--hint")
      ? { allow: [] }
      : other(`does not read its list, rules, hint and credentials from ${LIST_MOUNT} alone`);
  const list = checkAllowlist(flags.get("--allow") ?? [], want.testRange ? { testNetwork: want.testRange } : {});
  if (!list.ok) return other(`holds a list check refuses: ${list.refusals.map((r) => r.message).join("; ")}`);
  return { allow: list.entries };
}

/** A Pod's network as its parts read (before the probe): none and open as recorded, an allowlist its sidecar's. */
export function podNetwork(recorded: NetworkPolicy, sidecar: SidecarReadBack, want: SidecarWant | undefined): NetworkReadBack {
  if (typeof recorded !== "object") return recorded;
  if (!want) return { other: "network allow, but its egress proxy cannot be held to what it must be" };
  return sidecarNetwork(sidecar, want);
}
