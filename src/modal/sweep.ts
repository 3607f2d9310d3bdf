// The Modal sweep around a live run: what the app held before (every running sandbox carrying
// agentrun.computer=1), and after, every such sandbox not in that record terminated and read back
// until it reports an exit code or Modal no longer knows it. A sandbox in the record is never named
// by any call.
import { fail, ok, type Result } from "../daemon/result.js";
import { waitUntil } from "../contract/wait.js";
import { bounded, codeOf } from "./calls.js";
import { COMPUTER_TAG, TIMEOUTS } from "./constants.js";
import type { ModalSdk } from "./sdk.js";

/** What --before records: the app and server the ids belong to. */
export interface SweepRecord {
  app: string;
  server: string;
  ids: string[];
}

export interface SweepOutcome {
  swept: number;
  gone: number;
  stillThere: string[];
}

/** Each swept sandbox is read back for at most this long. */
export const SWEEP_WAIT_MS = 60_000;

async function appId(sdk: ModalSdk, app: string): Promise<Result<string | undefined>> {
  const read = await bounded(() => sdk.apps.fromName(app, { createIfMissing: false }), { what: `apps.fromName of ${app}`, ms: TIMEOUTS.callMs });
  if (read.ok) return ok(read.value.appId);
  // An app not made yet holds no sandbox.
  return read.error.code === "not_found" ? ok(undefined) : read;
}

/** The ids of the app's running sandboxes that carry agentrun.computer=1. */
export async function computerIds(sdk: ModalSdk, app: string): Promise<Result<string[]>> {
  const id = await appId(sdk, app);
  if (!id.ok) return id;
  if (id.value === undefined) return ok([]);
  const appIdValue = id.value;
  return bounded(
    async () => {
      const ids: string[] = [];
      for await (const sandbox of sdk.sandboxes.list({ appId: appIdValue, tags: { [COMPUTER_TAG]: "1" } })) ids.push(sandbox.sandboxId);
      return ids;
    },
    { what: "sandboxes.list", ms: TIMEOUTS.listMs },
  );
}

/** Why a record cannot be swept against this app and server, or undefined. */
export function recordProblem(record: unknown, app: string, server: string): string | undefined {
  const r = record as Partial<SweepRecord> | null;
  if (
    typeof r !== "object" ||
    r === null ||
    typeof r.app !== "string" ||
    typeof r.server !== "string" ||
    !Array.isArray(r.ids) ||
    !r.ids.every((x) => typeof x === "string")
  ) {
    return "the before file is not a sweep record ({ app, server, ids })";
  }
  if (r.app !== app) return `the before file is of the app ${r.app}, not ${app}: every computer of this app would read as new`;
  if (r.server !== server) return `the before file is of another server than ${server}: every computer there would read as new`;
  return undefined;
}

/** Terminates every computer not in the record, and reads each back until it has finished. */
export async function sweep(sdk: ModalSdk, record: SweepRecord, waitMs = SWEEP_WAIT_MS): Promise<Result<SweepOutcome>> {
  const now = await computerIds(sdk, record.app);
  if (!now.ok) return now;
  const before = new Set(record.ids);
  const fresh = now.value.filter((id) => !before.has(id));
  const stillThere: string[] = [];
  await Promise.all(
    fresh.map(async (id) => {
      const sandbox = await bounded(() => sdk.sandboxes.fromId(id), { what: `sandboxes.fromId of ${id}`, ms: TIMEOUTS.callMs });
      if (!sandbox.ok) {
        if (sandbox.error.code !== "not_found") stillThere.push(id);
        return;
      }
      const sent = await bounded(() => sandbox.value.terminate(), { what: `terminate of ${id}`, ms: TIMEOUTS.callMs });
      if (!sent.ok && sent.error.code !== "not_found") return void stillThere.push(id);
      const ended = await waitUntil(
        async () => {
          try {
            return (await sandbox.value.poll()) !== null;
          } catch (error) {
            if (codeOf(error) === "not_found") return true;
            throw error;
          }
        },
        (done) => done,
        { boundMs: waitMs, minMs: TIMEOUTS.releasePollMs, what: `${id} to finish` },
      );
      if (!ended.ok) stillThere.push(id);
    }),
  );
  if (stillThere.length > fresh.length) return fail("failed", "the sweep counted more sandboxes than it swept");
  return ok({ swept: fresh.length, gone: fresh.length - stillThere.length, stillThere: stillThere.sort() });
}
