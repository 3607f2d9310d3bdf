// What a case is handed: the provider, the shared computer (refused to a case that declares
// shared: false), its own creates and connects through its CaseRun, run folders, and a sleep
// that ends with the case.
import type { MountKind } from "../contract/mount.js";
import { CaseFailure } from "./assert.js";
import type { CaseContext, ConformanceCase } from "./case.js";
import type { CaseRun } from "./case-run.js";
import type { Run, SharedOutcome } from "./run-state.js";

/** The case's context; dir() is the case's directory on the shared computer, once made. */
export function caseContext(run: Run, c: ConformanceCase, caseRun: CaseRun, { shared }: SharedOutcome, dir: () => string): CaseContext {
  const { provider, options } = run;
  const noShared = () => {
    throw new CaseFailure(`${c.id} reached for the shared computer, which a case that declares shared: false does not get`);
  };
  return {
    provider,
    capabilities: run.caps,
    runId: run.runId,
    image: options.image,
    signal: caseRun.controller.signal,
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
      return dir() || noShared();
    },
    drifted: options.drifted,
    fixture: options.fixture,
    labels: caseRun.labels,
    spec: (extra) => caseRun.spec(extra),
    create: async (extra) => {
      const made = await caseRun.attempt(caseRun.spec(extra), provider);
      if (!made.ok) throw new CaseFailure(`create failed (${made.error.code}): ${made.error.message}`);
      return made.value;
    },
    attempt: (spec, by) => caseRun.attempt(spec, by ?? provider),
    connect: (ref, by) => caseRun.connect(ref, by ?? provider),
    snapshot: (ref) => caseRun.snapshot(ref, provider),
    runFolder: (kind: MountKind) => runFolder(run, c, caseRun, kind),
    sleep: (ms) =>
      new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        caseRun.controller.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      }),
  };
}

/** A run folder of a kind from the run's mountFor, closed with the case (or as it comes, when it comes after the case ended). */
async function runFolder(run: Run, c: ConformanceCase, caseRun: CaseRun, kind: MountKind) {
  if (!run.options.mountFor) return undefined;
  const given = Promise.resolve(run.options.mountFor(kind));
  void given.then(
    (folder) => {
      if (!folder) return;
      if (caseRun.open) caseRun.folders.push(folder);
      else
        void run.ledger.track(
          folder.close().catch(() => {}),
          `the late run folder of ${c.id}`,
        );
    },
    () => {},
  );
  return caseRun.untilEnd(given, `the run folder of kind ${kind}`);
}
