// Daytona's hooks of the one create flow (src/contract/create.ts): the daemon's bytes read before
// anything is made, POST /sandbox with the owner's labels in its body (its delete pushed on the
// undo stack at once), the wait until it starts and its read-back against what was asked, the
// daemon installed and init started through the toolbox, the first connection, the daemon's
// drift check, and the wait until Daytona's listing shows the sandbox.
import { childAborted, connectFailed, daemonRefused, installDaemon } from "../kits/agent-child/create.js";
import { daemonDrift } from "../kits/agent-child/drift.js";
import { startCommand } from "../kits/agent-child/install.js";
import type { Adoption } from "../contract/adopt.js";
import { type CreateHooks, type Creation, failedThen } from "../contract/create.js";
import type { CheckedSpec, ComputerRef, Connection, CreateOptions } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { waitUntil } from "../contract/wait.js";
import { expect } from "./api.js";
import { COMPUTER_LABEL, DEADLINE_LABEL, DEFAULT_SNAPSHOT, IMAGE_LABEL, INIT_SESSION, TIMEOUTS } from "./constants.js";
import { sandboxDrift, vendorSnapshot } from "./drift.js";
import { isGoing } from "./readback.js";
import type { Daemon } from "../contract/daemon-file.js";
import type { DaytonaSandboxes } from "./sandboxes.js";
import { type CreateSandbox, Sandbox } from "./schemas.js";
import type { Toolbox } from "./toolbox.js";

/** The checked spec, with the daemon's bytes once prepare has read them. */
export interface DaytonaChecked extends CheckedSpec {
  daemon?: Daemon;
}

/** What create made: the sandbox as it read back started, and once ready its toolbox and init's command. */
export interface DaytonaMade {
  sandbox: Sandbox;
  toolbox?: Toolbox;
  initCmd?: string;
}

export function lastLine(text: string): string | undefined {
  // The split log's prefixes are not words.
  const lines = text
    .replace(/[\x01\x02]{3}/g, "\n")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1);
}

/** POST /sandbox: private, its network blocked, its TTL the lifetime; the delete pushed as soon as it answers. */
async function makeSandbox(sb: DaytonaSandboxes, c: Creation<DaytonaChecked>): Promise<Result<Sandbox>> {
  const { spec, name, signal } = c;
  const labels = { ...c.labels, [COMPUTER_LABEL]: "1", [DEADLINE_LABEL]: c.deadline, [IMAGE_LABEL]: spec.image };
  const body: CreateSandbox = {
    name,
    ...(spec.image === DEFAULT_SNAPSHOT ? {} : { snapshot: vendorSnapshot(spec.image) }),
    labels,
    public: false,
    networkBlockAll: true,
    ...(sb.o.target ? { target: sb.o.target } : {}),
    ttlMinutes: Math.ceil(spec.lifetimeMs / 60_000),
    autoStopInterval: sb.o.autoStopInterval,
    autoDeleteInterval: sb.o.autoDeleteInterval,
  };
  const made = await sb.call("/sandbox", `creating ${name}`, { method: "POST", body, signal, timeoutMs: TIMEOUTS.startMs });
  const sandbox = expect(made, `creating ${name}`, Sandbox);
  if (!sandbox.ok) {
    // Without a 4xx answer (no answer, a 5xx, an abort) the sandbox may be there all the same.
    const answered4xx = made.ok && made.value.status >= 400 && made.value.status < 500;
    if (!answered4xx) {
      const gone = await sb.deleteAndWait(name);
      const left = gone.ok ? `${name} was deleted if it was made` : `${name} may be left: ${gone.error.message}`;
      if (signal?.aborted) return fail("aborted", `create was aborted while Daytona made the sandbox; ${left}`);
      return fail(sandbox.error.code, `${sandbox.error.message}; ${left}`);
    }
    return fail(sandbox.error.code, `${sandbox.error.message}; nothing was made`, sandbox.error.field ? { field: sandbox.error.field } : {});
  }
  const id = sandbox.value.id;
  c.undo.push({
    what: name,
    run: (s) => sb.deleteAndWait(id, s),
    ms: 6 * TIMEOUTS.requestMs + sb.o.goneMs,
    words: (failure) => `deleting ${name} failed: ${failure}`,
  });
  return sandbox;
}

/** The wait until the sandbox starts, then its read-back against what was declared. */
async function started(sb: DaytonaSandboxes, c: Creation<DaytonaChecked>, id: string): Promise<Result<Sandbox>> {
  const { name, signal } = c;
  const waited = await waitUntil(
    (s) => sb.get(id, s),
    (r) => !r.ok || r.value.state === "started" || r.value.state === "error" || r.value.state === "build_failed" || isGoing(r.value),
    { boundMs: TIMEOUTS.startMs, signal, minMs: sb.o.pollMs, what: `${name} to start`, describe: (r) => (r.ok ? `state ${r.value.state}` : r.error.message) },
  );
  if (!waited.ok) return waited;
  if (!waited.value.ok) return fail(waited.value.error.code === "not_found" ? "gone" : waited.value.error.code, waited.value.error.message);
  const read = waited.value.value;
  if (read.state !== "started")
    return fail("failed", `${name} did not start: Daytona reads it ${read.state}${read.errorReason ? ` (${read.errorReason})` : ""}`);
  const mismatches = sandboxDrift(read, sb.sandboxWant(c.spec.image, true, c.labels, c.deadline));
  if (mismatches.length) return fail("refused", `${name} is not what was declared: ${mismatches.join("; ")}`);
  if (signal?.aborted) return fail("aborted", "create was aborted after the sandbox started");
  return ok(read);
}

/** The daemon installed through the toolbox and init started in a session of its own; init's command id. */
async function installAndStart(sb: DaytonaSandboxes, c: Creation<DaytonaChecked>, toolbox: Toolbox): Promise<Result<string>> {
  const { signal } = c;
  const installed = await installDaemon(
    {
      upload: (path, bytes, s) => toolbox.upload(path, bytes, s),
      run: async (command, what, s) => {
        const ran = await toolbox.execute(command, what, TIMEOUTS.executeMs, s);
        return ran.ok ? ok({ exitCode: ran.value.exitCode, output: ran.value.result }) : ran;
      },
    },
    c.checked.daemon!,
    signal,
  );
  if (!installed.ok) return installed;
  return startInit(sb, toolbox, c.deadline, signal);
}

/**
 * computerd init started in a session of its own, until the deadline; init's command id. A session
 * of that name left from before a stop holds no init (a stop ends every process), so it is made again.
 */
export async function startInit(sb: DaytonaSandboxes, toolbox: Toolbox, deadline: string, signal?: AbortSignal): Promise<Result<string>> {
  let session = await toolbox.createSession(INIT_SESSION, signal);
  if (!session.ok && session.error.code === "exists") {
    const gone = await toolbox.deleteSession(INIT_SESSION, signal);
    if (!gone.ok) return gone;
    session = await toolbox.createSession(INIT_SESSION, signal);
  }
  if (!session.ok) return session;
  const start = startCommand({ deadline, maxDeadline: deadline, user: sb.o.daemonUser });
  return toolbox.exec(INIT_SESSION, start, "starting computerd init", signal);
}

/** Daytona's hooks for one create; check is the provider's, adoption its lookups for an owner's leftovers. */
export function daytonaHooks(
  sb: DaytonaSandboxes,
  provider: { check(spec: CheckedSpec["spec"]): Result<CheckedSpec>; adoption(): Adoption },
  options: CreateOptions,
): CreateHooks<DaytonaChecked, DaytonaMade, Connection> {
  const { signal } = options;
  return {
    check: (spec) => provider.check(spec),
    prepare: async (checked) => {
      const daemon = await sb.daemonBytes();
      return daemon.ok ? ok({ ...checked, daemon: daemon.value }) : daemon;
    },
    adoption: provider.adoption(),
    make: async (c) => {
      const sandbox = await makeSandbox(sb, c);
      return sandbox.ok ? ok({ sandbox: sandbox.value }) : sandbox;
    },
    ready: async (c, made) => {
      const read = await started(sb, c, made.sandbox.id);
      if (!read.ok) return read;
      const toolbox = await sb.toolbox(read.value, signal);
      if (!toolbox.ok) return toolbox;
      const init = await installAndStart(sb, c, toolbox.value);
      return init.ok ? ok({ sandbox: read.value, toolbox: toolbox.value, initCmd: init.value }) : init;
    },
    connect: async (c, made) => {
      const connection = await sb.open(made.toolbox!, c.name, signal);
      if (connection.ok) return connection;
      const logs = await made.toolbox!.logs(INIT_SESSION, made.initCmd!);
      return connectFailed(connection.error, logs.ok ? logs.value : undefined, lastLine);
    },
    verify: async (c, made, connection) => {
      let drifted: string[];
      try {
        drifted = await daemonDrift(connection.client, connection.hello, sb.daemonWant(c.checked.daemon!.sha256), signal);
      } catch {
        return fail("aborted", "create was aborted while the daemon was read");
      }
      return daemonRefused(c.name, drifted) ?? ok(sb.refOf(made.sandbox, connection.hello, true));
    },
    close: (connection) => connection.close(),
    listed: async (c, made, ref): Promise<Result<ComputerRef>> => {
      // Daytona's listing trails a create: wait until it shows the computer twice running.
      let seen = 0;
      const listed = await waitUntil(
        async (s) => {
          const all = await sb.listAll(s);
          seen = all.ok && all.value.some((x) => x.id === made.sandbox.id && !isGoing(x)) ? seen + 1 : 0;
          return seen;
        },
        (n) => n >= 2,
        { boundMs: TIMEOUTS.listedMs, signal, minMs: sb.o.pollMs, what: `${c.name} to be listed`, describe: (n) => (n ? "listed once" : "not listed") },
      );
      return listed.ok ? ok(ref) : listed;
    },
    failed: failedThen((name) => `${name} was deleted`),
    aborted: childAborted,
  };
}
