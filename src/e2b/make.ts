// E2B's hooks of the one create flow (src/contract/create.ts): the daemon's bytes read before
// anything is made, Sandbox.create with the owner's keys in its metadata (its kill pushed on the
// undo stack at once), the sandbox read back against what was asked, the daemon installed and
// init started in the background, the first connection (tried again while init comes up), a
// desktop's X server started through the daemon (src/daemon/desktop.ts, as on Docker), the
// daemon's drift check, and the wait until E2B's listing shows the sandbox.
import { startCommand } from "../kits/agent-child/install.js";
import { childAborted, connectFailed, daemonRefused, installDaemon } from "../kits/agent-child/create.js";
import type { CreateHooks, Creation } from "../contract/create.js";
import { failedThen } from "../contract/create.js";
import type { CheckedSpec, ComputerRef, Connection, CreateOptions } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import type { Adoption } from "../contract/adopt.js";
import { waitUntil } from "../contract/wait.js";
import { openBridge } from "./bridge.js";
import { call } from "./calls.js";
import { DEFAULT_DISPLAY, startDisplay } from "../daemon/desktop.js";
import type { Hello } from "../daemon/protocol.js";
import { COMPUTER_KEY, DEADLINE_KEY, IMAGE_KEY, KIND_KEY, MAX_KEY, NAME_KEY, TIMEOUT_KEY } from "./constants.js";
import { type E2BKind, infoDrift, ownKeysOf, vendorTemplate } from "./readback.js";
import type { Daemon } from "../contract/daemon-file.js";
import type { E2BSandboxes } from "./sandboxes.js";
import type { E2BCommandHandle, E2BSandbox, E2BSandboxInfo } from "./sdk.js";

/** The checked spec, with the daemon's bytes once prepare has read them. */
export interface E2BChecked extends CheckedSpec {
  daemon?: Daemon;
}

/** The computer's kind: the spec's, else the provider's. */
export function kindOf(c: Creation<E2BChecked>, sb: E2BSandboxes): E2BKind {
  return c.spec.kind === "desktop" ? "desktop" : c.spec.kind === "linux" ? "linux" : sb.o.kind;
}

/** What create made: the sandbox read back, its metadata, and init's command once started. */
export interface E2BMade {
  sandbox: E2BSandbox;
  info: E2BSandboxInfo;
  metadata: Record<string, string>;
  init?: { handle: E2BCommandHandle; words(): string; detach(): Promise<unknown> };
}

/**
 * Sandbox.create as every computer is made: the metadata, the timeout, no internet, no public
 * traffic in, killed at its timeout. Raced against the caller's signal and the bound, never
 * cancelled: one that lands after is killed by its id, one whose answer never came by its name.
 */
export async function makeSandbox(
  sb: E2BSandboxes,
  template: string,
  name: string,
  metadata: Record<string, string>,
  timeoutS: number,
  signal?: AbortSignal,
): Promise<Result<E2BSandbox>> {
  const made = await sb.e2b(
    `Sandbox.create of ${name}`,
    (sdk, { signal: _s, ...opts }) =>
      sdk.create(template, {
        // The SDK's own bound is past the race's, so a create given up on still answers, and is killed.
        ...opts,
        requestTimeoutMs: sb.o.t.createMs * 2,
        metadata,
        timeoutMs: timeoutS * 1000,
        allowInternetAccess: false,
        network: { allowPublicTraffic: false },
        lifecycle: { onTimeout: "kill", autoResume: false },
      }),
    signal,
    sb.o.t.createMs,
    (landed) => void sb.killAndWait(landed.sandboxId),
  );
  if (made.ok) return made;
  if (["invalid", "unauthorized", "not_found", "limit"].includes(made.error.code)) return fail(made.error.code, `${made.error.message}; nothing was made`);
  // No answer: the sandbox may be there all the same, under its name.
  const left = await sb.killByName(name);
  return fail(signal?.aborted ? "aborted" : made.error.code, `${made.error.message}; ${left}`);
}

/** The daemon uploaded as root with files.write and installed root-owned at /opt/agentrun/computerd, its sha256 read back. */
export function install(sb: E2BSandboxes, sandbox: E2BSandbox, name: string, daemon: Daemon, signal?: AbortSignal): Promise<Result<{ sha256: string }>> {
  return installDaemon(
    {
      upload: (path, bytes, s) =>
        call((c, ms) => sandbox.files.write(path, new Blob([bytes]), { user: "root", requestTimeoutMs: ms, signal: c }), {
          what: `uploading the daemon to ${name}`,
          ms: sb.o.t.uploadMs,
          signal: s,
        }),
      run: async (command, what, s) => {
        const ran = await sb.run(sandbox, command, what, s);
        return ran.ok ? ok({ exitCode: ran.value.exitCode, output: `${ran.value.stdout}${ran.value.stderr}` }) : ran;
      },
    },
    daemon,
    signal,
  );
}

/** init, in the background with no command timeout (envd ends a command at its timeout); its words kept for a failed first connection. */
async function startInit(sb: E2BSandboxes, sandbox: E2BSandbox, c: Creation<E2BChecked>, max: string): Promise<Result<NonNullable<E2BMade["init"]>>> {
  let words = "";
  const startOnly = new AbortController();
  const init = await call(
    (_s, ms) =>
      sandbox.commands.run(
        startCommand({
          deadline: c.deadline,
          maxDeadline: max,
          user: sb.o.daemonUser,
          // The display the shim reaches; the X server itself starts through the daemon once it is up.
          ...(kindOf(c, sb) === "desktop" ? { env: { DISPLAY: DEFAULT_DISPLAY } } : {}),
        }),
        {
          background: true,
          user: "root",
          timeoutMs: 0,
          requestTimeoutMs: ms,
          signal: startOnly.signal,
          onStdout: (d) => void (words.length < 4096 && (words += d)),
          onStderr: (d) => void (words.length < 4096 && (words += d)),
        },
      ),
    { what: `starting computerd init in ${c.name}`, ms: sb.o.t.commandMs, signal: c.signal, late: (h) => void h.disconnect().catch(() => undefined) },
  );
  if (!init.ok) return init;
  let detached: Promise<unknown> | undefined;
  const detach = () =>
    (detached ??= Promise.race([init.value.disconnect().catch(() => undefined), new Promise((r) => setTimeout(r, sb.o.t.requestMs).unref())]));
  // Detached once: after the first connection, or by the undo when create fails before it.
  c.undo.push({ what: `init's command in ${c.name}`, run: () => detach().then(() => undefined) });
  return ok({ handle: init.value, words: () => words, detach });
}

/** create's first connection: init may not listen yet, so the bridge is tried again within helloMs. */
async function openRetrying(sb: E2BSandboxes, sandbox: E2BSandbox, name: string, signal?: AbortSignal): Promise<Result<Connection>> {
  const until = Date.now() + sb.o.t.helloMs;
  for (;;) {
    const tried = await openBridge(sandbox, { target: name, helloMs: Math.max(1000, until - Date.now()), requestMs: sb.o.t.requestMs, signal });
    if (tried.ok || signal?.aborted || Date.now() + 500 >= until || tried.error.code === "aborted") return tried;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The sandbox made with the owner's keys in its metadata, its kill pushed at once, then read back against what was asked. */
async function makeAndRead(sb: E2BSandboxes, c: Creation<E2BChecked>): Promise<Result<E2BMade>> {
  const { name, signal } = c;
  const timeoutS = Math.ceil(c.spec.lifetimeMs / 1000);
  const max = new Date(c.started + sb.o.maxLifetimeMs).toISOString();
  // The owner's keys are in the create request itself: no moment exists when the sandbox is unlabelled.
  const metadata = {
    ...c.labels,
    [COMPUTER_KEY]: "1",
    [NAME_KEY]: name,
    [DEADLINE_KEY]: c.deadline,
    [IMAGE_KEY]: c.spec.image,
    [TIMEOUT_KEY]: String(timeoutS),
    [MAX_KEY]: max,
    [KIND_KEY]: kindOf(c, sb),
  };
  const made = await makeSandbox(sb, vendorTemplate(c.spec.image), name, metadata, timeoutS, signal);
  if (!made.ok) return made;
  const id = made.value.sandboxId;
  c.undo.push({
    what: name,
    run: (s) => sb.killAndWait(id, s),
    ms: sb.o.t.requestMs + sb.o.t.goneMs + sb.o.t.listMs,
    words: (failure) => `killing ${name} failed: ${failure}`,
  });
  const info = await sb.getInfo(id, signal);
  if (!info.ok) return info;
  const drift = infoDrift(info.value, { template: c.spec.image, metadata, timeoutS });
  if (drift.length) return fail("refused", `${name} is not what was declared: ${drift.join("; ")}`);
  return ok({ sandbox: made.value, info: info.value, metadata });
}

/** E2B's hooks for one create; check is the provider's, read its read-back (adoption's). */
export function e2bHooks(
  sb: E2BSandboxes,
  provider: { check(spec: CheckedSpec["spec"]): Result<CheckedSpec>; adoption(): Adoption },
  options: CreateOptions,
): CreateHooks<E2BChecked, E2BMade, Connection> {
  const { signal } = options;
  return {
    check: (spec) => provider.check(spec),
    prepare: async (checked) => {
      const daemon = await sb.daemonBytes();
      return daemon.ok ? ok({ ...checked, daemon: daemon.value }) : daemon;
    },
    adoption: provider.adoption(),
    make: (c) => makeAndRead(sb, c),
    ready: async (c, made) => {
      const installed = await install(sb, made.sandbox, c.name, c.checked.daemon!, signal);
      if (!installed.ok) return installed;
      const init = await startInit(sb, made.sandbox, c, made.metadata[MAX_KEY]!);
      return init.ok ? ok({ ...made, init: init.value }) : init;
    },
    connect: async (c, made) => {
      const connection = await openRetrying(sb, made.sandbox, c.name, signal);
      const words = made.init?.words();
      await made.init?.detach();
      return connection.ok ? connection : connectFailed(connection.error, words, (t) => t.trim().split("\n").pop());
    },
    verify: async (c, made, connection) => {
      const kind = kindOf(c, sb);
      let hello: Hello | undefined;
      if (kind === "desktop") {
        const shown = await startDisplay(connection.client, signal ? { signal } : {});
        if (!shown.ok)
          return fail(
            shown.error.code === "aborted" || shown.error.code === "timeout" ? shown.error.code : "failed",
            `${c.name}'s desktop: ${shown.error.message}`,
          );
        hello = shown.value;
      }
      const read = await sb.readDaemonOver(connection, { sha256: c.checked.daemon!.sha256, kind, ...(hello ? { hello } : {}) }, signal);
      if (!read.ok) return read;
      const refused = daemonRefused(c.name, read.value.drift);
      if (refused) return refused;
      const own = ownKeysOf(made.metadata);
      if (!own.ok) return fail("failed", own.why);
      return ok(sb.refOf(made.info, own.value, read.value.hello, read.value.notes));
    },
    close: (connection) => connection.close(),
    listed: async (c, made, ref): Promise<Result<ComputerRef>> => {
      // E2B's listing shows a new sandbox a moment late.
      const listed = await waitUntil(
        (s) => sb.listAll({ [NAME_KEY]: c.name }, s),
        (r) => r.ok && r.value.some((x) => x.sandboxId === made.sandbox.sandboxId),
        {
          boundMs: sb.o.t.listedMs,
          signal,
          minMs: sb.o.t.pollMs,
          what: `${c.name} to be listed`,
          describe: (r) => (r.ok ? `${r.value.length} listed` : r.error.message),
        },
      );
      return listed.ok ? ok(ref) : listed;
    },
    failed: failedThen((name) => `${name} was killed`),
    aborted: childAborted,
  };
}
