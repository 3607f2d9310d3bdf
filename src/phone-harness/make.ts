// The phone harness's hooks of the one create flow (src/contract/create.ts): a POST with an
// Idempotency-Key whose uncertain answer is found again by that key, never sent twice; the
// phone waited for within readyMs; its connection probed. Each part goes on the undo stack, so
// a phone that fails, is not ready in time, or whose ledger write fails is ended.
import { randomUUID } from "node:crypto";
import { failedThen, type CreateHooks, type Creation } from "../contract/create.js";
import type { CheckedSpec, ComputerSpec } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import type { ApiFailure, ApiResult, Session } from "./api.js";
import type { PhoneClient } from "./client.js";
import type { LedgerEntry } from "./ledger.js";
import { PENDING, type Phones } from "./phones.js";

export function phoneHooks(phones: Phones, check: (spec: ComputerSpec) => Result<CheckedSpec>): CreateHooks<CheckedSpec, LedgerEntry, PhoneClient> {
  return {
    check,
    make: (creation) => make(phones, creation),
    ready: (creation, entry) => ready(phones, creation, entry),
    connect: async (creation, entry) => phones.connect(entry.id, creation.signal),
    verify: async (_creation, entry, client) => phones.versionDrift(client) ?? ok(phones.refOf(entry, client.hello)),
    close: (client) => client.close(),
    failed: failedThen(() => "the phone was ended"),
  };
}

/** The POST, its answer made certain by its key, and the phone recorded; the phone's end pushed on the undo stack. */
async function make(phones: Phones, creation: Creation<CheckedSpec>): Promise<Result<LedgerEntry>> {
  const { ledger } = phones.o;
  const requestKey = randomUUID();
  const pending: LedgerEntry = { id: `${PENDING}${requestKey}`, labels: creation.labels, image: creation.spec.image, deadline: creation.deadline, requestKey };
  const put = await written(() => ledger.put(pending));
  if (!put.ok) return put;
  const body = { platform: "android", timeout_seconds: Math.ceil(creation.spec.lifetimeMs / 1000) };
  let made = await phones.api.create(body, requestKey, creation.signal);
  // No answer, a 5xx or a 2xx with no session (or a cancel during the POST): asked by its key, whatever the caller's signal.
  if (!made.ok && made.lost) made = await recovered(phones, requestKey, made);
  if (!made.ok) {
    // A refusal says nothing was made; an answer still lost keeps the pending entry, which list() resolves by the key.
    if (!made.lost) await ledger.remove(pending.id).catch(() => undefined);
    return { ok: false, error: made.error };
  }
  const session = made.value;
  const entry = { ...pending, id: session.id };
  creation.undo.push({
    what: `the phone ${session.id}`,
    run: async (signal) => {
      const ended = await phones.api.end(session.id, signal);
      if (!ended.ok && ended.error.code !== "not_found") return ended;
      await ledger.put({ ...entry, released: true }).catch(() => undefined);
      return ok();
    },
  });
  const recorded = await written(async () => {
    await ledger.put(entry);
    await ledger.remove(pending.id);
  });
  if (!recorded.ok) return recorded;
  if (creation.signal?.aborted) return fail("aborted", "create was aborted during its request; the phone the phone harness made is ended");
  return ok(entry);
}

/** GET /sessions/requests/<key>: the session a lost answer made, or the POST's failure when there is none (a 404 says nothing was made). */
async function recovered(phones: Phones, key: string, post: ApiFailure): Promise<ApiResult<Session>> {
  const found = await phones.api.byKey(key);
  if (found.ok) return found;
  if (found.error.code === "not_found") return { ...post, lost: false };
  return {
    ok: false,
    lost: true,
    error: {
      code: post.error.code,
      message: `${post.error.message}; and the phone harness did not say whether it made a phone (${found.error.message}): list() finds and release() ends one made under this create`,
    },
  };
}

async function written(write: () => Promise<void>): Promise<Result<undefined>> {
  try {
    await write();
    return ok();
  } catch (error) {
    return fail("failed", `the phone ledger could not be written: ${(error as Error).message}`);
  }
}

/** Until the session reads ready, within readyMs and before the deadline: each read bounded by what is left; a read cut off by requestMs is asked again. */
async function ready(phones: Phones, creation: Creation<CheckedSpec>, entry: LedgerEntry): Promise<Result<LedgerEntry>> {
  const { readyMs } = phones.o;
  const until = Math.min(Date.now() + readyMs, Date.parse(creation.deadline));
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) return fail("timeout", `the phone ${entry.id} was not ready within ${readyMs / 1000} s (or before its deadline)`);
    const read = await phones.api.get(entry.id, creation.signal, left);
    if (read.ok && read.value.status === "ready") return ok(entry);
    if (read.ok && /^(failed|error|ended)$/.test(read.value.status)) return fail("failed", `the phone ${entry.id} failed to start (${read.value.status})`);
    if (!read.ok && read.error.code === "aborted") return read;
    if (!read.ok && !read.lost) return read;
    await new Promise((resolve) => setTimeout(resolve, Math.min(500, Math.max(0, until - Date.now()))));
  }
}
