// A run's report from its results: the Core verdict (partial when --only left a Core case out
// that would have run), what the provider did not declare, the cleanup, and the kind's verdict.
import type { Hello } from "../daemon/protocol.js";
import type { ConformanceCase } from "./case.js";
import { kindVerdict } from "./kind.js";
import { needsVerdict } from "./needs.js";
import { type ConformanceReport, coreVerdict } from "./report.js";
import type { Run } from "./run-state.js";

export function reportOf(
  run: Run,
  all: readonly ConformanceCase[],
  selected: readonly ConformanceCase[],
  hello: Hello | undefined,
  started: number,
): ConformanceReport {
  const { provider, caps, options, ledger } = run;
  const ordered = selected.map((c) => run.results.get(c.id)!);
  const partial = options.only !== undefined;
  const coreNotRun = partial ? coreLeftOut(run, all, selected, hello) : undefined;
  const wholeAfterAll = partial && coreNotRun!.length === 0;
  const undeclared = [...new Set(ordered.flatMap((r) => r.undeclared ?? []))];
  const notes = [...(options.notes ?? [])];
  const report: ConformanceReport = {
    provider: provider.id,
    providerVersion: provider.version,
    kind: caps.kind,
    daemonMode: caps.daemon,
    ...(options.runtime ? { runtime: options.runtime } : {}),
    image: options.image,
    daemon: hello ? { version: hello.version, os: hello.os, arch: hello.arch } : null,
    runId: run.runId,
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

/** The Core cases --only left out that would have run (or failed by their needs). */
function coreLeftOut(run: Run, all: readonly ConformanceCase[], selected: readonly ConformanceCase[], hello: Hello | undefined): string[] {
  const ran = new Set(selected.map((c) => c.id));
  return all
    .filter((c) => c.level === "core" && !ran.has(c.id))
    .filter((c) => {
      const verdict = needsVerdict(c, run.provider, run.caps, hello);
      return verdict.run || verdict.fail;
    })
    .map((c) => c.id);
}
