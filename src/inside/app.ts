// An app's services inside a computer: each started through process.start as the computer's user,
// from the app's folder, with orphans kept (a service may leave a daemon of its own running) and
// the app's mark in its environment, so stopping the app reaches all it started; their state read
// back from the daemon's process table; and the app's ready check, bounded.
import { CallError, type CallOptions } from "../daemon/client.js";
import { listProcesses } from "../daemon/processes.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { runQuietly } from "./load.js";
import { endMarked } from "./marks.js";
import type { Session } from "./session.js";

/** An app's name: its folder's under ~/.agentrun/apps, and its address's variable. */
export const APP_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** An app's address as a command is given it: on the computer's loopback, so it needs no network. */
export const LOOPBACK_ADDRESS = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):([0-9]{1,5})(\/[^\s]*)?$/;

/** The variable a command finds an app's address in: AGENTRUN_APP_<NAME>_URL, the name upper-cased, - as _. */
export const addressVar = (name: string) => `AGENTRUN_APP_${name.toUpperCase().replace(/-/g, "_")}_URL`;

/** The variable that marks every process of an app with its folder. */
export const APP_MARK = "AGENTRUN_APP";
/** The variable that holds an app's settings, one JSON value. */
export const SETTINGS_VAR = "AGENTRUN_APP_SETTINGS";
/** The most a ready check may wait. */
export const MAX_READY_SECONDS = 600;
const STOP_WAIT_MS = 5_000;

export interface Service {
  argv: string[];
  env?: Record<string, string>;
  /** How its failure's words name it (default "the service <name>"). */
  named?: string;
}

/** A started service: its process in the daemon's table. */
export interface Started {
  id: string;
  pid: number;
}

export type Ready = { port: number; timeoutSeconds: number } | { command: string[]; timeoutSeconds: number };

/** Starts each service from dir (absolute), with the settings and the app's mark in its environment. */
export async function startServices(
  session: Session,
  dir: string,
  services: Record<string, Service>,
  settings: unknown,
  options: CallOptions = {},
): Promise<Result<Record<string, Started>>> {
  const started: Record<string, Started> = {};
  for (const [name, service] of Object.entries(services)) {
    try {
      const env = { ...service.env, [SETTINGS_VAR]: JSON.stringify(settings ?? {}), [APP_MARK]: dir };
      const s = await session.client.call("process.start", { argv: service.argv, cwd: dir, env, orphans: "keep" }, options);
      started[name] = { id: s.id, pid: s.pid };
    } catch (error) {
      const cause = error instanceof Error ? error.message : String(error);
      return fail(error instanceof CallError ? error.kind : "failed", `${session.name}: ${service.named ?? `the service ${name}`} could not start: ${cause}`);
    }
  }
  return ok(started);
}

/** Each service's state in the daemon's table: running, or how it ended (gone: no longer listed). */
export async function serviceStates(session: Session, started: Record<string, Started>, options: CallOptions = {}): Promise<Result<Record<string, string>>> {
  const table = await listProcesses(session.client, options);
  if (!table.ok) return fail(table.error.code, `${session.name}: process.list failed: ${table.error.message}`);
  const states: Record<string, string> = {};
  for (const [name, s] of Object.entries(started)) {
    const p = table.value.find((x) => x.id === s.id && x.pid === s.pid);
    states[name] = !p ? "gone" : p.running ? "running" : p.signal ? `ended on ${p.signal}` : `exited ${p.exitCode}`;
  }
  return ok(states);
}

/** The last lines a service wrote to stderr, for the words of a failure. */
export async function lastWords(session: Session, started: Started): Promise<string> {
  try {
    const read = await session.client.call("process.read", { id: started.id, stream: "stderr", offset: 0 }, { signal: AbortSignal.timeout(10_000) });
    return Buffer.from(read.data, "base64").toString("utf8").trim().split("\n").slice(-3).join("; ").slice(-500);
  } catch {
    return "";
  }
}

/** Stops the services (TERM, KILL 5 s later), then ends every process still marked with the app's folder. */
export async function stopServices(session: Session, dir: string, started: Record<string, Started>, options: CallOptions = {}): Promise<Result<undefined>> {
  for (const s of Object.values(started)) {
    try {
      await session.client.call("process.signal", { id: s.id, signal: "TERM" }, options);
      const waited = await session.client.call("process.wait", { id: s.id, timeoutMs: STOP_WAIT_MS }, options);
      if (waited.running) await session.client.call("process.signal", { id: s.id, signal: "KILL" }, options);
    } catch (error) {
      // A process the table no longer holds has ended already.
      if (!(error instanceof CallError && error.kind === "not_found"))
        return fail(
          error instanceof CallError ? error.kind : "failed",
          `${session.name}: a service could not be stopped: ${error instanceof Error ? error.message : String(error)}`,
        );
    }
  }
  const ended = await endMarked(session, APP_MARK, dir, options);
  return ended.ok ? ok() : ended;
}

// Waits, up to $1 seconds, until the rest of argv succeeds; a port is tried through bash's /dev/tcp.
const WAIT_READY = `secs=$1; shift
end=$(( $(date +%s) + secs ))
until "$@" >/dev/null 2>&1; do
  [ "$(date +%s)" -ge "$end" ] && exit 1
  sleep 0.2
done`;

/** Waits until the ready check answers (a TCP port on the loopback, or a command that exits 0), within its bound. */
export async function waitReady(session: Session, ready: Ready, options: CallOptions = {}): Promise<Result<undefined>> {
  const check = "port" in ready ? ["bash", "-c", `exec 3<>/dev/tcp/127.0.0.1/${ready.port}`] : ready.command;
  const what = "port" in ready ? `port ${ready.port} on the loopback` : `the ready command ${JSON.stringify(ready.command.join(" ").slice(0, 80))}`;
  const waited = await runQuietly(
    session,
    ["sh", "-c", WAIT_READY, "sh", String(ready.timeoutSeconds), ...check],
    (ready.timeoutSeconds + 10) * 1000,
    "the ready check",
    options,
  );
  if (waited.ok) return ok();
  // The wait's own end: exit 1 when the bound passed (another code is the check's own failure).
  if (waited.error.detail?.kind === "exited" && waited.error.detail.code === 1)
    return fail("timeout", `${session.name}: ${what} did not answer within ${ready.timeoutSeconds} s`);
  return waited;
}

/** Removes the app's folder (absolute) and all in it. */
export async function removeApp(session: Session, dir: string, options: CallOptions = {}): Promise<Result<undefined>> {
  const removed = await runQuietly(session, ["rm", "-rf", "--", dir], 60_000, "rm -rf of the app's folder", options);
  return removed.ok ? ok() : removed;
}
