// Network none, read from inside: where a vendor reads no network policy back, computerd probe
// stands for one. A provider runs it through exec.run at create and attach, and network none
// holds only when no target answers within the probe's window. A target that accepted a TCP
// connection and sent nothing back is kept, and named in the read-back's notes.
import { z } from "zod";
import { CallError, asFailure, issuesInWords, type ComputerClient } from "../daemon/client.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { boundedBy } from "../daemon/bound.js";

/** Modal's and E2B's targets: TCP to three resolvers on 443, and DNS over UDP. */
export const DEFAULT_PROBE_TARGETS: readonly string[] = [
  "1.1.1.1:443",
  "8.8.8.8:443",
  "[2606:4700:4700::1111]:443",
  "1.1.1.1:53/udp",
  "[2606:4700:4700::1111]:53/udp",
];
/** The probe's exec.run is bounded at 30 s; the longest probe takes 20 s (10 to connect, 10 to answer). */
export const PROBE_TIMEOUT_MS = 30_000;
/** computerd probe takes at most this many targets. */
export const MAX_PROBE_TARGETS = 16;

export const PROBE_OUTCOMES = ["refused", "accepted", "answered"] as const;
export const PROBE_VERDICTS = ["egress", "accepted-only", "none"] as const;

export const ProbeTargetResult = z.object({
  target: z.string(),
  protocol: z.enum(["tcp", "udp"]),
  outcome: z.enum(PROBE_OUTCOMES),
  bytes: z.number().int().min(0),
  detail: z.string(),
});
export type ProbeTargetResult = z.infer<typeof ProbeTargetResult>;

/** The one JSON line computerd probe prints (daemon/internal/probe's Report). */
export const ProbeLine = z.object({
  uid: z.number().int(),
  gid: z.number().int(),
  kernel: z.string(),
  /** The interfaces up or addressed: ["lo"] alone under --own-network and Docker's --network none. */
  interfaces: z.array(z.string()),
  /** The targets that answered. */
  reached: z.array(z.string()),
  /** The TCP targets that accepted and sent nothing back. */
  accepted: z.array(z.string()),
  results: z.array(ProbeTargetResult),
  /** --diagnose's alone. */
  verdict: z.enum(PROBE_VERDICTS).optional(),
});
export type ProbeLine = z.infer<typeof ProbeLine>;

/** Reads computerd probe's stdout: one JSON line. */
export function parseProbeLine(stdout: string): Result<ProbeLine> {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return fail("protocol", `computerd probe printed no JSON line: ${clip(stdout)}`);
  }
  const line = ProbeLine.safeParse(value);
  if (!line.success) {
    return fail("protocol", `computerd probe's line is not a probe report: ${issuesInWords(line.error)}`);
  }
  return ok(line.data);
}

export interface ProbeOptions {
  /** computerd's path inside the computer. */
  daemonPath: string;
  /** host:port or host:port/udp, each; DEFAULT_PROBE_TARGETS when absent (a provider's probeTargets). */
  targets?: readonly string[];
  /** exec.run's user: the computer's own, so the probe reads what its programs reach. */
  user?: string;
  /** The interfaces the probe must read (["lo"] under --own-network); any others are drift. */
  interfaces?: readonly string[];
  signal?: AbortSignal;
}

export interface NetworkNoneReadBack {
  probe: ProbeLine;
  /** For the read-back's notes: the targets that accepted and sent nothing back, when any did. */
  notes: string[];
}

/**
 * Runs computerd probe through exec.run (bounded at 30 s) and holds its line to network none:
 * refused in words when any target answered or the interfaces are not those given; the targets
 * that only accepted are named in notes, never refused and never hidden.
 */
export async function readNetworkNone(client: ComputerClient, options: ProbeOptions): Promise<Result<NetworkNoneReadBack>> {
  const targets = options.targets ?? DEFAULT_PROBE_TARGETS;
  if (targets.length === 0) return fail("invalid", "probeTargets is empty: network none is read from at least one target");
  if (targets.length > MAX_PROBE_TARGETS) {
    return fail("invalid", `probeTargets holds ${targets.length} targets; computerd probe takes at most ${MAX_PROBE_TARGETS}`);
  }
  const argv = [options.daemonPath, "probe", ...targets.flatMap((t) => ["--connect", t])];
  const { bound, signal } = boundedBy(PROBE_TIMEOUT_MS, options.signal);
  let run;
  try {
    run = await client.call("exec.run", { argv, timeoutMs: PROBE_TIMEOUT_MS, ...(options.user === undefined ? {} : { user: options.user }) }, { signal });
  } catch (error) {
    if (error instanceof CallError && error.kind === "aborted" && bound.aborted && !options.signal?.aborted) {
      return fail("timeout", `computerd probe gave no answer within ${PROBE_TIMEOUT_MS / 1000} s, so network none is not read back`);
    }
    const { code, message } = asFailure(error).error;
    return fail(code, `computerd probe could not run, so network none is not read back: ${message}`);
  }
  const stdout = Buffer.from(run.stdout, "base64").toString("utf8").trim();
  const stderr = Buffer.from(run.stderr, "base64").toString("utf8").trim();
  if (run.timedOut) return fail("timeout", `computerd probe did not finish within ${PROBE_TIMEOUT_MS / 1000} s, so network none is not read back`);
  if (run.exitCode === 2) return fail("invalid", `computerd probe refused its targets: ${clip(stderr)}`);
  if (run.exitCode !== 0) {
    const end = run.exitCode === null ? `was ended by ${run.signal ?? "a signal"}` : `exited ${run.exitCode}`;
    return fail("refused", `computerd probe ${end}, so network none is not read back: ${clip(stderr || stdout)}`);
  }
  const parsed = parseProbeLine(stdout);
  if (!parsed.ok) return parsed;
  const probe = parsed.value;
  if (probe.results.length !== targets.length) {
    return fail("protocol", `computerd probe reported ${probe.results.length} results for ${targets.length} targets`);
  }
  if (options.interfaces && probe.interfaces.join(",") !== options.interfaces.join(",")) {
    return fail(
      "refused",
      `the computer's programs see the interfaces ${probe.interfaces.join(", ") || "none"}, not ${options.interfaces.join(", ")} alone: its network is not its own loopback`,
    );
  }
  const answered = probe.results.filter((r) => r.outcome === "answered");
  if (answered.length > 0 || probe.reached.length > 0) {
    const named = answered.map((r) => `${r.target} (${r.detail}, ${r.bytes} bytes)`).join("; ") || probe.reached.join(", ");
    return fail("refused", `network none does not hold: ${named} answered from inside the computer within the probe's window`);
  }
  const notes = probe.accepted.length > 0 ? [`network: none; accepted with no answer (no bytes came back): ${probe.accepted.join(", ")}`] : [];
  return ok({ probe, notes });
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > 400 ? `${one.slice(0, 400)}...` : one || "(nothing)";
}
