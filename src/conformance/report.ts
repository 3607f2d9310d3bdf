// The report: one zod schema that the runner builds to, the CLI's --json prints, and the tests
// validate against; and the Core verdict drawn from the results.
import { z } from "zod";
import { MACHINE_KINDS } from "../daemon/protocol.js";
import { RUNTIMES } from "../contract/runtime.js";
import { CASE_GROUPS, LEVELS } from "./case.js";

export const CASE_STATUSES = ["pass", "fail", "skip"] as const;
export const CORE_VERDICTS = ["pass", "fail", "partial"] as const;

export const CaseResult = z.object({
  id: z.string(),
  /** As counted: a Core case skipped for a need not declared is optional for this computer. */
  level: z.enum(LEVELS),
  group: z.enum(CASE_GROUPS),
  status: z.enum(CASE_STATUSES),
  /** What a failing case found, or why a case skipped. */
  reason: z.string().optional(),
  /** The needs not declared that skipped (or failed) it. */
  undeclared: z.array(z.string()).optional(),
});
export type CaseResult = z.infer<typeof CaseResult>;

export const Cleanup = z.object({
  /** Computers of the run's label still listed at the end, and snapshots still read back after their removal. */
  left: z.array(z.string()),
  /** A release, sweep or list that failed or did not answer in time, and creates still pending. */
  errors: z.array(z.string()),
  /** Computers and connections that arrived after their case ended, deleted or closed as they came. */
  late: z.array(z.string()),
});
export type Cleanup = z.infer<typeof Cleanup>;

export const KindVerdict = z.object({
  kind: z.string(),
  verdict: z.enum(["pass", "fail"]),
  reasons: z.array(z.string()),
});
export type KindVerdict = z.infer<typeof KindVerdict>;

export const ConformanceReport = z.object({
  provider: z.string(),
  providerVersion: z.string(),
  kind: z.enum(MACHINE_KINDS),
  daemonMode: z.enum(["pid1", "child", "none"]),
  /** The runtime every computer of the run ran under, when the run named one (--runtime). */
  runtime: z.enum(RUNTIMES).optional(),
  image: z.string(),
  /** The shared computer's hello; null when no daemon answered. */
  daemon: z.object({ version: z.string(), os: z.string(), arch: z.string() }).nullable(),
  runId: z.string(),
  only: z.array(z.string()).optional(),
  coreNotRun: z.array(z.string()).optional(),
  results: z.array(CaseResult),
  core: z.enum(CORE_VERDICTS),
  /** Every need not declared, once each. */
  undeclared: z.array(z.string()),
  cleanup: Cleanup,
  notes: z.array(z.string()).optional(),
  computerNotes: z.array(z.object({ computer: z.string(), note: z.string() })).optional(),
  kindVerdict: KindVerdict.optional(),
  durationMs: z.number().int().min(0),
});
export type ConformanceReport = z.infer<typeof ConformanceReport>;

/** Nothing was left and no cleanup call failed. */
export function cleanupClean(cleanup: Cleanup): boolean {
  return cleanup.left.length === 0 && cleanup.errors.length === 0;
}

/**
 * Core passes when every Core case passed (a skipped one is not a pass) and nothing was left. A
 * partial run (--only leaving Core cases out) is at best partial, never pass.
 */
export function coreVerdict(results: readonly CaseResult[], cleanup: Cleanup, partial: boolean): (typeof CORE_VERDICTS)[number] {
  const core = results.filter((r) => r.level === "core");
  const clean = core.every((r) => r.status === "pass") && cleanupClean(cleanup);
  if (partial) return clean ? "partial" : "fail";
  return clean && core.length > 0 ? "pass" : "fail";
}
