// A Pod read back whole, as create's last check and read() both take it: the Pod's own drift
// (spec, status, container state, labels, node), then, while it runs, hello against the
// provider's daemon and the probe from inside, which reads init's own network as none.
import { helloDrift } from "../contract/agent-child/drift.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { readNetworkNone } from "../contract/probe.js";
import type { ComputerRef, Connection, ReadBack } from "../contract/provider.js";
import { fail, ok, type Result } from "../contract/result.js";
import type { Hello } from "../daemon/protocol.js";
import { decodeLabels, recordedLabels } from "./labels.js";
import type { KubePods } from "./pods.js";
import { computerState, type Pod, podDrift, recordedSpec, specOf } from "./readback.js";

export async function inspectPod(sb: KubePods, pod: Pod, options: { connection?: Connection; signal?: AbortSignal | undefined }): Promise<Result<ReadBack>> {
  const name = pod.metadata.name;
  const recorded = recordedSpec(pod);
  const drift = podDrift(pod, { runtimeClass: sb.o.runtimeClass, pullPolicy: sb.o.pullPolicy });
  const spec = specOf(pod, recorded);
  const notes: string[] = [];
  const state = computerState(pod);
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
      const probe = await readNetworkNone(connection.client, {
        daemonPath: DAEMON_IN_COMPUTER,
        interfaces: ["lo"],
        ...(sb.o.probeTargets ? { targets: sb.o.probeTargets } : {}),
        ...(recorded ? { user: recorded.user } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
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
    }
  }
  const ref: ComputerRef = { id: name, name, provider: "kubernetes", spec, ...(notes.length > 0 ? { notes } : {}), ...(hello ? { hello } : {}) };
  const labels = decodeLabels(pod.metadata.labels ?? {}, recordedLabels(pod.metadata.annotations));
  return ok({ ref, state, labels, ...(hello ? { hello } : {}), drift });
}
