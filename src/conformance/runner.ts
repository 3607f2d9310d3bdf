// runConformance: the cases against one provider, each bounded, in parallel where each has its own
// computers; every computer the run made released at the end, and the run's label listed to show
// nothing is left. Returns the report; never throws for what a provider does. Its steps:
// run-cases.ts, run-end.ts, run-report.ts, over one Run (run-state.ts).
import type { Capabilities, ComputerProvider } from "../contract/provider.js";
import { capabilitiesUnder } from "../contract/runtime-capabilities.js";
import { fail, type Result } from "../daemon/result.js";
import type { ConformanceCase } from "./case.js";
import { casesFor, kindCases, kindProblem } from "./kind.js";
import { CASE_LABEL } from "./ledger.js";
import type { ConformanceReport } from "./report.js";
import { runCases } from "./run-cases.js";
import { endRun } from "./run-end.js";
import { reportOf } from "./run-report.js";
import { type ConformanceOptions, newRun, type Run, type SharedOutcome } from "./run-state.js";
import { makeShared } from "./shared.js";

export { CASE_LABEL, CONFORMANCE_LABEL } from "./ledger.js";
export { CASE_TIMEOUT_MS, CLEANUP_TIMEOUT_MS, CONCURRENCY, type ConformanceOptions, LIFETIME_MS, type Progress, SHARED_TIMEOUT_MS } from "./run-state.js";

/** Ids earlier reports printed, before the suite took the spec's: --only still takes them. */
export const CASE_ALIASES: Readonly<Record<string, string>> = {
  "provider.release-stop": "provider.stop",
  "lifetime.janitor": "provider.janitor",
};

/** The cases --only names (an old id by its alias), and the names that are neither a group nor a case. */
export function selectCases(cases: readonly ConformanceCase[], only: readonly string[]): { selected: ConformanceCase[]; unknown: string[] } {
  const names = only.map((name) => CASE_ALIASES[name] ?? name);
  const unknown = only.filter((_, i) => !cases.some((c) => c.id === names[i] || c.group === names[i]));
  const selected = cases.filter((c) => names.includes(c.id) || names.includes(c.group));
  return { selected, unknown };
}

/** The cases a run takes, or why the options cannot be run. */
export function casesOfRun(
  caps: Capabilities,
  options: Pick<ConformanceOptions, "cases" | "kind" | "only" | "runtime">,
): Result<{ all: readonly ConformanceCase[]; selected: readonly ConformanceCase[] }> {
  if (options.kind !== undefined && options.only !== undefined) return fail("invalid", "--kind runs a kind's cases whole; it is never given with --only");
  if (options.runtime !== undefined) {
    const under = capabilitiesUnder(caps, options.runtime);
    if (typeof under === "string") return fail("invalid", `--runtime ${options.runtime}: ${under}`);
  }
  if (options.kind !== undefined) {
    const problem = kindProblem(options.kind);
    if (problem) return fail("invalid", problem);
  }
  const all = options.cases ?? (options.kind !== undefined ? kindCases(options.kind as never) : casesFor(caps.kind));
  if (options.only === undefined) return { ok: true, value: { all, selected: all } };
  const { selected, unknown } = selectCases(all, options.only);
  if (unknown.length > 0) return fail("invalid", `--only names ${unknown.join(", ")}, neither a group nor a case of the suite`);
  return { ok: true, value: { all, selected } };
}

/** Runs the suite against the provider; the report, whatever the provider does. */
export async function runConformance(provider: ComputerProvider, options: ConformanceOptions): Promise<ConformanceReport> {
  const started = Date.now();
  const chosen = casesOfRun(provider.capabilities(), options);
  if (!chosen.ok) throw new TypeError(chosen.error.message, { cause: chosen.error });
  const run = newRun(provider, options);
  const { all, selected } = chosen.value;
  const shared = selected.some((c) => c.shared) ? await sharedComputer(run) : {};
  await runCases(run, selected, shared);
  await endRun(run, shared);
  return reportOf(run, all, selected, shared.hello, started);
}

/** The shared computer, for the cases that run on it, with progress as it is made. */
async function sharedComputer(run: Run): Promise<SharedOutcome> {
  run.progress({ type: "shared", state: "making" });
  const spec = { ...run.base, labels: { ...run.runLabel, [CASE_LABEL]: "shared" } };
  const made = await makeShared(run.provider, run.caps, spec, {
    runId: run.runId,
    ledger: run.ledger,
    boundMs: run.sharedTimeoutMs,
    ...(run.signal ? { signal: run.signal } : {}),
  });
  if ("problem" in made) {
    run.progress({ type: "shared", state: "failed", words: made.problem });
    return { problem: made.problem };
  }
  run.progress({ type: "shared", state: "ready" });
  return { shared: made, hello: made.connection.hello };
}
