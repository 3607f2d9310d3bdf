// A provider's capability row for the computers of one runtime: gVisor's computers may hold less
// than runc's (on Docker here, network none alone), and a run or a preview that asks for a runtime
// is held to what that runtime's computers hold, not to the provider's row for runc.
import type { Capabilities } from "./provider.js";
import type { Runtime } from "./runtime.js";

/** The capability row for computers of the runtime, or why the provider's computers cannot run under it. */
export function capabilitiesUnder(caps: Capabilities, runtime: Runtime): Capabilities | string {
  if (runtime === "runc") return caps;
  const holds = caps.runtimes?.[runtime];
  if (holds === undefined) return `the provider's ${caps.kind} computers do not run under runtime ${runtime} (its capabilities name no such runtime)`;
  return { ...caps, network: caps.network.filter((kind) => holds.network.includes(kind)) };
}
