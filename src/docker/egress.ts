// An allowlisted computer's egress parts over the Engine API: made before the computer (the
// volume, then the proxy, then its ready line), found by the label agentrun.computer.egress
// (never by name alone), read back, and removed with the computer or by the sweep.
import type { CallOptions } from "../daemon/client.js";
import { fail, ok, type Result } from "../daemon/result.js";
import type { DockerEngine } from "./api.js";
import { failure } from "./containers.js";
import { DEADLINE_LABEL } from "./constants.js";
import { EGRESS_LABEL, egressName, type EgressPlan, egressProxyRequest, egressVolumeRequest } from "./egress-request.js";
import { framesText } from "./frames.js";
import type { Inspected } from "./readback.js";

/** How long create waits for the proxy's ready line. */
export const EGRESS_READY_MS = 10_000;
const CALL_MS = 60_000;
const READY_LINE = "computerd egress: ready on ";

interface ListedPart {
  Id: string;
  Names?: string[];
  State?: string;
  Created?: number;
  Labels?: Record<string, string> | null;
}

const labelFilter = (labels: string[]) => JSON.stringify({ label: labels });

/**
 * Whom a proxy is made for, which says what its failure removes and leaves: a computer's own (the
 * computer, started beside it, ran nothing of the agent's), a proxy alone, or a proxy made again
 * on the volume its computers mount (the volume kept).
 */
const FAILED_LEAVES = {
  computer: "the proxy, its volume and the computer were removed, and the computer ran nothing",
  proxy: "the proxy and its volume were removed, and nothing is left",
  again: "the proxy was removed, and its computers reach nothing until it is made again",
} as const;
export type EgressFor = keyof typeof FAILED_LEAVES;

const undone = async (engine: DockerEngine, plan: EgressPlan, code: Parameters<typeof fail>[0], words: string, madeFor: EgressFor = "computer") => {
  await removeEgress(engine, plan.key, madeFor === "again" ? "proxy" : "delete");
  return fail(code, `${words}; ${FAILED_LEAVES[madeFor]}`);
};

/**
 * Makes the egress volume, first: the computer's container names it, and Docker would make a
 * plain volume of that name for a container that names one not there.
 */
export async function makeEgressVolume(
  engine: DockerEngine,
  plan: EgressPlan,
  options: CallOptions & { madeFor?: EgressFor } = {},
): Promise<Result<undefined>> {
  const volume = await engine.call("POST", "/volumes/create", { body: egressVolumeRequest(plan), signal: options.signal, timeoutMs: CALL_MS });
  if (volume.ok) return ok();
  const f = failure(engine, `making the egress volume ${egressName(plan.key)}`, volume);
  return undone(engine, plan, f.error.code, f.error.message, options.madeFor);
}

/**
 * Makes and starts the proxy on its volume and waits for its ready line. Any failure removes
 * the proxy and the volume (the proxy alone when it is made "again" on the volume its computers
 * mount) and says why, and what is left for whom it was made (madeFor, default a computer's). A computer started meanwhile serves nothing
 * until the proxy answers on its socket (init waits on it).
 */
export async function makeEgress(
  engine: DockerEngine,
  plan: EgressPlan,
  options: CallOptions & { readyMs?: number; madeFor?: EgressFor } = {},
): Promise<Result<{ proxy: string }>> {
  const { signal } = options;
  const name = egressName(plan.key);
  const undo = (code: Parameters<typeof fail>[0], words: string) => undone(engine, plan, code, words, options.madeFor);
  const request = egressProxyRequest(plan);
  const made = await engine.call<{ Id: string }>("POST", "/containers/create", { query: { name }, body: request.body, signal, timeoutMs: CALL_MS });
  if (!made.ok || !made.value?.Id) {
    if (made.status === 404 && /No such image/i.test(made.message))
      return undo("not_found", `the egress proxy's image ${plan.image} is not on this Docker host`);
    const f = failure(engine, `making the egress proxy ${name}`, made);
    return undo(f.error.code, f.error.message);
  }
  const id = made.value.Id;
  const started = await engine.call("POST", `/containers/${id}/start`, { signal, timeoutMs: CALL_MS });
  if (!started.ok) {
    const f = failure(engine, `starting the egress proxy ${name}`, started);
    return undo(f.error.code, f.error.message);
  }
  const readyMs = options.readyMs ?? EGRESS_READY_MS;
  const until = Date.now() + readyMs;
  for (;;) {
    if (signal?.aborted) return undo("aborted", `create was aborted while the egress proxy ${name} started`);
    const text = await logsOf(engine, id);
    if (text.stdout.includes(READY_LINE)) return ok({ proxy: id });
    const state = await engine.call<Inspected>("GET", `/containers/${id}/json`, { timeoutMs: 10_000 });
    if (state.ok && state.value && !state.value.State?.Running) {
      // Read again: the logs above may predate the proxy's last words.
      const after = await logsOf(engine, id);
      const last = `${after.stderr}\n${after.stdout}`.trim().split("\n").filter(Boolean).pop();
      return undo("failed", `the egress proxy ${name} ended before it was ready (exit code ${state.value.State?.ExitCode ?? "?"}${last ? `: ${last}` : ""})`);
    }
    if (Date.now() >= until) return undo("timeout", `the egress proxy ${name} was not ready within ${readyMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function logsOf(engine: DockerEngine, id: string) {
  const logs = await engine.raw("GET", `/containers/${id}/logs`, { query: { stdout: true, stderr: true }, timeoutMs: 10_000 });
  return logs.ok && logs.value ? framesText(logs.value) : { stdout: "", stderr: "" };
}

/** The egress parts of a computer, by its label: containers, then volumes. */
async function partsOf(engine: DockerEngine, labels: string[]) {
  const filters = labelFilter(labels);
  const [containers, volumes] = await Promise.all([
    engine.call<ListedPart[]>("GET", "/containers/json", { query: { all: true, filters }, timeoutMs: CALL_MS }),
    engine.call<{ Volumes?: Array<{ Name: string; Labels?: Record<string, string> | null; CreatedAt?: string }> | null }>("GET", "/volumes", {
      query: { filters },
      timeoutMs: CALL_MS,
    }),
  ]);
  return { containers, volumes };
}

/**
 * Stops the proxy, or (delete) removes the proxy and its volume, or (proxy) the proxy alone,
 * each found by the label agentrun.computer.egress=<key>. Parts already gone are fine. It runs
 * whatever the caller's signal says: a removal after a failure must finish.
 */
export async function removeEgress(engine: DockerEngine, computer: string, how: "stop" | "delete" | "proxy" = "delete"): Promise<Result<undefined>> {
  const { containers, volumes } = await partsOf(engine, [`${EGRESS_LABEL}=${computer}`]);
  if (!containers.ok) return failure(engine, `finding ${computer}'s egress proxy`, containers);
  for (const c of containers.value ?? []) {
    const done =
      how === "stop"
        ? await engine.call("POST", `/containers/${c.Id}/stop`, { query: { t: 5 }, timeoutMs: CALL_MS })
        : await engine.call("DELETE", `/containers/${c.Id}`, { query: { force: true, v: true }, timeoutMs: CALL_MS });
    if (!done.ok && done.status !== 404 && done.status !== 304 && !(done.status === 409 && /already in progress/i.test(done.message))) {
      return failure(engine, `removing ${computer}'s egress proxy`, done);
    }
  }
  if (how !== "delete") return ok();
  if (!volumes.ok) return failure(engine, `finding ${computer}'s egress volume`, volumes);
  for (const v of volumes.value?.Volumes ?? []) {
    const done = await engine.call("DELETE", `/volumes/${encodeURIComponent(v.Name)}`, { query: { force: true }, timeoutMs: CALL_MS });
    if (!done.ok && done.status !== 404) return failure(engine, `removing ${computer}'s egress volume ${v.Name}`, done);
  }
  return ok();
}

/** The proxy of a computer as docker inspect reports it, or undefined when there is none. */
export async function inspectEgress(engine: DockerEngine, computer: string, options: CallOptions = {}): Promise<Result<Inspected | undefined>> {
  const listed = await engine.call<ListedPart[]>("GET", "/containers/json", {
    query: { all: true, filters: labelFilter([`${EGRESS_LABEL}=${computer}`]) },
    signal: options.signal,
    timeoutMs: CALL_MS,
  });
  if (!listed.ok) return failure(engine, `finding ${computer}'s egress proxy`, listed);
  const found = listed.value ?? [];
  if (found.length !== 1) return ok(undefined);
  const read = await engine.call<Inspected>("GET", `/containers/${found[0]!.Id}/json`, { signal: options.signal, timeoutMs: CALL_MS });
  if (read.status === 404) return ok(undefined);
  if (!read.ok || !read.value) return failure(engine, `inspecting ${computer}'s egress proxy`, read);
  return ok(read.value);
}

/**
 * The proxies of many keys at once (list reads every listed computer's): one list of every
 * egress proxy, then one inspect of each proxy asked for, side by side. A key with no proxy, or
 * more than one, reads undefined, as inspectEgress reads it.
 */
export async function inspectEgressOf(
  engine: DockerEngine,
  keys: readonly string[],
  options: CallOptions = {},
): Promise<Result<Map<string, Inspected | undefined>>> {
  const wanted = [...new Set(keys)];
  const out = new Map<string, Inspected | undefined>();
  if (wanted.length === 0) return ok(out);
  const listed = await engine.call<ListedPart[]>("GET", "/containers/json", {
    query: { all: true, filters: labelFilter([EGRESS_LABEL]) },
    signal: options.signal,
    timeoutMs: CALL_MS,
  });
  if (!listed.ok) return failure(engine, "finding the egress proxies", listed);
  const reads = await Promise.all(
    wanted.map(async (key) => {
      const found = (listed.value ?? []).filter((c) => c.Labels?.[EGRESS_LABEL] === key);
      if (found.length !== 1) return { key, read: ok(undefined) };
      const read = await engine.call<Inspected>("GET", `/containers/${found[0]!.Id}/json`, { signal: options.signal, timeoutMs: CALL_MS });
      if (read.status === 404) return { key, read: ok(undefined) };
      return { key, read: read.ok && read.value ? ok(read.value) : failure(engine, `inspecting the egress proxy of ${key}`, read) };
    }),
  );
  for (const { key, read } of reads) {
    if (!read.ok) return read;
    out.set(key, read.value);
  }
  return ok(out);
}

/**
 * The sweep's part: egress parts with no computer, or past their deadline. A part whose
 * deadline label has passed, or whose computer is gone and that is older than a create could
 * take (its ready wait and two minutes), is removed by what its label found.
 */
export async function sweepEgress(
  engine: DockerEngine,
  live: (computer: string) => Promise<boolean>,
  options: { now?: number; labels?: Record<string, string>; readyMs?: number } = {},
): Promise<Result<string[]>> {
  const now = options.now ?? Date.now();
  const grace = (options.readyMs ?? EGRESS_READY_MS) + 120_000;
  const { containers, volumes } = await partsOf(engine, [EGRESS_LABEL, ...Object.entries(options.labels ?? {}).map(([k, v]) => `${k}=${v}`)]);
  if (!containers.ok) return failure(engine, "finding egress leftovers", containers);
  if (!volumes.ok) return failure(engine, "finding egress leftovers", volumes);
  const parts = [
    ...(containers.value ?? []).map((c) => ({ labels: c.Labels ?? {}, created: (c.Created ?? 0) * 1000 })),
    ...(volumes.value?.Volumes ?? []).map((v) => ({ labels: v.Labels ?? {}, created: Date.parse(v.CreatedAt ?? "") || 0 })),
  ];
  const computers = [...new Set(parts.map((p) => p.labels[EGRESS_LABEL]!).filter(Boolean))];
  const removed: string[] = [];
  for (const computer of computers) {
    const mine = parts.filter((p) => p.labels[EGRESS_LABEL] === computer);
    const passed = mine.some((p) => Date.parse(p.labels[DEADLINE_LABEL] ?? "") <= now);
    const old = mine.every((p) => now - p.created > grace);
    if (passed || (old && !(await live(computer)))) {
      const gone = await removeEgress(engine, computer);
      if (!gone.ok) return gone;
      removed.push(egressName(computer));
    }
  }
  return ok(removed);
}
