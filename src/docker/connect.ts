// A connection to a computer's daemon: init's socket reached from this machine where the engine is
// on it (local-socket.ts: a connect, no exec), else an exec of /opt/agentrun/computerd stdio (the
// bridge to init's socket) attached over the Engine API, or, for the claim of a pool's computer,
// the container's own stdio attached (init --stdio: its first client, with no exec), its stdout
// taken out of Docker's frames; and a hello held to what the provider declares.
import type { Duplex } from "node:stream";
import { DaemonClient } from "../daemon/client.js";
import { helloWithin } from "../daemon/hello.js";
import type { Connection } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { type DockerEngine, engineFailure, type Reply } from "./api.js";
import { HELLO_TIMEOUT_MS } from "./constants.js";
import { Frames } from "./frames.js";
import { boundedBy } from "../daemon/bound.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { inspect } from "./containers.js";
import { isRemote } from "./engine.js";
import { openLocalConnection } from "./local-socket.js";
import { type Inspected, stateOf } from "./readback.js";
import { pausedRefusal } from "./run-state.js";

export interface HelloWant {
  version: string;
  kind: string;
  groups: readonly string[];
}

/** Docker's words for a container that is not there, or not running. */
const GONE = /No such container|is not running|is paused|is restarting/i;

/**
 * How a connection reaches init where its socket cannot be reached from this machine: "exec",
 * the bridge, for any client; "stdio", the container's own stdin and stdout, for the one client
 * that takes them (a pool's computer's claim): Docker gives a container's stdin to the first
 * attach with stdin and closes it when that attach ends.
 */
export type Way = "exec" | "stdio";

/** The container a connection is to: its id, its name (for words), and its inspect when the caller has one under way. */
export interface Target {
  id: string;
  name: string;
  inspected?: Promise<Result<Inspected>>;
}

/**
 * A connection to the container's daemon, its hello held to want: over init's socket from this
 * machine where that way is there (an engine of this machine), else the way given.
 */
export async function openConnection(
  engine: DockerEngine,
  container: Target,
  want: HelloWant | undefined,
  signal?: AbortSignal,
  way: Way = "exec",
): Promise<Result<Connection>> {
  const opened = (await openLocal(engine, container, signal)) ?? (await openBridge(engine, container, signal, way));
  if (!opened.ok || !want) return opened;
  const { hello, close } = opened.value;
  const wrong: string[] = [];
  if (hello.version !== want.version) wrong.push(`version ${hello.version}, not the provider's ${want.version}`);
  if (hello.kind !== want.kind) wrong.push(`kind ${hello.kind}, not ${want.kind}`);
  const sorted = (g: readonly string[]) => [...g].sort().join(",");
  if (sorted(hello.groups) !== sorted(want.groups)) wrong.push(`groups ${hello.groups.join(", ")}, not ${want.groups.join(", ")}`);
  if (wrong.length) {
    await close();
    return fail("refused", `the daemon in ${container.name} is not the provider's: ${wrong.join("; ")}; make a new computer with this provider`);
  }
  return opened;
}

/** Init's socket from this machine (the container inspected for its init's pid); undefined where there is no such way. */
async function openLocal(engine: DockerEngine, container: Target, signal?: AbortSignal): Promise<Result<Connection> | undefined> {
  if (isRemote(engine.address)) return undefined;
  const inspected = await (container.inspected ?? inspect(engine, container.id, { signal }));
  if (!inspected.ok) return undefined;
  if (stateOf(inspected.value) === "paused") return pausedRefusal(container.name);
  return openLocalConnection(engine.address, inspected.value, signal);
}

/** Opens the bridge (or the container's own stdio) and says hello within HELLO_TIMEOUT_MS and the caller's signal. */
async function openBridge(engine: DockerEngine, container: Target, signal: AbortSignal | undefined, way: Way): Promise<Result<Connection>> {
  const target = container.name;
  if (signal?.aborted) return fail("aborted", `connecting to ${target} was aborted`);
  const { bound, signal: helloSignal } = boundedBy(HELLO_TIMEOUT_MS, signal);
  const refused = (reply: Reply, what: string) => {
    if (signal?.aborted) return fail("aborted", `connecting to ${target} was aborted`);
    if (bound.aborted) return fail("timeout", `the daemon in ${target} did not say hello within ${HELLO_TIMEOUT_MS / 1000} s`);
    if (/is paused/i.test(reply.message)) return pausedRefusal(target);
    if (reply.status === 404 || reply.status === 409 || GONE.test(reply.message))
      return fail("gone", `the daemon in ${target} did not answer hello: ${reply.message}`);
    const failure = engineFailure(what, reply, engine.address);
    return fail(failure.code === "failed" ? "unreachable" : failure.code, `the daemon in ${target} did not answer hello: ${failure.message}`);
  };
  let attached: Reply<Duplex>;
  if (way === "stdio") {
    attached = await engine.attach(container.id, { stdin: true }, { signal: helloSignal });
    if (!attached.ok || !attached.value) return refused(attached, `attaching to ${target}'s own stdio`);
  } else {
    const made = await engine.call<{ Id: string }>("POST", `/containers/${encodeURIComponent(container.id)}/exec`, {
      signal: helloSignal,
      body: { AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false, Cmd: [DAEMON_IN_COMPUTER, "stdio"] },
    });
    if (!made.ok || !made.value?.Id) return refused(made, `making the bridge's exec in ${target}`);
    attached = await engine.hijack(made.value.Id, { signal: helloSignal });
    if (!attached.ok || !attached.value) return refused(attached, `attaching to the bridge in ${target}`);
  }
  const socket: Duplex = attached.value;

  let stderr = "";
  const frames = new Frames((chunk) => {
    if (stderr.length < 4096) stderr += chunk.toString("utf8");
  });
  socket.on("error", () => frames.destroy());
  socket.pipe(frames);
  const client = new DaemonClient({ readable: frames, writable: socket });
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const close = async () => {
    // Ending stdin ends the bridge in the computer (or init's stdio client: the engine closes the
    // container's stdin); the client's close then ends the stream from this side.
    await client.close();
    await Promise.race([ended, new Promise((r) => setTimeout(r, 2_000).unref())]);
    socket.destroy();
  };

  const said = await helloWithin({
    client,
    who: "agentrun-docker",
    frames: true,
    target,
    bounded: { bound, signal: helloSignal },
    boundMs: HELLO_TIMEOUT_MS,
    caller: signal,
    close,
    words: () => stderr,
    gone: GONE,
  });
  return said.ok ? ok({ client, hello: said.value, close }) : said;
}
