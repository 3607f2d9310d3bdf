// An allowlisted computer's egress proxy on Kubernetes: a second container in the Pod running
// computerd egress, non-root with every capability dropped, the only one with the Pod's network;
// it shares with the computer only the folder of its socket (an emptyDir in memory), where init
// --own-network --egress relays 127.0.0.1:3128 of its own loopback. Read back from the Pod: the
// sidecar there, running, hardened as made, its image the provider's and its argv the list.
// A computer that joined a shared proxy (proxies.ts) runs the same sidecar with --allow-file on
// the proxy's ConfigMap, mounted read-only: its list is the ConfigMap's, read again as it changes;
// the proxy's rules, read from the ConfigMap at the computer's start, are its argv (--rule), and
// with them it opens TLS for their hosts, writing its CA (--ca-file) beside its socket, in the
// folder the computer mounts read-only, where init reads it into the computer's trust bundle; a
// proxy's credentials reach the sidecar alone, its variable a reference to the proxy's Secret.
import type { NetworkPolicy, NetworkReadBack } from "../contract/provider.js";
import { checkAllowlist } from "../egress/list.js";
import type { ProxyNetwork } from "../egress/proxies.js";
import { userSecurity } from "./unprivileged.js";
import { LAST_WORDS } from "./constants.js";
import { EGRESS_CA_FILE, EGRESS_ENTRYPOINT, EGRESS_FLAGS, EGRESS_MOUNT, EGRESS_SOCKET, egressArgs, flagsOf, type ProxyArgs } from "../egress/proxy-command.js";
import { show } from "./shown.js";
import { CREDENTIALS_ENV } from "../egress/rules.js";
import { credentialsEnvVar } from "./proxy-secret.js";

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
/** A joined computer's list: the shared proxy's ConfigMap (its key allow alone), read-only in the sidecar. */
export const LIST_VOLUME = "egress-list";
export const LIST_MOUNT = "/opt/agentrun/egress-list";
export const LIST_KEY = "allow";
export const LIST_FILE = `${LIST_MOUNT}/${LIST_KEY}`;
/** The proxy's rules in its ConfigMap (argv form, one a line): read when a computer joins, never mounted. */
export const RULES_KEY = "rules";

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
  /** A shared proxy joined: its ConfigMap's name, whose list the sidecar reads (allow is then unused). */
  proxy?: string | undefined;
  /** The joined proxy has credentials: its Secret's key is the sidecar's variable. */
  keyed?: boolean | undefined;
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
      ...(plan.proxy ? { allow: [], allowFile: LIST_FILE } : {}),
      ...(plan.testRange ? { testNetwork: { range: plan.testRange, names: plan.testNames, upstreamRoot: plan.testRoot } } : {}),
      ...(plan.keyed ? { credentials: [plan.proxy] } : {}),
    }),
    ...(plan.keyed && plan.proxy ? { env: [credentialsEnvVar(plan.proxy)] } : {}),
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
/** A joined computer's list: the proxy's ConfigMap, its list alone; a ConfigMap gone leaves the last list the kubelet wrote. */
export const listVolume = (proxy: string) => ({ name: LIST_VOLUME, configMap: { name: proxy, items: [{ key: LIST_KEY, path: LIST_KEY }] } });
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
  listVolume: { name?: string; configMap?: { name?: string; items?: Array<{ key?: string; path?: string }> } } | undefined;
}

/** What the sidecar read back must hold: its plan but the list, the hint and the rules (read from its argv); hostAddresses are those it must refuse now (more is fine). */
export type SidecarWant = Omit<SidecarPlan, "allow" | "hint" | "rules" | "keyed">;

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
  if (want.proxy) {
    const cm = s.listVolume?.configMap;
    if (cm?.name !== want.proxy || !same(cm.items ?? null, listVolume(want.proxy).configMap.items))
      return `does not read its list from the ConfigMap ${want.proxy}'s key ${LIST_KEY} (its list volume names ${show(cm?.name)})`;
  }
  if (!same(s.volume?.emptyDir ?? null, { medium: "Memory", sizeLimit: EGRESS_VOLUME_SIZE }))
    return `its socket's folder is not the emptyDir in memory of ${EGRESS_VOLUME_SIZE} it was made with`;
  return undefined;
}

/** Flags a computer's own sidecar never has: it holds no rules, so it opens no TLS. */
const TLS_FLAGS: ReadonlySet<string> = new Set(["--rule", "--ca-file", "--upstream-root-for-tests"]);
/** Flags only a joined computer's sidecar has: its list's file, and its proxy's rules with the CA they need (and a test upstream's root). */
const JOINED_FLAGS: ReadonlySet<string> = new Set(["--allow-file", "--rule", "--ca-file", "--upstream-root-for-tests"]);

/** The rules a sidecar runs (their argv form), from its Pod as read back. */
export const sidecarRules = (s: SidecarReadBack): string[] => flagsOf(s.container?.args)?.get("--rule") ?? [];

/** The sidecar's list as the computer reads it: { allow } only when it is as made, else words. */
export function sidecarNetwork(s: SidecarReadBack, want: SidecarWant): ProxyNetwork {
  const other = (why: string) => ({ other: `network allow, but its egress proxy ${why}` });
  const problem = problemOf(s, want);
  if (problem) return other(problem);
  const flags = flagsOf(s.container?.args);
  if (!flags) return other("runs another command than computerd egress");
  // A computer's own sidecar holds no rules or credentials, so it never opens TLS; a joined one's
  // rules are its proxy's (held to the ConfigMap by inspect.ts), with the CA they need.
  const unknown = [...flags.keys()].find((k) => (!EGRESS_FLAGS.has(k) || TLS_FLAGS.has(k)) && !(want.proxy && JOINED_FLAGS.has(k)));
  if (unknown) return other(`runs with ${unknown}, which the provider never gives`);
  const env = s.container?.env ?? [];
  const keyed = env.length > 0;
  if (keyed && !(want.proxy && same(env, [credentialsEnvVar(want.proxy)])))
    return other(`has variables the provider never gives (a joined one has ${CREDENTIALS_ENV} alone, from its proxy's Secret)`);
  const caFile = flags.get("--ca-file");
  if (caFile && !same(caFile, [EGRESS_CA_FILE])) return other(`writes its CA elsewhere than ${EGRESS_CA_FILE}`);
  if ((flags.has("--rule") || keyed) !== (caFile !== undefined))
    return other(caFile ? "opens TLS with no rules or credentials to judge it by" : "holds rules or credentials but opens no TLS for their hosts");
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
    return same(flags.get("--allow-file"), [LIST_FILE]) && !flags.has("--allow") ? { allow: [] } : other(`does not read its list from ${LIST_FILE} alone`);
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
