// A Pod read back whole, as create's last check and read() both take it: the Pod's own drift
// (spec, status, container state, labels, node), an allowlist's sidecar held to what it must be
// (egress.ts) and a joined proxy's list (joined-read.ts), then, while it runs, hello against the
// provider's daemon and the probe from inside (network-probe.ts); an allowlist's rules proven
// from inside, and what its sidecar enforces read back (egress-enforced.ts).
import { helloDrift } from "../kits/agent-child/drift.js";
import type { ComputerRef, Connection, ReadBack } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import type { Hello } from "../daemon/protocol.js";
import { sameNetwork } from "../egress/list.js";
import { browserMismatches } from "../kits/browser/computer.js";
import { BROWSER_PROFILE } from "./browser.js";
import { idOf } from "./constants.js";
import { podNetwork } from "./egress.js";
import { joinedRead } from "./joined-read.js";
import { enforcedFromInside, sidecarHeld } from "./egress-enforced.js";
import type { ProxyHeld } from "../egress/enforced.js";
import { decodeLabels, recordedLabels } from "./labels.js";
import { probeNetwork } from "./network-probe.js";
import type { JoinedRead } from "./proxy-configmap.js";
import type { KubeEgressProxies } from "./proxies.js";
import type { KubePods } from "./pods.js";
import { computerState, type Pod, podDrift, recordedNetwork, recordedSpec, sidecarOf, specOf } from "./readback.js";
import { gvisorKernel, runtimeClassOf } from "./runtime.js";
import { driftOfOther } from "../egress/network.js";

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
  const labels = decodeLabels(pod.metadata.labels ?? {}, recordedLabels(pod.metadata.annotations));
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
  const notes: string[] = [];
  let held: ProxyHeld | undefined;
  let joinedRules: string[] | undefined;
  if (typeof network === "object") {
    const want = await sb.sidecarWant(pod, recorded, options.signal);
    if (!want.ok) return want;
    if (want.value.note) notes.push(want.value.note);
    spec.network = podNetwork(network, sidecar, want.value.want);
    if (recorded?.egress !== undefined) spec.egress = recorded.egress;
    if (typeof spec.network === "object" && "other" in spec.network) drift.push(driftOfOther(spec.network.other));
    else if (recorded?.egress !== undefined) {
      const joined = options.proxies
        ? await joinedRead(sb, options.proxies, pod, recorded.egress, options.signal)
        : ok({ network: { other: `network allow, but its egress proxy ${recorded.egress} cannot be read here` } } as JoinedRead);
      if (!joined.ok) return joined;
      spec.network = joined.value.network;
      if (joined.value.drift) drift.push(joined.value.drift);
      if (joined.value.note) notes.push(joined.value.note);
      joinedRules = joined.value.rules;
    } else if (!sameNetwork(spec.network, network))
      drift.push(`the egress proxy holds the list ${JSON.stringify(spec.network)}, not the declared ${JSON.stringify(network)}`);
    // A sidecar as made: what it enforces beyond its list, proven from inside below while the computer runs.
    if (typeof spec.network === "object" && "allow" in spec.network) {
      const joined =
        recorded?.egress !== undefined && options.proxies ? { proxy: recorded.egress, proxies: options.proxies, rules: joinedRules ?? [] } : undefined;
      const read = await sidecarHeld(sidecar, joined, options.signal);
      if (!read.ok) return read;
      held = read.value;
      spec.enforced = held.enforced;
    }
  }
  let hello: Hello | undefined;
  if (state === "running") {
    const want = sb.want();
    const opened = options.connection ? ok(options.connection) : await sb.open(name, options.signal);
    if (!opened.ok) {
      if (opened.error.code === "aborted") return opened;
      drift.push(opened.error.message);
    } else {
      const connection = opened.value;
      hello = connection.hello;
      drift.push(...helloDrift(hello, want));
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
