// What a case needs against what the provider (and the shared computer's hello) declares: run it,
// skip it in words naming what is not declared, or fail it when its kind requires the need.
import { coreGroups, type CoreNeed } from "../contract/kinds.js";
import { type Hello, PROVIDER_GROUPS } from "../daemon/protocol.js";
import type { Capabilities, ComputerProvider } from "../contract/provider.js";
import type { ConformanceCase } from "./case.js";

export type NeedsVerdict =
  { run: true } | { run: false; fail: true; reason: string; undeclared: string[] } | { run: false; fail: false; reason: string; undeclared: string[] };

interface Lack {
  /** The need's name in the report (exec, network:open, lifetime:janitor, user:root, mount:archil, extend, vendor-agent, pause:memory, snapshot). */
  name: string;
  /** Why, in words. */
  words: string;
  /** The CoreNeed it is, when the kind can require it. */
  core?: CoreNeed;
}

function lacks(c: ConformanceCase, provider: ComputerProvider, caps: Capabilities, hello: Hello | undefined): Lack[] {
  const out: Lack[] = [];
  const { needs } = c;
  for (const group of needs.groups ?? []) {
    if (!caps.groups.includes(group)) out.push({ name: group, words: `the provider does not declare ${group}`, core: group });
    // A provider's group (cdp, stream, downloads) is the provider's alone: a hello never lists it.
    else if (hello && !isProviderGroup(group) && !hello.groups.includes(group))
      out.push({ name: group, words: `the computer's hello does not declare ${group}`, core: group });
  }
  for (const network of needs.networks ?? []) {
    if (!caps.network.includes(network)) {
      out.push({
        name: `network:${network}`,
        words: `the provider does not declare network ${network}`,
        ...(network === "none" ? { core: "network:none" as const } : {}),
      });
    }
  }
  if (needs.janitor) {
    const why: string[] = [];
    if (caps.lifetime !== "janitor") why.push(`its lifetime is ${caps.lifetime}`);
    if (!caps.release.includes("stop")) why.push("it does not declare release stop");
    if (caps.stopDeletes) why.push("its stop deletes");
    if (why.length > 0) out.push({ name: "lifetime:janitor", words: `the provider has no janitor that keeps stopped computers: ${why.join(", ")}` });
  }
  if (needs.user && !(caps.user ?? []).includes(needs.user))
    out.push({ name: `user:${needs.user}`, words: `the provider does not declare user ${needs.user}` });
  if (needs.mount && !(caps.mount ?? []).includes(needs.mount))
    out.push({ name: `mount:${needs.mount}`, words: `the provider does not declare mount ${needs.mount}` });
  for (const method of needs.methods ?? []) {
    if (typeof (provider as unknown as Record<string, unknown>)[method] !== "function") out.push({ name: method, words: `the provider has no ${method}()` });
  }
  if (needs.undeclaredNetwork && caps.network.includes("open") && caps.network.includes("allow")) {
    out.push({
      name: "network:undeclared",
      words: `not applicable: the provider declares every network (${caps.network.join(", ")}), so there is no network it must refuse`,
    });
  }
  if (needs.vendorAgent && !(caps.vendorAgentPorts && caps.vendorAgentPorts.length > 0)) {
    out.push({
      name: "vendor-agent",
      words: "the provider declares no vendor agent in its computers (capabilities().vendorAgentPorts), so there is nothing of the vendor's to probe",
      core: "vendor-agent",
    });
  }
  if (needs.pause && !caps.pause) out.push({ name: "pause", words: "the provider declares no pause" });
  else if (needs.pause === "memory" && caps.pause !== "memory")
    out.push({ name: "pause:memory", words: `the provider's pause keeps ${caps.pause}, not memory` });
  if (needs.snapshot && !caps.snapshot) out.push({ name: "snapshot", words: "the provider declares no snapshot" });
  return out;
}

/**
 * Run the case; or fail it in words, when it is Core and its kind requires what is missing (a linux
 * computer with daemon pid1 must declare exec: the provider does not declare exec); or skip it,
 * naming each need not declared.
 */
export function needsVerdict(c: ConformanceCase, provider: ComputerProvider, caps: Capabilities, hello: Hello | undefined): NeedsVerdict {
  const missing = lacks(c, provider, caps, hello);
  if (missing.length === 0) return { run: true };
  const required = coreGroups(caps.kind, caps.daemon);
  const owed = c.level === "core" ? missing.filter((m) => m.core !== undefined && required.includes(m.core)) : [];
  const undeclared = missing.map((m) => m.name);
  if (owed.length > 0) {
    const reason = owed.map((m) => `a ${caps.kind} computer with daemon ${caps.daemon} must declare ${m.name}: ${m.words}`).join("; ");
    return { run: false, fail: true, reason, undeclared };
  }
  return { run: false, fail: false, reason: missing.map((m) => m.words).join("; "), undeclared };
}

const isProviderGroup = (group: string) => (PROVIDER_GROUPS as readonly string[]).includes(group);
