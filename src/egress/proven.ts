// The computer's own proof, from inside, that the proxy on its path enforces its rules: per rule,
// one request the rule allows and one no rule of its host allows, each sent as the computer's user
// through init's relay (127.0.0.1:3128, the path every program's traffic takes) marked judge-only
// (the Agentrun-Judge header, daemon/internal/egress/proxy/judge.go). The proxy answers the verdict
// it would give and sends nothing on, so a create or a `pulumi preview --refresh` never reads a
// user's API. The rules proven are those the proxy holds (its argv on Docker; on Kubernetes its
// ConfigMap's, which its log says it holds): a shared proxy's
// rules change by update under running computers, so only the proxy knows what they are now; what
// the proof adds is that the proxy the computer's traffic reaches is the one that holds them.
// The requests are sent by `computerd judge` (daemon/internal/judge), the daemon's own binary,
// which every computer has whatever its image holds: per probe, the last line the proxy answers,
// "unreached" when the relay refuses, "unanswered" when its 20 s pass.
import type { ComputerClient } from "../daemon/client.js";
import { runText } from "../daemon/processes.js";
import { covers, type EgressRule, RULE_METHODS, ruleAllows } from "./rules.js";

/** One judge-only request, and whether the rules let it pass. */
export interface JudgeProbe {
  host: string;
  method: string;
  path: string;
  passes: boolean;
}

/** A rule's host as a request names it: a *.suffix rule's by a name under the suffix. */
const hostOf = (ruleHost: string) => (ruleHost.startsWith("*.") ? `agentrun-judge${ruleHost.slice(1)}` : ruleHost);

/** The methods a refused probe tries, a write first: what a rule that reads alone most means to refuse. */
const REFUSED_FIRST = ["POST", ...RULE_METHODS.filter((m) => m !== "POST")];

/**
 * The probes that prove a set of rules: per rule, the first method and path it allows, and, when
 * one exists, a request no rule of its host allows (a method it does not name, POST first, else a path beside
 * its first). A rule of every method on / refuses nothing, so it has no refused probe.
 */
export function judgeProbes(rules: readonly EgressRule[]): JudgeProbe[] {
  const probes = new Map<string, JudgeProbe>();
  const passes = (host: string, method: string, path: string) => rules.some((r) => covers(r.host, host) && ruleAllows(r, method, path));
  const add = (host: string, method: string, path: string) =>
    probes.set(`${method} ${host}${path}`, { host, method, path, passes: passes(host, method, path) });
  for (const rule of rules) {
    const host = hostOf(rule.host);
    const first = (rule.paths ?? ["/"])[0] ?? "/";
    add(host, rule.methods?.[0] ?? "GET", first);
    const refused = [
      ...REFUSED_FIRST.filter((m) => rule.methods && !rule.methods.includes(m)).map((m) => [m, first] as const),
      ["GET", `${first.replace(/\/$/, "")}-agentrun-refused`] as const,
      ["GET", "/agentrun-refused"] as const,
    ].find(([m, p]) => p.startsWith("/") && !passes(host, m, p));
    if (refused) add(host, refused[0], refused[1]);
  }
  return [...probes.values()];
}

/** What a verdict line must start with for a probe. */
function expected(probe: JudgeProbe): string {
  return probe.passes
    ? `200 ${probe.method} ${probe.path} would pass for ${probe.host}:`
    : `403 ${probe.method} ${probe.path} is not allowed for ${probe.host} `;
}

/**
 * The rules proven from inside, run as the computer's user through its daemon (`computerd judge`,
 * from daemonPath, where the computer holds computerd): each probe whose
 * verdict is not the rules' is a mismatch naming its host, method and path; none when every one
 * holds (or there are no rules).
 */
export async function unprovenRules(client: ComputerClient, rules: readonly EgressRule[], daemonPath: string, signal?: AbortSignal): Promise<string[]> {
  const probes = judgeProbes(rules);
  if (probes.length === 0) return [];
  const argv = [daemonPath, "judge", ...probes.flatMap((p) => [p.host, p.method, p.path])];
  let lines: string[];
  try {
    const ran = runText(await client.call("exec.run", { argv, timeoutMs: 30_000 }, signal ? { signal } : {}));
    if (ran.exitCode !== 0)
      return [`its proxy's rules could not be proven from inside (computerd judge exited ${ran.exitCode}: ${ran.stderr.trim().slice(0, 200)})`];
    lines = ran.stdout.split("\n");
  } catch (error) {
    return [`its proxy's rules could not be proven from inside: ${error instanceof Error ? error.message : String(error)}`];
  }
  return probes.flatMap((probe, i) => {
    const verdict = lines[i] ?? "";
    if (verdict.startsWith(expected(probe))) return [];
    const should = probe.passes ? "pass, as its proxy's rules allow it" : "be refused, as no rule of its proxy allows it";
    return [
      `from inside, ${probe.method} ${probe.path} to ${probe.host} should ${should}, but the proxy on its path answered ${JSON.stringify(verdict.slice(0, 300))}`,
    ];
  });
}
