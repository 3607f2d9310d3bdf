// Daytona's snapshots: POST /sandbox/{id}/snapshot takes a computer's disk as a Daytona snapshot
// a sandbox is made from (snapshot://daytona/<its name>), GET /snapshots/{name} reads it back, and
// DELETE /snapshots/{id} removes it. The name carries the computer's and, for an owner, the owner's
// hash (<computer>-snapshot-[<owner>-]<hex>), since Daytona keeps no labels or note on a snapshot (a
// take given either is refused): a take for an owner adopts or removes what an interrupted take of
// that owner left, found by that name in GET /snapshots.
import { randomBytes } from "node:crypto";
import type { CallOptions } from "../daemon/client.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import type { SnapshotHooks } from "../contract/provider.js";
import { parseSnapshotImage, SNAPSHOT_LABEL, snapshotImage, type Snapshot } from "../contract/state.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { waitUntil } from "../contract/wait.js";
import { CHILD_RUN_DIR } from "../kits/agent-child/install.js";
import { expect, expectDone } from "./api.js";
import { TIMEOUTS } from "./constants.js";
import { isComputer, isGoing } from "./readback.js";
import { PROVIDER_ID, type DaytonaSandboxes } from "./sandboxes.js";
import { SnapshotDto, SnapshotPage } from "./schemas.js";
import { OWNER_LABEL, ownerLabel } from "../contract/labels.js";
import { adoptLeft } from "../contract/snapshot-adopt.js";

const NAME = /^(computer-[0-9a-f]{12})-snapshot-(?:([0-9a-f]{32})-)?[0-9a-f]{12}$/;
const PAGE_LIMIT = 100;
const MAX_PAGES = 1000;
const GIB = 1024 ** 3;
const FAILED = new Set(["error", "build_failed"]);

/** What a Daytona snapshot holds, in words (Daytona takes the whole disk). */
export const HOLDS = `the sandbox's whole disk as Daytona's snapshot takes it: its files with their owners and modes, the daemon at ${DAEMON_IN_COMPUTER} (a fork's create installs its own over it) and the socket folder ${CHILD_RUN_DIR} among them (init makes a fresh socket); no process; a Daytona computer is given no secret and no mount`;

/** The Daytona snapshot's name of a snapshot image, or why it is none of Daytona's. */
export function snapshotName(image: string): Result<string> {
  const parsed = parseSnapshotImage(image);
  if (!parsed || parsed.provider !== PROVIDER_ID || !NAME.test(parsed.id))
    return fail("invalid", `${image} is not a Daytona snapshot of this provider (snapshot://daytona/<computer>-snapshot-[<32 hex digits>-]<12 hex digits>)`, {
      field: "image",
    });
  return ok(parsed.id);
}

function snapshotOf(dto: SnapshotDto): Snapshot {
  const [, computer = "", owner] = NAME.exec(dto.name) ?? [];
  return {
    image: snapshotImage(PROVIDER_ID, dto.name),
    computer,
    sizeBytes: Math.round((dto.size ?? 0) * GIB),
    takenAt: new Date(dto.createdAt).toISOString(),
    holds: HOLDS,
    labels: { [SNAPSHOT_LABEL]: "1", ...(owner ? { [OWNER_LABEL]: owner } : {}) },
  };
}

export function daytonaSnapshots(sb: DaytonaSandboxes): SnapshotHooks {
  const get = async (name: string, signal?: AbortSignal): Promise<Result<SnapshotDto>> => {
    const what = `reading the snapshot ${name}`;
    return expect(await sb.call(`/snapshots/${encodeURIComponent(name)}`, what, { signal, retry: true }), what, SnapshotDto);
  };

  /** DELETE by its id, then the wait until Daytona reads it gone. */
  const removeNamed = async (name: string, options: CallOptions = {}): Promise<Result<undefined>> => {
    const found = await get(name, options.signal);
    if (!found.ok) return found.error.code === "not_found" ? ok() : found;
    const what = `deleting the snapshot ${name}`;
    const answer = await sb.call(`/snapshots/${encodeURIComponent(found.value.id)}`, what, { method: "DELETE", signal: options.signal, retry: true });
    if (!(answer.ok && answer.value.status === 404)) {
      const done = expectDone(answer, what);
      if (!done.ok) return done;
    }
    const gone = await waitUntil(
      async (s) => {
        const read = await get(name, s);
        return read.ok ? read.value.state : read.error.code === "not_found" ? "gone" : read.error.message;
      },
      (state) => state === "gone",
      { boundMs: TIMEOUTS.snapshotMs, signal: options.signal, minMs: sb.o.pollMs, what: `the snapshot ${name} to be gone`, describe: (s) => s },
    );
    return gone.ok ? ok() : gone;
  };

  /** Every snapshot Daytona lists whose name starts so, every page. */
  const listNamed = async (prefix: string, signal?: AbortSignal): Promise<Result<SnapshotDto[]>> => {
    const out: SnapshotDto[] = [];
    for (let page = 1; page <= MAX_PAGES; page += 1) {
      const what = "listing the snapshots";
      const read = expect(
        await sb.call("/snapshots", what, { query: { page: String(page), limit: String(PAGE_LIMIT) }, signal, retry: true }),
        what,
        SnapshotPage,
      );
      if (!read.ok) return read;
      out.push(...read.value.items.filter((s) => s.name.startsWith(prefix)));
      if (page >= read.value.totalPages) return ok(out);
    }
    return fail("failed", `Daytona's listing of snapshots never ended (${MAX_PAGES} pages)`);
  };

  /** Before a take for an owner: what an interrupted take of it left, the newest active adopted, every other removed. */
  const adoptOrClear = async (prefix: string, signal?: AbortSignal): Promise<Result<SnapshotDto | undefined>> => {
    const listed = await listNamed(prefix, signal);
    if (!listed.ok) return listed;
    const active = listed.value.filter((s) => s.state === "active");
    for (const other of listed.value.filter((s) => s.state !== "active")) {
      const removed = await removeNamed(other.name, { signal });
      if (!removed.ok) return removed;
    }
    return adoptLeft(
      active.map((s) => ({ snapshot: s, takenAt: Date.parse(s.createdAt) })),
      (s) => removeNamed(s.name, { signal }),
    );
  };

  return {
    async take(ref, options = {}) {
      const { signal } = options;
      if (Object.keys(options.labels ?? {}).length > 0)
        return fail("unsupported", "a Daytona snapshot keeps no labels, so labels are refused; nothing was taken", { field: "labels" });
      if (options.note) return fail("unsupported", "a Daytona snapshot keeps no note, so a note is refused; nothing was taken", { field: "note" });
      const target = ref?.id ?? ref?.name;
      if (typeof target !== "string" || !target) return fail("invalid", "a Daytona computer's ref has its sandbox id", { field: "computer" });
      const read = await sb.get(target, signal);
      if (!read.ok)
        return read.error.code === "not_found" ? fail("not_found", `no computer ${target} at Daytona, so no snapshot was taken`, { field: "computer" }) : read;
      const sandbox = read.value;
      if (!isComputer(sandbox) || isGoing(sandbox))
        return fail("not_found", `${target} is not a computer of this provider (or is going), so no snapshot was taken`, { field: "computer" });
      const owned = options.owner === undefined ? "" : `${ownerLabel(options.owner)[OWNER_LABEL]}-`;
      if (owned) {
        const adopted = await adoptOrClear(`${sandbox.name}-snapshot-${owned}`, signal);
        if (!adopted.ok) return adopted;
        if (adopted.value) return ok(snapshotOf(adopted.value));
      }
      const name = `${sandbox.name}-snapshot-${owned}${randomBytes(6).toString("hex")}`;
      const what = `taking the snapshot ${name} of ${sandbox.name}`;
      const asked = await sb.call(`/sandbox/${encodeURIComponent(sandbox.id)}/snapshot`, what, { method: "POST", body: { name }, signal });
      const answered4xx = asked.ok && asked.value.status >= 400 && asked.value.status < 500;
      const taken = expectDone(asked, what);
      // Without a 4xx answer the snapshot may be under way all the same: it is removed.
      if (!taken.ok && answered4xx) return fail(taken.error.code, `${taken.error.message}; nothing was taken`);
      const waited = taken.ok
        ? await waitUntil(
            async (s) => {
              const one = await get(name, s);
              return one.ok ? one.value : one.error.code === "not_found" ? undefined : one.error.message;
            },
            (state) => typeof state === "object" && (state.state === "active" || FAILED.has(state.state)),
            {
              boundMs: TIMEOUTS.snapshotMs,
              signal,
              minMs: sb.o.pollMs,
              what: `the snapshot ${name} to be active`,
              describe: (s) => (typeof s === "object" ? s.state : (s ?? "not yet listed")),
            },
          )
        : taken;
      if (waited.ok && typeof waited.value === "object" && waited.value.state === "active") return ok(snapshotOf(waited.value));
      const why = !waited.ok
        ? waited.error.message
        : `Daytona reads it ${typeof waited.value === "object" ? `${waited.value.state}${waited.value.errorReason ? ` (${waited.value.errorReason})` : ""}` : "unknown"}`;
      const removed = await removeNamed(name);
      return fail(
        waited.ok ? "failed" : waited.error.code,
        `${what} failed: ${why}; ${removed.ok ? "what was begun was removed" : `${name} may be left: ${removed.error.message}`}`,
      );
    },
    async read(image, options = {}) {
      const name = snapshotName(image);
      if (!name.ok) return name;
      const found = await get(name.value, options.signal);
      if (!found.ok) return found.error.code === "not_found" ? fail("not_found", `the snapshot ${image} is gone from Daytona`) : found;
      if (FAILED.has(found.value.state)) return fail("failed", `the snapshot ${image} reads ${found.value.state} at Daytona`);
      return ok(snapshotOf(found.value));
    },
    async remove(image, options = {}) {
      const name = snapshotName(image);
      return name.ok ? removeNamed(name.value, options) : name;
    },
  };
}
