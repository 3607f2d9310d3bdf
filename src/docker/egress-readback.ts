// An allowlisted computer's proxy read back from Docker: running, hardened and bounded as
// egress-request.ts makes it, with exactly its volume and image, and an argv that holds the list
// and refuses every one of the Docker host's addresses the provider requires now. Anything less
// is { other: "network allow, but its egress proxy ... <why>" }: never reported as a policy.
import { checkAllowlist } from "../egress/list.js";
import { EGRESS_CA_FILE, EGRESS_FLAGS, flagsOf, opensTLS } from "../egress/proxy-command.js";
import { credentialsOf } from "../egress/rules.js";
import type { ProxyNetwork } from "../egress/proxies.js";
import { DEADLINE_LABEL } from "./constants.js";
import { EGRESS_BOUNDS, EGRESS_ENTRYPOINT, EGRESS_LABEL, EGRESS_MOUNT, EGRESS_SOCKET, egressName, PROXY_PATTERN } from "./egress-request.js";

/** What a proxy must be, from the computer it serves and the provider now. */
export interface EgressExpected {
  /** The parts' key (EgressPlan.key). */
  key: string;
  uid: number;
  gid: number;
  /** The proxy's deadline: its computer's, or a shared proxy's own (its volume's label). */
  deadline: string;
  /** A computer's deadline, which a shared proxy it joined must not end before. */
  until?: string;
  image: string;
  /** The host's addresses the provider requires now: the proxy must refuse each (more is fine). */
  hostAddresses: readonly string[];
  testNetwork?: { name: string; range: string; upstreamRoot?: string | undefined };
}

// The inspect JSON's fields the read-back looks at; any other shape reads as other.
type Loose = Record<string, unknown>;
const obj = (v: unknown): Loose => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Loose) : {});
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Why a proxy is not as made, in words, or undefined when it is. */
function problemOf(proxy: Loose, want: EgressExpected): string | undefined {
  const state = obj(proxy.State);
  const config = obj(proxy.Config);
  const host = obj(proxy.HostConfig);
  const labels = obj(config.Labels);
  const shared = PROXY_PATTERN.test(want.key);
  if (state.Running !== true)
    return `is not running (a crashed proxy is not restarted: ${shared ? "update the proxy to make it again" : "make a new computer"})`;
  if (labels[EGRESS_LABEL] !== want.key) return `does not carry ${EGRESS_LABEL}=${want.key}`;
  if (labels[DEADLINE_LABEL] !== want.deadline)
    return `carries another deadline (${String(labels[DEADLINE_LABEL])}) than ${shared ? "its volume's" : "its computer's"} ${want.deadline}`;
  if (want.until !== undefined && Date.parse(want.deadline) < Date.parse(want.until))
    return `ends at ${want.deadline}, before its computer's deadline ${want.until}`;
  if (config.Image !== want.image) return `runs ${String(config.Image)}, not the provider's proxy image ${want.image}`;
  if (config.User !== `${want.uid}:${want.gid}`)
    return `runs as ${String(config.User)}, not ${shared && want.until === undefined ? "its volume's owner" : "the computer's"} ${want.uid}:${want.gid}`;
  if (!same(config.Entrypoint, [EGRESS_ENTRYPOINT])) return "has another entrypoint than the proxy's";
  const network = want.testNetwork?.name ?? "bridge";
  const networks = Object.keys(obj(obj(proxy.NetworkSettings).Networks));
  if (host.NetworkMode !== network || !same(networks, [network]))
    return `is not on the ${network === "bridge" ? "default bridge" : `test network ${network}`} alone (${networks.join(", ") || "no network"})`;
  if (Object.keys(obj(host.PortBindings)).length > 0 || host.PublishAllPorts === true) return "publishes a port";
  if (host.ReadonlyRootfs !== true) return "has a writable root";
  if (!same(host.CapDrop, ["ALL"]) || (Array.isArray(host.CapAdd) && host.CapAdd.length > 0) || host.Privileged === true)
    return "holds a capability (CapDrop ALL, nothing added, not privileged)";
  if (!same(host.SecurityOpt, ["no-new-privileges"])) return "is not exactly no-new-privileges in its security options";
  if (host.IpcMode !== "private" || host.CgroupnsMode !== "private") return "does not have private IPC and cgroup namespaces";
  if (host.Memory !== EGRESS_BOUNDS.memory || host.MemorySwap !== EGRESS_BOUNDS.memory) return "is not bounded to 256 MiB with swap the same";
  if (host.PidsLimit !== EGRESS_BOUNDS.pids) return `is not bounded to ${EGRESS_BOUNDS.pids} pids`;
  if (host.CpuPeriod !== EGRESS_BOUNDS.cpuPeriod || host.CpuQuota !== EGRESS_BOUNDS.cpuQuota) return "is not bounded to half a CPU";
  if (!same(host.Ulimits, [{ Name: "nofile", Hard: EGRESS_BOUNDS.openFiles, Soft: EGRESS_BOUNDS.openFiles }]))
    return `is not bounded to ${EGRESS_BOUNDS.openFiles} open files`;
  const log = obj(host.LogConfig);
  const logOptions = obj(log.Config);
  if (log.Type !== "json-file" || Object.keys(logOptions).length !== 2 || logOptions["max-size"] !== "1m" || logOptions["max-file"] !== "2")
    return "does not have a json-file log of 1m and 2 files";
  if (obj(host.RestartPolicy).Name !== "no") return "has a restart policy";
  const mounts = Array.isArray(proxy.Mounts) ? proxy.Mounts.map(obj) : [];
  const volume = egressName(want.key);
  if (mounts.length !== 1 || mounts[0]!.Type !== "volume" || mounts[0]!.Name !== volume || mounts[0]!.Destination !== EGRESS_MOUNT)
    return `does not mount exactly its volume ${volume} at ${EGRESS_MOUNT}`;
  return undefined;
}

/** The proxy's list as read back, or why there is none. */
export function proxyReadBack(proxy: unknown, want: EgressExpected): ProxyNetwork {
  const other = (why: string) => ({ other: `network allow, but its egress proxy ${egressName(want.key)} ${why}` });
  if (proxy === undefined) return other("is gone");
  const p = obj(proxy);
  const problem = problemOf(p, want);
  if (problem) return other(problem);
  const flags = flagsOf(obj(p.Config).Cmd);
  if (!flags) return other("runs another command than computerd egress");
  const unknown = [...flags.keys()].find((k) => !EGRESS_FLAGS.has(k));
  if (unknown) return other(`runs with ${unknown}, which the provider never gives`);
  if (!same(flags.get("--socket"), [EGRESS_SOCKET])) return other(`does not listen on ${EGRESS_SOCKET}`);
  if (!same(flags.get("--deadline"), [want.deadline]))
    return other(`ends at another time than ${PROXY_PATTERN.test(want.key) ? "its deadline label" : "its computer"}`);
  const reach = flags.get("--reachable-for-tests");
  if (reach && !(want.testNetwork && same(reach, [want.testNetwork.range])))
    return other(`marks ${reach.join(", ")} reachable, a test-only setting this provider does not have`);
  const root = flags.get("--upstream-root-for-tests");
  if (root && !(want.testNetwork?.upstreamRoot && same(root, [want.testNetwork.upstreamRoot])))
    return other("trusts an upstream root of its own, a test-only setting this provider does not have");
  if (flags.has("--resolve-for-tests")) return other("resolves names of its own, a test-only setting this provider does not have");
  const caFile = flags.get("--ca-file");
  if (caFile && !same(caFile, [EGRESS_CA_FILE])) return other(`writes its CA elsewhere than ${EGRESS_CA_FILE}`);
  const opens = opensTLS({ rules: flags.get("--rule"), credentials: credentialsOf(obj(p.Config).Env) });
  if (opens !== (caFile !== undefined))
    return other(
      opens ? "holds rules or credentials but opens no TLS for their hosts (made before it could)" : "opens TLS with no rules or credentials to judge it by",
    );
  const refused = new Set(flags.get("--host-address") ?? []);
  const missing = want.hostAddresses.filter((a) => !refused.has(a));
  if (missing.length > 0) return other(`does not refuse the Docker host's addresses ${missing.join(", ")} (the host gained them after the proxy was made)`);
  const list = checkAllowlist(flags.get("--allow") ?? [], want.testNetwork ? { testNetwork: want.testNetwork.range } : {});
  if (!list.ok) return other(`holds a list check refuses: ${list.refusals.map((r) => r.message).join("; ")}`);
  return { allow: list.entries };
}
