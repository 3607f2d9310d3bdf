// A computer's container over the Engine API: found by id or name and held to the provider's
// label, listed by labels, made, started, stopped and removed. Each call is bounded and takes the
// caller's signal, except a removal after a failure, which must run whatever the caller did.
import type { CallOptions } from "../daemon/client.js";
import { fail, ok, type Result, type ResultError } from "../daemon/result.js";
import { type DockerEngine, engineFailure, type Reply } from "./api.js";
import { COMPUTER_LABEL } from "./constants.js";
import type { CreateRequest } from "./create-request.js";
import { framesText } from "./frames.js";
import { type Inspected, isComputer } from "./readback.js";

const INSPECT_MS = 30_000;
const LIST_MS = 30_000;
const REMOVE_MS = 60_000;
const CREATE_MS = 120_000;

/** A failed reply as a result, in words naming what was asked. */
export function failure(engine: DockerEngine, what: string, reply: Reply): { ok: false; error: ResultError } {
  const f = engineFailure(what, reply, engine.address);
  return fail(f.code, f.message);
}

const path = (target: string) => `/containers/${encodeURIComponent(target)}`;

/** One container, whole; not_found when Docker has none or it is not a computer (no label). */
export async function inspect(engine: DockerEngine, target: string, options: CallOptions = {}): Promise<Result<Inspected>> {
  const read = await engine.call<Inspected>("GET", `${path(target)}/json`, { signal: options.signal, timeoutMs: INSPECT_MS });
  if (read.status === 404) return fail("not_found", `no computer ${target} on this Docker host`);
  if (!read.ok || !read.value) return failure(engine, `inspecting ${target}`, read);
  if (!isComputer(read.value))
    return fail("not_found", `no computer ${target} on this Docker host (a container without the ${COMPUTER_LABEL}=1 label does not count)`);
  return ok(read.value);
}

/** GET /containers/json's entry: the fields list reads, as the list endpoint reports them. */
interface Listed {
  Id: string;
  Names?: string[] | null;
  State?: string;
  Labels?: Record<string, string> | null;
  HostConfig?: { NetworkMode?: string };
  NetworkSettings?: { Networks?: Record<string, unknown> | null };
  Mounts?: Array<Record<string, unknown>> | null;
}

/**
 * The computers with these labels (and the provider's), in any state and whatever their name, in
 * one call: the list endpoint reports each one's labels, state, network and mounts, so nothing is
 * inspected one by one and a computer gone meanwhile is simply not there.
 */
export async function listByLabels(engine: DockerEngine, labels: Record<string, string>, options: CallOptions = {}): Promise<Result<Inspected[]>> {
  const filters = { label: [`${COMPUTER_LABEL}=1`, ...Object.entries(labels).map(([k, v]) => `${k}=${v}`)] };
  const listed = await engine.call<Listed[]>("GET", "/containers/json", {
    query: { all: true, filters: JSON.stringify(filters) },
    signal: options.signal,
    timeoutMs: LIST_MS,
  });
  if (!listed.ok) return failure(engine, "listing the computers", listed);
  return ok(
    (listed.value ?? []).map((c) => ({
      Id: c.Id,
      Name: c.Names?.[0] ?? "",
      // As inspect reads it: a paused container is running, and paused.
      State: { Running: c.State === "running" || c.State === "paused", Paused: c.State === "paused" },
      Config: { Labels: c.Labels ?? {} },
      HostConfig: { NetworkMode: c.HostConfig?.NetworkMode },
      NetworkSettings: { Networks: c.NetworkSettings?.Networks ?? {} },
      Mounts: c.Mounts ?? [],
    })),
  );
}

/** POST /containers/create; the reply's status says what Docker refused (404: no such image). */
export function create(engine: DockerEngine, request: CreateRequest, options: CallOptions = {}): Promise<Reply<{ Id: string }>> {
  return engine.call<{ Id: string }>("POST", "/containers/create", {
    query: { name: request.name },
    body: request.body,
    signal: options.signal,
    timeoutMs: CREATE_MS,
  });
}

export function start(engine: DockerEngine, id: string, options: CallOptions = {}): Promise<Reply> {
  return engine.call("POST", `${path(id)}/start`, { signal: options.signal, timeoutMs: CREATE_MS });
}

/** Stopped within 10 s (then killed); one already stopped or gone is fine. */
export async function stop(engine: DockerEngine, id: string, options: CallOptions = {}): Promise<Result<undefined>> {
  const stopped = await engine.call("POST", `${path(id)}/stop`, { query: { t: 10 }, signal: options.signal, timeoutMs: REMOVE_MS });
  if (stopped.ok || stopped.status === 304 || stopped.status === 404) return ok();
  return failure(engine, `stopping ${id}`, stopped);
}

/** Removed with its anonymous volumes, by id or exact name; one already gone is fine. */
export async function remove(engine: DockerEngine, target: string, options: CallOptions = {}): Promise<Result<undefined>> {
  const removed = await engine.call("DELETE", path(target), { query: { force: true, v: true }, signal: options.signal, timeoutMs: REMOVE_MS });
  if (removed.ok || removed.status === 404) return ok();
  // A removal already under way (another release, or the janitor) ends the same way.
  if (removed.status === 409 && /already in progress/i.test(removed.message)) return ok();
  return failure(engine, `removing ${target}`, removed);
}

/**
 * After a create request that was cut off: the engine may still make the container after the
 * caller is gone, so it is removed by its exact name, then looked for again for a while and
 * removed if it came.
 */
export async function removeLate(engine: DockerEngine, name: string): Promise<void> {
  await remove(engine, name);
  const filters = JSON.stringify({ name: [`^/${name}$`] });
  for (let i = 0; i < 6; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const seen = await engine.call<Listed[]>("GET", "/containers/json", { query: { all: true, filters }, timeoutMs: 10_000 });
    if (seen.ok && seen.value?.length) await remove(engine, name);
  }
}

/** The last line a stopped container wrote, stdout or stderr, for words; undefined when none. */
export async function lastWords(engine: DockerEngine, id: string): Promise<string | undefined> {
  const logs = await engine.raw("GET", `${path(id)}/logs`, { query: { stdout: true, stderr: true, tail: 5 }, timeoutMs: 10_000 });
  if (!logs.ok || !logs.value) return undefined;
  const { stdout, stderr } = framesText(logs.value);
  return `${stdout}\n${stderr}`.trim().split("\n").filter(Boolean).pop();
}
