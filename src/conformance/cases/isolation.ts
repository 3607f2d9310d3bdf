// isolation: what a program in the computer can reach and hold: no network with network none,
// not the vendor's agent nor the outside (through computerd probe), and no capability for any user.
import { parseProbeLine } from "../../contract/probe.js";
import { check, idsOf, must, output, privilegeOf, shown } from "../assert.js";
import { conformanceCase, type CaseContext } from "../case.js";
import { DAEMON_IN_COMPUTER } from "../../contract/daemon-path.js";

/** A public IP literal and a DNS name: the outside a computer with network none must not reach. */
export const OUTSIDE_TARGETS = ["1.1.1.1:443", "example.com:443"] as const;

/** The targets the vendor-agent case probes: each agent port on both loopbacks, then the outside. */
export function vendorAgentTargets(ports: readonly number[]): string[] {
  return [...ports.flatMap((port) => [`127.0.0.1:${port}`, `[::1]:${port}`]), ...OUTSIDE_TARGETS];
}

/** Every way a probe's line breaks the rule: a target not refused, not probed, or an interface past lo. */
export function probeProblems(line: string, targets: readonly string[]): string[] {
  const read = parseProbeLine(line);
  if (!read.ok) return [read.error.message];
  const parsed = read.value;
  const problems: string[] = [];
  if (shown(parsed.interfaces) !== shown(["lo"])) problems.push(`the probe sees the interfaces ${parsed.interfaces.join(", ") || "none"}, not lo alone`);
  for (const target of targets) {
    const result = parsed.results.find((r) => r.target === target);
    if (!result) problems.push(`${target} has no result`);
    else if (result.outcome !== "refused") problems.push(`${target} ${result.outcome}${result.detail ? ` (${result.detail})` : ""}`);
  }
  if (parsed.reached.length > 0) problems.push(`reached: ${parsed.reached.join(", ")}`);
  if (parsed.accepted.length > 0) problems.push(`accepted with no answer: ${parsed.accepted.join(", ")}`);
  return problems;
}

/** The interfaces /proc/net/dev lists. */
export function interfacesOf(netDev: string): string[] {
  return netDev
    .split("\n")
    .slice(2)
    .map((line) => line.split(":")[0]?.trim() ?? "")
    .filter(Boolean);
}

async function privileges(t: CaseContext, user: string, uid: number, gid: number) {
  const ref = await t.create({ user });
  const attached = must(await t.provider.attach({ id: ref.id }, { signal: t.signal }), `attach of ${ref.name}`);
  check(attached.spec?.user === `${uid}:${gid}`, `a computer asked for user ${user} reads back as ${shown(attached.spec?.user)}, not ${uid}:${gid}`);
  const connection = await t.connect(ref);
  const { status, problems } = await privilegeOf(connection.client, t.signal);
  const ids = idsOf(status);
  check(ids?.uid === uid && ids.gid === gid, `a program runs as ${shown(ids)}, not uid ${uid} gid ${gid}`);
  check(problems.length === 0, `a program of a computer asked for user ${user} holds privilege: ${problems.join("; ")}`);
}

export const isolationCases = [
  conformanceCase("isolation.network-none", "core", { networks: ["none"], groups: ["exec"] }, async (t) => {
    const read = must(await t.provider.network(t.computer, undefined, { signal: t.signal }), "network read back");
    check(read === "none", `the computer made with network none reads back ${shown(read)}`);
    const interfaces = interfacesOf(await output(t.client, ["cat", "/proc/net/dev"], { signal: t.signal }));
    check(shown(interfaces) === shown(["lo"]), `a program of a computer with network none sees the interfaces ${interfaces.join(", ")}, not lo alone`);
  }),

  conformanceCase("isolation.vendor-agent", "core", { vendorAgent: true, groups: ["exec"] }, async (t) => {
    const targets = vendorAgentTargets(t.capabilities.vendorAgentPorts ?? []);
    const line = await output(t.client, [DAEMON_IN_COMPUTER, "probe", ...targets.flatMap((target) => ["--connect", target])], {
      signal: t.signal,
      timeoutMs: 30_000,
    });
    const problems = probeProblems(line.trim(), targets);
    check(problems.length === 0, `a program of the computer reaches past its own loopback: ${problems.join("; ")}`);
  }),

  conformanceCase("isolation.user-root", "full", { user: "root", groups: ["exec"] }, (t) => privileges(t, "0", 0, 0)),

  conformanceCase("isolation.user-uid", "full", { user: "uid", groups: ["exec"] }, (t) => privileges(t, "4242:4242", 4242, 4242)),
];
