// Init's socket reached from this machine with no exec: for an engine on this machine whose
// containers' processes this process can see, the socket is opened through the computer's own
// root in /proc, so a read-back's hello costs a connect, not a docker exec (a process started in
// the computer). The inode connected to is proved to be the socket on the computer's own
// /run/agentrun tmpfs: /proc/<pid> held open (a pid reused later is not followed), its cgroup
// naming the container, and the socket opened without following a link (O_PATH | O_NOFOLLOW)
// and held to the device that tmpfs has in the computer's mount table, so a link planted by a
// program of the computer never points this process at a socket of the host's. Anything else
// (another host's engine, a pid this process cannot see or enter, no socket there) is no way
// here, and the caller takes the bridge.
import { promises as fs } from "node:fs";
import net from "node:net";
import { DaemonClient } from "../daemon/client.js";
import { helloWithin } from "../daemon/hello.js";
import { boundedBy } from "../contract/bound.js";
import type { Connection } from "../contract/provider.js";
import { ok, type Result } from "../contract/result.js";
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

/** The socket open as a path to connect to (/proc/self/fd/N), proved to be the computer's; undefined when not. */
async function provedSocket(inspected: Inspected): Promise<{ path: string; close(): Promise<void> } | undefined> {
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
    socket = await fs.open(`${under}/root${RUN_DIR}/${SOCKET_NAME}`, flags | fs.constants.O_NOFOLLOW);
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

/**
 * A connection to the computer's init over its socket, said hello to within HELLO_TIMEOUT_MS and
 * the caller's signal; undefined when this machine has no such way to it, so the caller takes the
 * bridge (openConnection). A daemon that is reached but does not answer is the result, as the
 * bridge's would be.
 */
export async function openLocalConnection(engine: EngineAddress, inspected: Inspected, signal?: AbortSignal): Promise<Result<Connection> | undefined> {
  if (isRemote(engine) || signal?.aborted) return undefined;
  const proved = await provedSocket(inspected);
  if (!proved) return undefined;
  const socket = net.connect(proved.path);
  const connected = await new Promise<boolean>((resolve) => {
    socket.once("connect", () => resolve(true));
    socket.once("error", () => resolve(false));
  });
  await proved.close();
  if (!connected) {
    socket.destroy();
    return undefined;
  }
  const target = inspected.Name.replace(/^\//, "");
  const client = new DaemonClient(socket);
  const close = async () => {
    await client.close();
    socket.destroy();
  };
  const bounded = boundedBy(HELLO_TIMEOUT_MS, signal);
  const said = await helloWithin({ client, who: "agentrun-docker", target, bounded, boundMs: HELLO_TIMEOUT_MS, caller: signal, close });
  return said.ok ? ok({ client, hello: said.value, close }) : said;
}
