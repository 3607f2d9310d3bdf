// The cases of a run: each case's needs, then its run, bounded, in parallel up to the run's
// concurrency; groups reported as they start and end.
import { CaseFailure } from "./assert.js";
import { type CaseGroup, type ConformanceCase, Skip } from "./case.js";
import { caseContext } from "./case-context.js";
import { CaseRun } from "./case-run.js";
import { needsVerdict } from "./needs.js";
import type { CaseResult } from "./report.js";
import { CONCURRENCY, type Run, type SharedOutcome } from "./run-state.js";
import { makeDir } from "./shared.js";

/** Runs every selected case, each result in run.results. */
export async function runCases(run: Run, selected: readonly ConformanceCase[], shared: SharedOutcome): Promise<void> {
  const record = groupRecorder(run, selected);
  // Cases with computers of their own start first: they take longest. A case marked last waits for every other.
  const queue = selected.filter((c) => !c.last).sort((a, b) => Number(a.shared) - Number(b.shared));
  const workers = Array.from({ length: Math.max(1, run.options.concurrency ?? CONCURRENCY) }, async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      record.start(c);
      record.done(c, await caseResult(run, c, shared));
    }
  });
  await Promise.all(workers);
  for (const c of selected.filter((s) => s.last)) {
    record.start(c);
    record.done(c, await caseResult(run, c, shared));
  }
}

/** Each case's result kept, and its group's start and end told as they come. */
function groupRecorder(run: Run, selected: readonly ConformanceCase[]) {
  const totals = new Map<CaseGroup, number>();
  for (const c of selected) totals.set(c.group, (totals.get(c.group) ?? 0) + 1);
  const state = new Map<CaseGroup, { done: number; at: number }>();
  return {
    start(c: ConformanceCase) {
      if (state.has(c.group)) return;
      state.set(c.group, { done: 0, at: Date.now() });
      run.progress({ type: "group-start", group: c.group, cases: totals.get(c.group)! });
    },
    done(c: ConformanceCase, result: CaseResult) {
      run.results.set(c.id, result);
      const group = state.get(c.group)!;
      group.done += 1;
      if (group.done !== totals.get(c.group)) return;
      const mine = selected.filter((s) => s.group === c.group).map((s) => run.results.get(s.id)!);
      run.progress({
        type: "group-end",
        group: c.group,
        passed: mine.filter((r) => r.status === "pass").length,
        failed: mine.filter((r) => r.status === "fail").length,
        skipped: mine.filter((r) => r.status === "skip").length,
        ms: Date.now() - group.at,
      });
    },
  };
}

/** One case: skipped or failed by its needs, else run within its bound and ended (its computers released). */
async function caseResult(run: Run, c: ConformanceCase, outcome: SharedOutcome): Promise<CaseResult> {
  const { id, level, group } = c;
  const verdict = needsVerdict(c, run.provider, run.caps, outcome.hello);
  if (!verdict.run) {
    const shown = verdict.fail ? level : level === "core" ? "optional" : level;
    return { id, level: shown, group, status: verdict.fail ? "fail" : "skip", reason: verdict.reason, undeclared: verdict.undeclared };
  }
  const { shared } = outcome;
  if (c.shared && !shared) return { id, level, group, status: "fail", reason: outcome.problem ?? "no shared computer" };
  if (run.signal?.aborted) return { id, level, group, status: "fail", reason: "the run was aborted before the case started" };

  const caseRun = new CaseRun(c, run.ledger, run.base);
  const onRunAbort = () => caseRun.controller.abort();
  run.signal?.addEventListener("abort", onRunAbort, { once: true });
  const timer = setTimeout(() => caseRun.controller.abort(), run.caseTimeoutMs);
  let dir = "";
  const context = caseContext(run, c, caseRun, outcome, () => dir);
  let result: CaseResult;
  try {
    // A computer with no HOME (a phone: neither exec nor files) gets no directory.
    if (c.shared && shared?.base) {
      dir = `${shared.base}/${c.id}`;
      await caseRun.untilEnd(makeDir(shared, run.caps, dir, caseRun.controller.signal), `making ${dir}`);
    }
    const ran = await caseRun.untilEnd(c.run(context), c.id);
    result = ran instanceof Skip ? { id, level, group, status: "skip", reason: ran.reason } : { id, level, group, status: "pass" };
  } catch (error) {
    result = { id, level, group, status: "fail", reason: failureWords(run, caseRun, error) };
  } finally {
    clearTimeout(timer);
    run.signal?.removeEventListener("abort", onRunAbort);
  }
  await caseRun.end();
  return result;
}

/** Why a case failed: its bound, the run's abort, its own words, or what it threw. */
function failureWords(run: Run, caseRun: CaseRun, error: unknown): string {
  const timedOut = caseRun.controller.signal.aborted && !run.signal?.aborted;
  if (timedOut) return `the case ran past ${run.caseTimeoutMs / 1000} s; its computers were deleted`;
  if (run.signal?.aborted) return "the run was aborted";
  if (error instanceof CaseFailure) return error.message;
  return `the case threw: ${error instanceof Error ? error.message : String(error)}`;
}
