// The local adb server, reached two ways: its socket protocol on the loopback (a 4-hex-digit
// length and a service; OKAY, or FAIL and its words), which carries every endpoint and the
// unlock, and the adb CLI spawned for what only it does (start the server). Every spawned adb
// names the server's port with -P, from an environment with every ADB_*, ANDROID_ADB_* and
// ANDROID_SERIAL variable dropped, so nothing points it at another server or device.
import { execFile } from "node:child_process";
import { connect } from "node:net";

/** How the provider reaches adb: the CLI (run) and the server's socket (server). Tests may give their own. */
export interface AdbTransport {
  /** The adb CLI with these arguments (after -P <port>); its stdout. Rejects in words. */
  run(args: string[], options?: { input?: Buffer; signal?: AbortSignal }): Promise<Buffer>;
  /** Services sent in turn on one server socket, each answered OKAY; the bytes after the last, to the end. Rejects with AdbError. */
  server(services: string[], options?: { signal?: AbortSignal }): Promise<Buffer>;
}

/** adb refused a service (its FAIL words), or the server was not reached (unreachable). */
export class AdbError extends Error {
  override readonly name = "AdbError";
  constructor(
    readonly kind: "refused" | "unreachable" | "aborted",
    message: string,
    /** The socket's error code, when the server was not reached (ECONNREFUSED: no server listens yet). */
    readonly code?: string,
  ) {
    super(message);
  }
}

export const ADB_PORT = 5037;
const DROPPED = /^(ADB_|ANDROID_ADB_|ANDROID_SERIAL$)/;

export interface AdbCliOptions {
  /** The adb server's port (default 5037, adb's own). */
  port?: number;
  /** The environment a spawned adb starts from, minus every ADB_*, ANDROID_ADB_* and ANDROID_SERIAL; without it, the process's own as it is. */
  env?: Record<string, string | undefined>;
}

/** The adb CLI at path and the server it starts, on the loopback at port. */
export function adbCli(path: string, { port = ADB_PORT, env }: AdbCliOptions = {}): AdbTransport {
  const childEnv = env && (Object.fromEntries(Object.entries(env).filter(([k, v]) => v !== undefined && !DROPPED.test(k))) as NodeJS.ProcessEnv);
  const run: AdbTransport["run"] = (args, options = {}) =>
    new Promise((resolve, reject) => {
      const child = execFile(
        path,
        ["-P", String(port), ...args],
        { env: childEnv, encoding: "buffer", maxBuffer: 64 << 20, signal: options.signal },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout);
          const words = stderr.toString().trim().split("\n").at(-1) || error.message;
          reject(new AdbError(options.signal?.aborted ? "aborted" : "unreachable", `adb ${args[0] ?? ""} failed: ${words}`));
        },
      );
      child.stdin?.end(options.input);
    });
  let started: Promise<unknown> | undefined;
  const server: AdbTransport["server"] = async (services, options = {}) => {
    try {
      return await serverCall(port, services, options.signal);
    } catch (error) {
      if (!(error instanceof AdbError) || error.code !== "ECONNREFUSED") throw error;
      // No server yet: started once for every caller, then asked again.
      started ??= run(["start-server"], options).finally(() => (started = undefined));
      await started;
      return serverCall(port, services, options.signal);
    }
  };
  return { run, server };
}

/** One socket to the server: each service sent and answered OKAY, then what follows, to the end. */
function serverCall(port: number, services: string[], signal: AbortSignal | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AdbError("aborted", "the adb request was aborted"));
    const socket = connect({ host: "127.0.0.1", port });
    const parts: Buffer[] = [];
    let held = Buffer.alloc(0);
    let step = 0;
    let settled = false;
    const done = (error?: AdbError) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      socket.destroy();
      if (error) reject(error);
      else resolve(Buffer.concat(parts));
    };
    const onAbort = () => done(new AdbError("aborted", "the adb request was aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    const send = () => socket.write(Buffer.from(services[step]!.length.toString(16).padStart(4, "0") + services[step]));
    socket.setNoDelay(true);
    socket.on("connect", send);
    socket.on("data", (chunk: Buffer) => {
      if (step >= services.length) return void parts.push(chunk);
      held = Buffer.concat([held, chunk]);
      while (step < services.length && held.length >= 4) {
        const status = held.subarray(0, 4).toString("latin1");
        if (status === "FAIL") {
          const length = held.length >= 8 ? parseInt(held.subarray(4, 8).toString("latin1"), 16) : NaN;
          if (!(held.length >= 8 + length)) return;
          return done(new AdbError("refused", held.subarray(8, 8 + length).toString()));
        }
        if (status !== "OKAY") return done(new AdbError("refused", "the adb server answered out of its protocol"));
        held = held.subarray(4);
        step++;
        if (step < services.length) send();
      }
      if (step >= services.length && held.length) (parts.push(held), (held = Buffer.alloc(0)));
    });
    socket.on("error", (error: NodeJS.ErrnoException) =>
      done(new AdbError("unreachable", `the adb server on port ${port} was not reached: ${error.message}`, error.code)),
    );
    socket.on("close", () => (step >= services.length ? done() : done(new AdbError("refused", "the adb server closed the request"))));
  });
}

/** A host service's answer: a 4-hex-digit length, then that many bytes. */
export function hostReply(bytes: Buffer): string {
  const length = parseInt(bytes.subarray(0, 4).toString("latin1"), 16);
  return Number.isNaN(length) ? "" : bytes.subarray(4, 4 + length).toString();
}
