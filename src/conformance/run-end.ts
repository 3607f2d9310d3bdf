// A run's end: the shared computer closed and released, what is still coming waited for within
// the bound, the janitor's sweep of the run's label, and the label listed to show nothing is
// left (anything listed is released all the same, and Core fails).
import { sweep } from "../fleet/janitor.js";
import { CASE_LABEL, CONFORMANCE_LABEL, settle, TIMED_OUT, within } from "./ledger.js";
import type { Run, SharedOutcome } from "./run-state.js";

export async function endRun(run: Run, { shared }: SharedOutcome): Promise<void> {
  const { ledger, provider, cleanupTimeoutMs } = run;
  run.progress({ type: "cleanup" });
  if (shared) {
    await ledger.close(shared.connection, "the shared computer");
    await ledger.release({ ref: shared.ref, by: provider, owner: "the shared computer" });
  }
  // What settles may start more (a late computer's release), so wait until none is left or the bound.
  const waitEnd = Date.now() + cleanupTimeoutMs;
  while (ledger.pending.size > 0 && Date.now() < waitEnd) await within(Promise.allSettled([...ledger.pending.keys()]), waitEnd - Date.now());
  for (const what of ledger.pending.values())
    ledger.cleanup.errors.push(`${what} had not answered ${cleanupTimeoutMs / 1000} s after the cases ended: what it makes may be left`);
  if (run.caps.lifetime === "janitor") await sweepRun(run);
  await listLeft(run);
}

async function sweepRun({ provider, runLabel, runId, cleanupTimeoutMs, ledger }: Run): Promise<void> {
  const swept = await within(
    settle(() => sweep(provider, { labels: runLabel, signal: AbortSignal.timeout(cleanupTimeoutMs) })),
    cleanupTimeoutMs,
  );
  if (swept === TIMED_OUT) ledger.cleanup.errors.push(`the sweep of ${CONFORMANCE_LABEL}=${runId} did not answer within ${cleanupTimeoutMs / 1000} s`);
  else if (!swept.ok) ledger.cleanup.errors.push(`the sweep of ${CONFORMANCE_LABEL}=${runId} failed (${swept.error.code}): ${swept.error.message}`);
}

async function listLeft({ provider, runLabel, runId, cleanupTimeoutMs, ledger }: Run): Promise<void> {
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
}
