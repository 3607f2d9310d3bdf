// runConformance: the cases against one provider, each bounded, in parallel where each has its own
// computers; every computer the run made released at the end, and the run's label listed to show
// nothing is left. Returns the report; never throws for what a provider does.
import { randomBytes } from "node:crypto";
import type { CallOptions } from "../daemon/client.js";
import { sweep } from "../fleet/janitor.js";
import type { MountKind } from "../vendor/mount.js";
import type { Hello } from "../daemon/protocol.js";
import type { Capabilities, ComputerProvider, ComputerSpec } from "../vendor/provider.js";
import { fail, type Result } from "../vendor/result.js";
import { CaseFailure } from "./assert.js";
import { type CaseContext, type CaseGroup, type ConformanceCase, type MountFor, Skip } from "./case.js";
import { CaseRun } from "./case-run.js";
import { casesFor, kindCases, kindProblem, kindVerdict } from "./kind.js";
import { CASE_LABEL, CONFORMANCE_LABEL, Ledger, settle, TIMED_OUT, within } from "./ledger.js";
import { needsVerdict } from "./needs.js";
import { type CaseResult, type ConformanceReport, coreVerdict } from "./report.js";
import { makeDir, makeShared, type Shared } from "./shared.js";

export { CASE_LABEL, CONFORMANCE_LABEL } from "./ledger.js";

export const LIFETIME_MS = 30 * 60_000;
export const CASE_TIMEOUT_MS = 3 * 60_000;
export const CLEANUP_TIMEOUT_MS = 60_000;
export const SHARED_TIMEOUT_MS = 3 * 60_000;
/** Cases in flight at once. */
export const CONCURRENCY = 8;

export type Progress =
  | { type: "shared"; state: "making" | "ready" | "failed"; words?: string }
  | { type: "group-start"; group: CaseGroup; cases: number }
  | { type: "group-end"; group: CaseGroup; passed: number; failed: number; skipped: number; ms: number }
  | { type: "cleanup" };

export interface ConformanceOptions extends CallOptions {
  image: string;
  /** Groups or case ids; leaving a Core case out makes the run partial. */
  only?: string[];
  /** A setting or machine kind: runs kindCases(kind) and adds the kind's verdict. Never with only. */
  kind?: string;
  drifted?: ComputerProvider;
  mountFor?: MountFor;
  caseTimeoutMs?: number;
  cleanupTimeoutMs?: number;
  /** The bound on the shared computer's create and connect. */
  sharedTimeoutMs?: number;
  fixture?: string;
  fetch?: typeof fetch;
  /** The cases to run (default casesFor(kind)). */
  cases?: readonly ConformanceCase[];
  concurrency?: number;
  /** Words the provider's conformance module adds (conformanceNotes). */
  notes?: string[];
  onProgress?(event: Progress): void;
}

/** The cases --only names, and the names that are neither a group nor a case. */
export function selectCases(cases: readonly ConformanceCase[], only: readonly string[]): { selected: ConformanceCase[]; unknown: string[] } {
  const unknown = only.filter((name) => !cases.some((c) => c.id === name || c.group === name));
  const selected = cases.filter((c) => only.includes(c.id) || only.includes(c.group));
  return { selected, unknown };
}

/** The cases a run takes, or why the options cannot be run. */
export function casesOfRun(
  caps: Pick<Capabilities, "kind">,
  options: Pick<ConformanceOptions, "cases" | "kind" | "only">,
): Result<{ all: readonly ConformanceCase[]; selected: readonly ConformanceCase[] }> {
  if (options.kind !== undefined && options.only !== undefined) return fail("invalid", "--kind runs a kind's cases whole; it is never given with --only");
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
  const caps = provider.capabilities();
  const runId = randomBytes(4).toString("hex");
  const caseTimeoutMs = options.caseTimeoutMs ?? CASE_TIMEOUT_MS;
  const cleanupTimeoutMs = options.cleanupTimeoutMs ?? CLEANUP_TIMEOUT_MS;
  const sharedTimeoutMs = options.sharedTimeoutMs ?? SHARED_TIMEOUT_MS;
  const progress = options.onProgress ?? (() => {});
  const chosen = casesOfRun(caps, options);
  if (!chosen.ok) throw new TypeError(chosen.error.message, { cause: chosen.error });
  const { all, selected } = chosen.value;
  const ledger = new Ledger(cleanupTimeoutMs);
  const runLabel = { [CONFORMANCE_LABEL]: runId };
  const base: ComputerSpec = { image: options.image, lifetimeMs: LIFETIME_MS, network: "none", labels: runLabel };
  const results = new Map<string, CaseResult>();
  const runSignal = options.signal;

  // The shared computer, for the cases that run on it.
  let shared: Shared | undefined;
  let sharedProblem: string | undefined;
  let hello: Hello | undefined;
  if (selected.some((c) => c.shared)) {
    progress({ type: "shared", state: "making" });
    const spec = { ...base, labels: { ...runLabel, [CASE_LABEL]: "shared" } };
    const made = await makeShared(provider, caps, spec, { runId, ledger, boundMs: sharedTimeoutMs, ...(runSignal ? { signal: runSignal } : {}) });
    if ("problem" in made) sharedProblem = made.problem;
    else {
      shared = made;
      hello = made.connection.hello;
    }
    progress(shared ? { type: "shared", state: "ready" } : { type: "shared", state: "failed", words: sharedProblem! });
  }

  // Each case: its needs, then its run, bounded; groups reported as they start and end.
  const groupTotals = new Map<CaseGroup, number>();
  for (const c of selected) groupTotals.set(c.group, (groupTotals.get(c.group) ?? 0) + 1);
  const groupState = new Map<CaseGroup, { done: number; at: number }>();
  const record = (c: ConformanceCase, result: CaseResult) => {
    results.set(c.id, result);
    const state = groupState.get(c.group)!;
    state.done += 1;
    if (state.done === groupTotals.get(c.group)) {
      const mine = selected.filter((s) => s.group === c.group).map((s) => results.get(s.id)!);
      progress({
        type: "group-end",
        group: c.group,
        passed: mine.filter((r) => r.status === "pass").length,
        failed: mine.filter((r) => r.status === "fail").length,
        skipped: mine.filter((r) => r.status === "skip").length,
        ms: Date.now() - state.at,
      });
    }
  };

  const runCase = async (c: ConformanceCase): Promise<void> => {
    if (!groupState.has(c.group)) {
      groupState.set(c.group, { done: 0, at: Date.now() });
      progress({ type: "group-start", group: c.group, cases: groupTotals.get(c.group)! });
    }
    const verdict = needsVerdict(c, provider, caps, hello);
    if (!verdict.run) {
      const level = verdict.fail ? c.level : c.level === "core" ? "optional" : c.level;
      return record(c, { id: c.id, level, group: c.group, status: verdict.fail ? "fail" : "skip", reason: verdict.reason, undeclared: verdict.undeclared });
    }
    if (c.shared && !shared) return record(c, { id: c.id, level: c.level, group: c.group, status: "fail", reason: sharedProblem ?? "no shared computer" });
    if (runSignal?.aborted)
      return record(c, { id: c.id, level: c.level, group: c.group, status: "fail", reason: "the run was aborted before the case started" });

    const run = new CaseRun(c, ledger, base);
    const onRunAbort = () => run.controller.abort();
    runSignal?.addEventListener("abort", onRunAbort, { once: true });
    const timer = setTimeout(() => run.controller.abort(), caseTimeoutMs);
    let dir = "";
    const noShared = () => {
      throw new CaseFailure(`${c.id} reached for the shared computer, which a case that declares shared: false does not get`);
    };
    const context: CaseContext = {
      provider,
      capabilities: caps,
      runId,
      image: options.image,
      signal: run.controller.signal,
      get computer() {
        return shared?.ref ?? noShared();
      },
      get client() {
        return shared?.connection.client ?? noShared();
      },
      get hello() {
        return shared?.connection.hello ?? noShared();
      },
      get home() {
        return shared?.home ?? noShared();
      },
      get dir() {
        return dir || noShared();
      },
      drifted: options.drifted,
      fixture: options.fixture,
      labels: run.labels,
      spec: (extra) => run.spec(extra),
      create: async (extra) => {
        const made = await run.attempt(run.spec(extra), provider);
        if (!made.ok) throw new CaseFailure(`create failed (${made.error.code}): ${made.error.message}`);
        return made.value;
      },
      attempt: (spec, by) => run.attempt(spec, by ?? provider),
      connect: (ref, by) => run.connect(ref, by ?? provider),
      runFolder: async (kind: MountKind) => {
        if (!options.mountFor) return undefined;
        const given = Promise.resolve(options.mountFor(kind));
        // A folder that comes after the case ended is closed as it comes.
        void given.then(
          (folder) => {
            if (!folder) return;
            if (run.open) run.folders.push(folder);
            else
              void ledger.track(
                folder.close().catch(() => {}),
                `the late run folder of ${c.id}`,
              );
          },
          () => {},
        );
        return run.untilEnd(given, `the run folder of kind ${kind}`);
      },
      sleep: (ms) =>
        new Promise((resolve) => {
          const timer = setTimeout(resolve, ms);
          run.controller.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
        }),
    };
    let result: CaseResult;
    try {
      if (c.shared && shared) {
        dir = `${shared.base}/${c.id}`;
        await run.untilEnd(makeDir(shared, caps, dir, run.controller.signal), `making ${dir}`);
      }
      const outcome = await run.untilEnd(c.run(context), c.id);
      result =
        outcome instanceof Skip
          ? { id: c.id, level: c.level, group: c.group, status: "skip", reason: outcome.reason }
          : { id: c.id, level: c.level, group: c.group, status: "pass" };
    } catch (error) {
      const timedOut = run.controller.signal.aborted && !runSignal?.aborted;
      const words = timedOut
        ? `the case ran past ${caseTimeoutMs / 1000} s; its computers were deleted`
        : runSignal?.aborted
          ? "the run was aborted"
          : error instanceof CaseFailure
            ? error.message
            : `the case threw: ${error instanceof Error ? error.message : String(error)}`;
      result = { id: c.id, level: c.level, group: c.group, status: "fail", reason: words };
    } finally {
      clearTimeout(timer);
      runSignal?.removeEventListener("abort", onRunAbort);
    }
    await run.end();
    record(c, result);
  };

  // Cases with computers of their own start first: they take longest.
  const queue = [...selected].sort((a, b) => Number(a.shared) - Number(b.shared));
  const workers = Array.from({ length: Math.max(1, options.concurrency ?? CONCURRENCY) }, async () => {
    for (let c = queue.shift(); c; c = queue.shift()) await runCase(c);
  });
  await Promise.all(workers);

  // The end: the shared computer, what is still coming, the janitor, and the label listed.
  progress({ type: "cleanup" });
  if (shared) {
    await ledger.close(shared.connection, "the shared computer");
    await ledger.release({ ref: shared.ref, by: provider, owner: "the shared computer" });
  }
  // What settles may start more (a late computer's release), so wait until none is left or the bound.
  const waitEnd = Date.now() + cleanupTimeoutMs;
  while (ledger.pending.size > 0 && Date.now() < waitEnd) await within(Promise.allSettled([...ledger.pending.keys()]), waitEnd - Date.now());
  for (const what of ledger.pending.values())
    ledger.cleanup.errors.push(`${what} had not answered ${cleanupTimeoutMs / 1000} s after the cases ended: what it makes may be left`);
  if (caps.lifetime === "janitor") {
    const swept = await within(
      settle(() => sweep(provider, { labels: runLabel, signal: AbortSignal.timeout(cleanupTimeoutMs) })),
      cleanupTimeoutMs,
    );
    if (swept === TIMED_OUT) ledger.cleanup.errors.push(`the sweep of ${CONFORMANCE_LABEL}=${runId} did not answer within ${cleanupTimeoutMs / 1000} s`);
    else if (!swept.ok) ledger.cleanup.errors.push(`the sweep of ${CONFORMANCE_LABEL}=${runId} failed (${swept.error.code}): ${swept.error.message}`);
  }
  const listed = await within(
    settle(() => provider.list(runLabel, { signal: AbortSignal.timeout(cleanupTimeoutMs) })),
    cleanupTimeoutMs,
  );
  if (listed === TIMED_OUT) ledger.cleanup.errors.push(`the list of ${CONFORMANCE_LABEL}=${runId} did not answer within ${cleanupTimeoutMs / 1000} s`);
  else if (!listed.ok) ledger.cleanup.errors.push(`the list of ${CONFORMANCE_LABEL}=${runId} failed (${listed.error.code}): ${listed.error.message}`);
  else {
    for (const info of listed.value) {
      ledger.cleanup.left.push(`${info.ref.name} (${info.labels[CASE_LABEL] ?? "no case"}, ${info.state})`);
      // Left all the same (Core fails), but not left running.
      await ledger.release({ ref: info.ref, by: provider, owner: info.labels[CASE_LABEL] ?? "the run" });
    }
  }

  const ordered = selected.map((c) => results.get(c.id)!);
  const partial = options.only !== undefined;
  let coreNotRun: string[] | undefined;
  if (partial) {
    const ran = new Set(selected.map((c) => c.id));
    coreNotRun = all
      .filter((c) => c.level === "core" && !ran.has(c.id))
      .filter((c) => {
        const verdict = needsVerdict(c, provider, caps, hello);
        return verdict.run || verdict.fail;
      })
      .map((c) => c.id);
  }
  const wholeAfterAll = partial && coreNotRun!.length === 0;
  const undeclared = [...new Set(ordered.flatMap((r) => r.undeclared ?? []))];
  const notes = [...(options.notes ?? [])];
  const report: ConformanceReport = {
    provider: provider.id,
    providerVersion: provider.version,
    kind: caps.kind,
    daemonMode: caps.daemon,
    image: options.image,
    daemon: hello ? { version: hello.version, os: hello.os, arch: hello.arch } : null,
    runId,
    ...(options.only ? { only: [...options.only] } : {}),
    ...(partial && !wholeAfterAll ? { coreNotRun } : {}),
    results: ordered,
    core: coreVerdict(ordered, ledger.cleanup, partial && !wholeAfterAll),
    undeclared,
    cleanup: ledger.cleanup,
    ...(notes.length > 0 ? { notes } : {}),
    ...(ledger.computerNotes.length > 0 ? { computerNotes: ledger.computerNotes } : {}),
    durationMs: Date.now() - started,
  };
  if (options.kind !== undefined) report.kindVerdict = kindVerdict(options.kind as never, caps, ordered, ledger.cleanup, all);
  return report;
}
