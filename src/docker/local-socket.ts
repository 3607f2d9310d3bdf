// Init's socket reached from this machine with no exec: for an engine on this machine whose
// containers' processes this process can see, the socket is opened through the computer's own
// root in /proc, so a connection costs a connect, not a docker exec (a process started in the
// computer), and carries any byte both ways (frames). The inode connected to is proved to be the
// socket on the computer's own /run/agentrun tmpfs: /proc/<pid> held open (a pid reused later is
// not followed), its cgroup naming the container, and the socket opened without following a link
// (O_PATH | O_NOFOLLOW) and held to the device that tmpfs has in the computer's mount table, so a
// link planted by a program of the computer never points this process at a socket of the host's.
// A socket not there yet (init just started) is waited for, as the bridge waits. Anything else
// (another host's engine, Docker Desktop's VM, a rootless engine's socket this user cannot
// connect to, a pid this process cannot see or enter) is no way here, and the caller takes the
// bridge.
import { promises as fs } from "node:fs";
import net from "node:net";
import { DaemonClient } from "../daemon/client.js";
import { helloWithin } from "../daemon/hello.js";
import { boundedBy } from "../daemon/bound.js";
import type { Connection } from "../contract/provider.js";
import { ok, type Result } from "../daemon/result.js";
import { type EngineAddress, isRemote } from "./engine.js";
import { HELLO_TIMEOUT_MS, RUN_DIR } from "./constants.js";
import type { Inspected } from "./readback.js";

/** Where init listens in every Docker computer (computerd's initd.DefaultSocket). */
const SOCKET_NAME = "computerd.sock";

/** open(2)'s O_PATH on the architectures Docker computers run on (Linux's generic value). */
const O_PATH = 0o10000000;
const PATH_FLAGS: Partial<Record<NodeJS.Architecture, number>> = { x64: O_PATH, arm64: O_PATH };

/** A device number as glibc's makedev encodes it (what stat reports) from mountinfo's major:minor. */
export function deviceOf(majorMinor: string): bigint | undefined {
  const m = /^(\d+):(\d+)$/.exec(majorMinor);
  if (!m) return undefined;
  const major = BigInt(m[1]!);
  const minor = BigInt(m[2]!);
  return ((major & 0xfffff000n) << 32n) | ((major & 0xfffn) << 8n) | ((minor & 0xffffff00n) << 12n) | (minor & 0xffn);
}

/**
 * The device of the tmpfs mounted at `at` in a mount table (/proc/<pid>/mountinfo), the one on
 * top when several are; undefined when none is a tmpfs there.
 */
export function tmpfsDevice(mountinfo: string, at: string): bigint | undefined {
  let device: bigint | undefined;
  for (const line of mountinfo.split("\n")) {
    // id parent major:minor root mount-point options [optional...] - fstype source super-options
    const [before, after] = line.split(" - ");
    const fields = before?.split(" ") ?? [];
    if (fields[4] !== at) continue;
    device = after?.split(" ")[0] === "tmpfs" ? deviceOf(fields[2] ?? "") : undefined;
  }
  return device;
}

/** Whether a process's cgroup file places it in the container (every driver names its whole id). */
export function inContainer(cgroup: string, id: string): boolean {
  return /^[0-9a-f]{64}$/.test(id) && cgroup.includes(id);
}

/** How long a socket not there yet is waited for: the bridge's own wait (computerd stdio's 3 s). */
const SOCKET_WAIT_MS = 3_000;
const RETRY_MS = 10;

/** A socket proved the computer's, open as a path to connect to (/proc/self/fd/N). */
interface Proved {
  path: string;
  close(): Promise<void>;
}

/**
 * The socket open as a path to connect to, proved to be the computer's; "wait" when the computer's
 * /run/agentrun holds no socket yet (init has not listened); undefined when there is no way here.
 */
async function provedSocket(inspected: Inspected, name: string): Promise<Proved | "wait" | undefined> {
  const flags = PATH_FLAGS[process.arch];
  const pid = inspected.State?.Pid ?? 0;
  if (process.platform !== "linux" || flags === undefined || !inspected.State?.Running || !Number.isInteger(pid) || pid <= 0) return undefined;
  const proc = await fs.open(`/proc/${pid}`, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY).catch(() => undefined);
  if (!proc) return undefined;
  let socket: fs.FileHandle | undefined;
  try {
    const under = `/proc/self/fd/${proc.fd}`;
    if (!inContainer(await fs.readFile(`${under}/cgroup`, "utf8"), inspected.Id)) return undefined;
    const device = tmpfsDevice(await fs.readFile(`${under}/mountinfo`, "utf8"), RUN_DIR);
    if (device === undefined) return undefined;
    const opened = await fs.open(`${under}/root${RUN_DIR}/${name}`, flags | fs.constants.O_NOFOLLOW).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return "wait" as const;
      return undefined;
    });
    if (typeof opened !== "object") return opened;
    socket = opened;
    const stat = await socket.stat({ bigint: true });
    if (!stat.isSocket() || stat.dev !== device) return undefined;
    const held = socket;
    socket = undefined;
    return { path: `/proc/self/fd/${held.fd}`, close: () => held.close() };
  } catch {
    return undefined;
  } finally {
    await socket?.close();
    await proc.close();
  }
}

/** A connect to the proved socket: the socket, "wait" when nothing listens there yet, undefined when refused otherwise or aborted. */
async function connected(proved: Proved, signal: AbortSignal): Promise<net.Socket | "wait" | undefined> {
  if (signal.aborted) {
    await proved.close();
    return undefined;
  }
  const socket = net.connect(proved.path);
  let onAbort = () => {};
  const result = await new Promise<net.Socket | "wait" | undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    socket.once("connect", () => resolve(socket));
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED" ? "wait" : undefined));
  });
  signal.removeEventListener("abort", onAbort);
  await proved.close();
  if (result !== socket) socket.destroy();
  return result;
}

/**
 * A socket of the computer's /run/agentrun (by its name there) connected from this machine, proved
 * the computer's as init's is; one not there yet, or not listening yet, is waited for up to 3 s.
 * Undefined when this machine has no such way to it (a remote engine, a pid it cannot enter), or
 * on the signal.
 */
export async function connectLocalSocket(engine: EngineAddress, inspected: Inspected, name: string, signal: AbortSignal): Promise<net.Socket | undefined> {
  if (isRemote(engine) || signal.aborted) return undefined;
  const until = Date.now() + SOCKET_WAIT_MS;
  for (;;) {
    const proved = await provedSocket(inspected, name);
    const reached = typeof proved === "object" ? await connected(proved, signal) : proved;
    if (typeof reached === "object") return reached;
    if (reached === undefined || signal.aborted || Date.now() >= until) return undefined;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

/**
 * A connection to the computer's init over its socket, said hello to (asking for frames) within
 * HELLO_TIMEOUT_MS and the caller's signal; undefined when this machine has no such way to it, so
 * the caller takes the bridge (openConnection). A daemon that is reached but does not answer is the
 * result, as the bridge's would be.
 */
export async function openLocalConnection(engine: EngineAddress, inspected: Inspected, signal?: AbortSignal): Promise<Result<Connection> | undefined> {
  if (isRemote(engine) || signal?.aborted) return undefined;
  const bounded = boundedBy(HELLO_TIMEOUT_MS, signal);
  const socket = await connectLocalSocket(engine, inspected, SOCKET_NAME, bounded.signal);
  if (!socket) return undefined;
  const target = inspected.Name.replace(/^\//, "");
  const client = new DaemonClient(socket);
  const open = socket;
  const close = async () => {
    await client.close();
    open.destroy();
  };
  const said = await helloWithin({ client, who: "agentrun-docker", frames: true, target, bounded, boundMs: HELLO_TIMEOUT_MS, caller: signal, close });
  return said.ok ? ok({ client, hello: said.value, close }) : said;
}
