// A Pod read back whole, as create's last check and read() both take it: the Pod's own drift
// (spec, status, container state, labels, node), an allowlist's sidecar held to what it must be,
// then, while it runs, hello against the provider's daemon and the probe from inside: init's own
// network (none, and an allowlist's, whose one way out is the relay) reads lo alone and reaches no
// target; open reads the Pod's interfaces beside lo; an allowlist's sidecar's rules proven from
// inside, and what it enforces read back (egress-enforced.ts).
import { helloDrift } from "../kits/agent-child/drift.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { readNetworkNone } from "../contract/probe.js";
import type { ComputerRef, Connection, NetworkPolicy, ReadBack } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { parseUser } from "../contract/user.js";
import type { ComputerClient } from "../daemon/client.js";
import type { Hello } from "../daemon/protocol.js";
import { sameNetwork } from "../egress/list.js";
import { browserMismatches } from "../kits/browser/computer.js";
import { BROWSER_PROFILE } from "./browser.js";
import { idOf, DEADLINE_ANNOTATION } from "./constants.js";
import { podNetwork, sidecarRules, type SidecarWant } from "./egress.js";
import { enforcedFromInside, sidecarHeld } from "./egress-enforced.js";
import type { ProxyHeld } from "../egress/enforced.js";
import { rulesChangedHosts } from "../egress/rules.js";
import { decodeLabels, recordedLabels } from "./labels.js";
import { heldOf, joinedNetwork, type JoinedRead } from "./proxy-configmap.js";
import type { KubeEgressProxies } from "./proxies.js";
import type { RecordedSpec } from "./pod.js";
import type { KubePods } from "./pods.js";
import { computerState, type Pod, podDrift, recordedNetwork, recordedSpec, sidecarOf, specOf } from "./readback.js";
import { gvisorKernel, runtimeClassOf } from "./runtime.js";

/** open's probe dials the computer's own loopback alone: it reads the interfaces and sends nothing out. */
const OPEN_PROBE_TARGETS = ["127.0.0.1:9"];

/** What an allowlisted Pod's sidecar must be, from what create recorded and the provider now (the nodes' addresses among it, and why they were not read). */
async function sidecarWant(
  sb: KubePods,
  pod: Pod,
  recorded: RecordedSpec | undefined,
  signal: AbortSignal | undefined,
): Promise<Result<{ want: SidecarWant | undefined; note?: string | undefined }>> {
  const user = parseUser(recorded?.user ?? "");
  const deadline = pod.metadata.annotations?.[DEADLINE_ANNOTATION];
  if (!user.ok || !deadline) return ok({ want: undefined });
  const image = await sb.egressImage();
  if (!image.ok) return image;
  const nodes = await sb.nodeAddresses(signal);
  if (!nodes.ok) return nodes;
  const want: SidecarWant = {
    ...(recorded?.egress === undefined ? {} : { proxy: recorded.egress }),
    image: image.value,
    pullPolicy: sb.o.pullPolicy,
    uid: user.value.uid,
    gid: user.value.gid,
    deadline,
    hostAddresses: nodes.value.addresses,
    testRange: sb.o.egress.testRange,
    testNames: sb.o.egress.testNames,
    testRoot: sb.o.egress.testRoot,
  };
  return ok({ want, note: nodes.value.note });
}

/** The network read from inside: lo alone and no target reached for none and an allowlist; the Pod's interfaces for open. */
async function probeNetwork(sb: KubePods, client: ComputerClient, network: NetworkPolicy, recorded: RecordedSpec | undefined, signal: AbortSignal | undefined) {
  const open = network === "open";
  const allow = typeof network === "object";
  const read = await readNetworkNone(client, {
    daemonPath: DAEMON_IN_COMPUTER,
    ...(open ? {} : { interfaces: ["lo"] }),
    ...(open ? { targets: OPEN_PROBE_TARGETS } : sb.o.probeTargets ? { targets: sb.o.probeTargets } : {}),
    ...(recorded ? { user: recorded.user } : {}),
    ...(signal ? { signal } : {}),
  });
  if (!read.ok) return allow ? fail(read.error.code, `network allow, but not through its proxy alone: ${read.error.message}`) : read;
  if (!open) return read;
  const others = read.value.probe.interfaces.filter((i) => i !== "lo");
  if (others.length === 0) return fail("refused", "network open, but the computer's programs see lo alone: init runs in a network of its own, not the Pod's");
  return ok({ ...read.value, notes: [] });
}

/**
 * A joined computer's list: its proxy's ConfigMap, and the digest its sidecar's log says it holds,
 * held to that list ("not yet" within listSyncMs of a change, drift past it).
 */
async function joinedRead(sb: KubePods, proxies: KubeEgressProxies, pod: Pod, proxy: string, signal: AbortSignal | undefined): Promise<Result<JoinedRead>> {
  const cm = await proxies.configMap(proxy, signal);
  if (!cm.ok) return cm;
  if (!cm.value) {
    const why = `network allow, but its egress proxy ${proxy} is gone (no ConfigMap ${proxy}): its sidecar holds the last list the kubelet wrote`;
    return ok({ network: { other: why }, drift: why.replace(/^network allow, but its /, "the ") });
  }
  const holds = await proxies.sidecarHolds(pod.metadata.name, signal);
  if (!holds.ok) return holds;
  const held = heldOf(cm.value, sb.o.egress.testRange);
  const read = joinedNetwork(held, holds.value, Date.now(), sb.o.t.listSyncMs);
  // The sidecar's rules are its proxy's as its computer started: a ConfigMap's changed since (by hand) is drift, host by host.
  const hosts = rulesChangedHosts(sidecarRules(sidecarOf(pod)), held.rules);
  if (hosts.length === 0) return ok(read);
  const words = `the egress proxy ${proxy}'s ConfigMap holds other rules for ${hosts.join(", ")} than ${pod.metadata.name}'s sidecar runs (a computer runs its proxy's rules as they were at its start)`;
  return ok({ ...read, drift: read.drift ? `${read.drift}; ${words}` : words });
}

export async function inspectPod(
  sb: KubePods,
  pod: Pod,
  options: { connection?: Connection; signal?: AbortSignal | undefined; proxies?: KubeEgressProxies },
): Promise<Result<ReadBack>> {
  const name = pod.metadata.name;
  const recorded = recordedSpec(pod);
  const network = recordedNetwork(recorded);
  const spec = specOf(pod, recorded);
  let state = computerState(pod);
  const sidecar = sidecarOf(pod);
  const drift = podDrift(pod, { runtimeClass: runtimeClassOf(recorded?.runtime, sb.o), pullPolicy: sb.o.pullPolicy });
  const gvisor = sb.o.gvisorRuntimeClass !== undefined && pod.spec?.runtimeClassName === sb.o.gvisorRuntimeClass;
  if (gvisor) spec.runtime = "gvisor";
  // A Pod on a lost node reads Running for minutes after its computer ended with the node.
  const node = pod.spec?.nodeName;
  let nodeKernel: string | undefined;
  if (state === "running" && node) {
    const read = await sb.nodeState(node, options.signal);
    if (!read.ok) return read;
    nodeKernel = read.value.kernel;
    if (read.value.lost) {
      state = "stopped";
      drift.push(`${name} ended: ${read.value.lost}`);
    }
  }
  const labels = decodeLabels(pod.metadata.labels ?? {}, recordedLabels(pod.metadata.annotations));
  const notes: string[] = [];
  let held: ProxyHeld | undefined;
  if (typeof network === "object") {
    const want = await sidecarWant(sb, pod, recorded, options.signal);
    if (!want.ok) return want;
    if (want.value.note) notes.push(want.value.note);
    spec.network = podNetwork(network, sidecar, want.value.want);
    if (recorded?.egress !== undefined) spec.egress = recorded.egress;
    if (typeof spec.network === "object" && "other" in spec.network) drift.push(spec.network.other.replace(/^network allow, but its /, "the "));
    else if (recorded?.egress !== undefined) {
      const joined = options.proxies
        ? await joinedRead(sb, options.proxies, pod, recorded.egress, options.signal)
        : ok({ network: { other: `network allow, but its egress proxy ${recorded.egress} cannot be read here` } } as JoinedRead);
      if (!joined.ok) return joined;
      spec.network = joined.value.network;
      if (joined.value.drift) drift.push(joined.value.drift);
      if (joined.value.note) notes.push(joined.value.note);
    } else if (!sameNetwork(spec.network, network))
      drift.push(`the egress proxy holds the list ${JSON.stringify(spec.network)}, not the declared ${JSON.stringify(network)}`);
    // A sidecar as made: what it enforces beyond its list, proven from inside below while the computer runs.
    if (typeof spec.network === "object" && "allow" in spec.network) {
      const joined = recorded?.egress !== undefined && options.proxies ? { proxy: recorded.egress, proxies: options.proxies } : undefined;
      const read = await sidecarHeld(sidecar, joined, options.signal);
      if (!read.ok) return read;
      held = read.value;
      spec.enforced = held.enforced;
    }
  }
  let hello: Hello | undefined;
  if (state === "running") {
    const opened = options.connection ? ok(options.connection) : await sb.open(name, options.signal);
    if (!opened.ok) {
      if (opened.error.code === "aborted") return opened;
      drift.push(opened.error.message);
    } else {
      const connection = opened.value;
      hello = connection.hello;
      drift.push(...helloDrift(hello, sb.want()));
      if (gvisor && node) {
        const kernel = await gvisorKernel(connection.client, node, nodeKernel, options.signal);
        if (kernel.drift) drift.push(kernel.drift);
        if (kernel.note) notes.push(kernel.note);
      }
      const probe = await probeNetwork(sb, connection.client, network, recorded, options.signal);
      // A browser: Chromium alive with its network's flags, answering CDP.
      const browsing = recorded?.kind === "browser" ? await browserMismatches(connection.client, network, BROWSER_PROFILE, options.signal) : [];
      const inside = held && (await enforcedFromInside(held, connection.client, options.signal));
      if (inside) {
        spec.enforced = inside.enforced;
        drift.push(...inside.drift);
      }
      if (!options.connection) await connection.close();
      if (options.signal?.aborted) return fail("aborted", `reading ${name} was aborted`);
      if (!probe.ok) {
        spec.network = { other: probe.error.message };
        drift.push(probe.error.message);
      } else {
        const user = `${probe.value.probe.uid}:${probe.value.probe.gid}`;
        if (recorded && user !== recorded.user) drift.push(`its programs run as ${user}, not the computer's user ${recorded.user}`);
        notes.push(...probe.value.notes);
      }
      drift.push(...browsing);
    }
  }
  const ref: ComputerRef = {
    id: idOf(name, pod.metadata.uid),
    name,
    provider: "kubernetes",
    spec,
    ...(notes.length > 0 ? { notes } : {}),
    ...(hello ? { hello } : {}),
  };
  return ok({ ref, state, labels, ...(hello ? { hello } : {}), drift });
}
