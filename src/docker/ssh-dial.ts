// One connection to an engine over ssh, as the docker CLI's own ssh helper makes it: this
// machine's ssh client runs `docker system dial-stdio` on the engine's host, and the client's
// stdin and stdout are the connection. So the user's keys, agent, config and known_hosts apply,
// and nothing is asked on a terminal (BatchMode): an unknown host key or a refused login ends the
// connection with ssh's own words. The connections of one engine share one login (SshMux):
// ssh's ControlMaster in a private folder, each later connection a new session on it.
import { type ChildProcessByStdio, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Duplex } from "node:stream";
import type { Readable, Writable } from "node:stream";
import type { SshEngine } from "./engine.js";

/** How long ssh may take to reach the host before it gives up. */
const CONNECT_TIMEOUT_S = 30;
/** How long the shared login outlives its last connection (the process may end without closing it). */
export const MUX_PERSIST_S = 60;
/** The most of ssh's stderr kept for words. */
const STDERR_BYTES = 4096;
/** How long closing the shared login may take. */
const CLOSE_MS = 5_000;

/** The ssh client's argv before its destination: the user's, then ours (later options do not override earlier ones). */
function clientArgv(engine: SshEngine, mux?: string): string[] {
  const [client, ...options] = engine.ssh;
  return [
    client!,
    ...options,
    "-T",
    "-o",
    "BatchMode=yes",
    "-o",
    `ConnectTimeout=${CONNECT_TIMEOUT_S}`,
    // The first connection becomes the master and, after its login, goes to the background for
    // MUX_PERSIST_S past the last session; past sshd's MaxSessions a connection logs in alone.
    ...(mux ? ["-o", "ControlMaster=auto", "-o", `ControlPath=${mux}`, "-o", `ControlPersist=${MUX_PERSIST_S}`] : []),
    ...(engine.user ? ["-l", engine.user] : []),
    ...(engine.port ? ["-p", String(engine.port)] : []),
  ];
}

/** The ssh client's argv for one connection, sharing the login at mux (a control socket's path) when given. */
export function dialArgv(engine: SshEngine, mux?: string): string[] {
  return [...clientArgv(engine, mux), "--", engine.host, "docker", "system", "dial-stdio"];
}

/**
 * One login shared by an engine's connections: its control socket in a folder of its own (0700,
 * made at the first dial), so another provider's login, or another ssh argv's, is never taken.
 * close asks the master to exit and removes the folder; unclosed, the folder goes at the
 * process's exit and the master ends MUX_PERSIST_S after its last connection.
 */
export class SshMux {
  #dir: string | undefined;

  constructor(readonly engine: SshEngine) {}

  /** The control socket's path. */
  get path(): string {
    if (!this.#dir) {
      this.#dir = mkdtempSync(path.join(tmpdir(), "agentrun-ssh-"));
      process.once("exit", this.#atExit);
    }
    return path.join(this.#dir, "master");
  }

  /** A process that ends unclosed removes the folder; its login, unreachable then, ends itself. */
  readonly #atExit = () => {
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
  };

  async close(): Promise<void> {
    const dir = this.#dir;
    if (!dir) return;
    this.#dir = undefined;
    process.removeListener("exit", this.#atExit);
    const [client, ...args] = clientArgv(this.engine, path.join(dir, "master"));
    // No master there (none was made, or it ended) is fine: ssh says so and exits 255.
    await new Promise<void>((resolve) => execFile(client!, [...args, "-O", "exit", "--", this.engine.host], { timeout: CLOSE_MS }, () => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** ssh's last words on stderr, the line that says why (Host key verification failed., Permission denied (publickey).). */
function lastWords(stderr: string): string {
  return (
    stderr
      .trim()
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !/^Warning: Permanently added|disabling multiplexing$/.test(l))
      .pop() ?? ""
  );
}

/**
 * The connection: a Duplex over ssh's stdio that undici takes as a socket (ref and unref reach
 * the child, so an idle kept connection does not hold the process open). It ends with ssh; an ssh
 * that ends before the engine said anything is an error in ssh's words.
 */
class SshConnection extends Duplex {
  readonly #child: ChildProcessByStdio<Writable, Readable, Readable>;
  #stderr = "";
  #answered = false;

  constructor(engine: SshEngine, mux?: SshMux) {
    super({ allowHalfOpen: false });
    const [command, ...args] = dialArgv(engine, mux?.path);
    this.#child = spawn(command!, args, { stdio: ["pipe", "pipe", "pipe"] });
    const child = this.#child;
    child.stdout.on("data", (chunk: Buffer) => {
      this.#answered = true;
      if (!this.push(chunk)) child.stdout.pause();
    });
    // ssh that ends before the engine said anything has its reason on stderr, said at close.
    child.stdout.on("end", () => {
      if (this.#answered) this.push(null);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (this.#stderr.length < STDERR_BYTES) this.#stderr += chunk.toString("utf8");
    });
    child.stdin.on("error", () => undefined); // ssh gone: its exit says why
    child.once("error", (error) => this.destroy(new Error(`${engine.ssh[0]} could not run: ${error.message}`)));
    child.once("close", (code, signal) => {
      if (this.destroyed || this.#answered) return;
      const words = lastWords(this.#stderr);
      const how = signal ? `was ended by ${signal}` : `exited ${code}`;
      this.destroy(new Error(`ssh to ${engine.address} ${how}${words ? `: ${words}` : ""}`));
    });
  }

  override _read(): void {
    this.#child.stdout.resume();
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    // A write into an ssh that ended before the engine spoke fails with EPIPE; its close says why.
    this.#child.stdin.write(chunk, encoding, (error) => done(error && this.#answered ? error : null));
  }

  override _final(done: (error?: Error | null) => void): void {
    this.#child.stdin.end(done);
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill("SIGTERM");
    done(error);
  }

  ref(): this {
    this.#child.ref();
    for (const pipe of this.#pipes()) pipe.ref?.();
    return this;
  }

  unref(): this {
    this.#child.unref();
    for (const pipe of this.#pipes()) pipe.unref?.();
    return this;
  }

  /** The child's pipes, which are sockets: each holds the event loop as the child does. */
  #pipes(): Array<{ ref?: () => void; unref?: () => void }> {
    const { stdin, stdout, stderr } = this.#child;
    return [stdin, stdout, stderr] as Array<{ ref?: () => void; unref?: () => void }>;
  }
}

/** A new connection to the engine through ssh, a session on mux's login when given. */
export function dialSsh(engine: SshEngine, mux?: SshMux): Duplex {
  return new SshConnection(engine, mux);
}
