// The network read from inside a running computer, through its daemon: init's own network (none,
// and an allowlist's, whose one way out is the relay) reads lo alone and reaches no target; open
// reads the Pod's interfaces beside lo.
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { readNetworkNone } from "../contract/probe.js";
import type { NetworkPolicy } from "../contract/provider.js";
import type { ComputerClient } from "../daemon/client.js";
import { fail, ok } from "../daemon/result.js";
import type { RecordedSpec } from "./pod.js";
import type { KubePods } from "./pods.js";

/** open's probe dials the computer's own loopback alone: it reads the interfaces and sends nothing out. */
const OPEN_PROBE_TARGETS = ["127.0.0.1:9"];

/** The network read from inside: lo alone and no target reached for none and an allowlist; the Pod's interfaces for open. */
export async function probeNetwork(
  sb: KubePods,
  client: ComputerClient,
  network: NetworkPolicy,
  recorded: RecordedSpec | undefined,
  signal: AbortSignal | undefined,
) {
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
