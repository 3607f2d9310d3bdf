// envd as the e2b SDK reaches it through E2B's sandbox proxy: each request names its sandbox in
// E2b-Sandbox-Id and carries the sandbox's X-Access-Token; a sandbox that is not running answers
// 502, as the proxy does. Served from envd's published definitions (spec/envd/process/process.proto,
// spec/envd/envd.yaml): process.Process Start (server-streaming: a start event with the pid, the
// output as data events, an end event with the exit; keepalives at the Keepalive-Ping-Interval
// asked for; the command killed when its Connect-Timeout-Ms passes; a stream the client drops
// leaves the command running), SendInput, SendSignal and CloseStdin; POST /files (multipart, or
// application/octet-stream) written as the user asked for; GET /health. The user is the Basic
// Authorization's, else the template's default user. Each command is a docker exec in the
// sandbox's container, started as the process asked (cmd and args, envs, cwd).
import { type ChildProcess, spawn } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { execArgs } from "../fake-e2b-docker.js";
import { answerUnary, answerUnaryError, bodyOf, ConnectError, ServerStream, streamRequest, unaryRequest } from "./connect.js";

/** Docker's uid:gid for an envd user: root, or E2B's default user (uid 1000). */
const USERS: Record<string, string> = { root: "0:0", user: "1000:1000" };
const DEFAULT_USER = "user";
const SIGNALS: Record<string, string> = { SIGNAL_SIGKILL: "KILL", SIGNAL_SIGTERM: "TERM", "9": "KILL", "15": "TERM" };

interface Proc {
  pid: number;
  sandboxId: string;
  child: ChildProcess;
  pidFile: string;
  stdin: boolean;
  signalled: boolean;
}

/** What envd needs of the wire server: a sandbox's container checked running, its access token, docker, and the call log. */
export interface EnvdHost {
  running(sandboxId: string): Promise<boolean>;
  accessToken(sandboxId: string): string;
  docker(args: string[], input?: Buffer): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  /** A fault queued for this call, answered in place of it; or, with cut, the stream's output cut after that many bytes. */
  take(call: string): { status: number; body: object; cut?: number } | undefined;
  log(call: string): void;
}

/** A request's message, or none when it does not parse (its handler then says why). */
function parsed(read: () => Record<string, unknown>): Record<string, unknown> {
  try {
    return read();
  } catch {
    return {};
  }
}

export class Envd {
  readonly #procs = new Map<number, Proc>();
  #nextPid = 400;

  constructor(readonly host: EnvdHost) {}

  /** Every command still running, killed (the server's stop). */
  stop(): void {
    for (const p of this.#procs.values()) p.child.kill("SIGKILL");
    this.#procs.clear();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://envd");
    const call = `${req.method} ${url.pathname}`;
    this.host.log(call);
    const sandboxId = String(req.headers["e2b-sandbox-id"] ?? "");
    const body = await bodyOf(req);
    if (url.pathname === "/health" && req.method === "GET") {
      res.writeHead((await this.host.running(sandboxId)) ? 204 : 502).end();
      return;
    }
    // A proc found by pid needs no docker inspect: its sandbox runs (every stdin write of the bridge is one call).
    const known =
      url.pathname === "/process.Process/SendInput" &&
      this.#procOf(
        sandboxId,
        parsed(() => unaryRequest(req, body)),
        false,
      );
    if (!known && !(sandboxId && (await this.host.running(sandboxId)))) {
      res.writeHead(502, { "content-type": "application/json" }).end(JSON.stringify({ sandboxId, message: "The sandbox was not found", code: 502 }));
      return;
    }
    const stream = url.pathname === "/process.Process/Start";
    if (req.headers["x-access-token"] !== this.host.accessToken(sandboxId)) {
      const refused = new ConnectError("unauthenticated", "unauthorized access, please provide a valid access token or method signing if supported");
      if (url.pathname.startsWith("/process.")) return stream ? new ServerStream(res).end(refused) : answerUnaryError(res, refused);
      res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ code: 401, message: refused.message }));
      return;
    }
    const fault = this.host.take(call);
    if (fault && fault.cut === undefined) {
      res.writeHead(fault.status, { "content-type": "application/json" }).end(JSON.stringify(fault.body));
      return;
    }
    try {
      if (url.pathname === "/files" && req.method === "POST") return await this.#upload(req, res, url, sandboxId, body);
      if (req.method !== "POST") throw new ConnectError("unimplemented", `${call} is not served`);
      if (stream) return await this.#start(req, res, sandboxId, streamRequest(req, body), fault?.cut);
      const message = unaryRequest(req, body);
      if (url.pathname === "/process.Process/SendInput") return answerUnary(res, await this.#sendInput(sandboxId, message));
      if (url.pathname === "/process.Process/SendSignal") return answerUnary(res, await this.#sendSignal(sandboxId, message));
      if (url.pathname === "/process.Process/CloseStdin") return answerUnary(res, this.#closeStdin(sandboxId, message));
      throw new ConnectError("unimplemented", `${url.pathname} is not served`);
    } catch (error) {
      const e = error instanceof ConnectError ? error : new ConnectError("internal", (error as Error).message);
      if (stream) new ServerStream(res).end(e);
      else answerUnaryError(res, e);
    }
  }

  #user(req: IncomingMessage): string {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const name = basic ? Buffer.from(basic, "base64").toString("utf8").replace(/:.*$/, "") : DEFAULT_USER;
    if (!USERS[name]) throw new ConnectError("unauthenticated", `error looking up user '${name}': user: unknown user ${name}`);
    return USERS[name];
  }

  #procOf(sandboxId: string, message: Record<string, unknown>, strict = true): Proc | undefined {
    const pid = Number((message.process as { pid?: number } | undefined)?.pid);
    const proc = this.#procs.get(pid);
    if (proc && proc.sandboxId === sandboxId) return proc;
    if (strict) throw new ConnectError("not_found", `process with pid ${pid} not found`);
    return undefined;
  }

  async #start(req: IncomingMessage, res: ServerResponse, sandboxId: string, message: Record<string, unknown>, cut: number | undefined): Promise<void> {
    const p = (message.process ?? {}) as { cmd?: string; args?: string[]; envs?: Record<string, string>; cwd?: string };
    if (!p.cmd) throw new ConnectError("invalid_argument", "process.cmd is required");
    const user = this.#user(req);
    const pid = (this.#nextPid += 1);
    const pidFile = `/tmp/.envd-wire-${pid}`;
    const child = spawn("docker", execArgs(sandboxId, user, p, pidFile, [p.cmd, ...(p.args ?? [])]), { stdio: ["pipe", "pipe", "pipe"] });
    child.stdin!.on("error", () => undefined);
    const proc: Proc = { pid, sandboxId, child, pidFile, stdin: message.stdin === true, signalled: false };
    if (!proc.stdin) child.stdin!.end();
    this.#procs.set(pid, proc);
    const out = new ServerStream(res);
    out.send({ event: { start: { pid } } });
    let left = cut ?? Infinity;
    const data = (key: "stdout" | "stderr") => (chunk: Buffer) => {
      if (key === "stdout" && left < chunk.length) {
        // A fault: the stream cut mid-output, as a dropped connection cuts it (the command runs on).
        if (left > 0) out.send({ event: { data: { stdout: chunk.subarray(0, left).toString("base64") } } });
        left = 0;
        res.destroy();
        return;
      }
      if (key === "stdout") left -= chunk.length;
      out.send({ event: { data: { [key]: chunk.toString("base64") } } });
    };
    child.stdout!.on("data", data("stdout"));
    child.stderr!.on("data", data("stderr"));
    const every = Number(req.headers["keepalive-ping-interval"]);
    const keepalive = every > 0 ? setInterval(() => out.send({ event: { keepalive: {} } }), every * 1000) : undefined;
    const within = Number(req.headers["connect-timeout-ms"]);
    let timedOut = false;
    const deadline = within > 0 ? setTimeout(() => ((timedOut = true), void this.#signal(proc, "KILL")), within) : undefined;
    child.once("close", (code) => {
      clearInterval(keepalive);
      clearTimeout(deadline);
      this.#procs.delete(pid);
      if (timedOut) return out.end(new ConnectError("deadline_exceeded", "the command's timeout passed"));
      const end = proc.signalled
        ? { exitCode: -1, exited: false, status: "signal: killed", error: "signal: killed" }
        : { exitCode: code ?? -1, exited: true, status: `exit status ${code}`, ...(code === 0 ? {} : { error: `exit status ${code}` }) };
      out.send({ event: { end } });
      out.end();
    });
    // The client dropping the stream leaves the command running (envd's start.go).
    res.once("close", () => clearInterval(keepalive));
  }

  async #signal(proc: Proc, signal: string): Promise<void> {
    proc.signalled = true;
    await this.host.docker(["exec", proc.sandboxId, "sh", "-c", `kill -${signal} $(cat ${proc.pidFile}) 2>/dev/null; rm -f ${proc.pidFile}`]);
  }

  async #sendInput(sandboxId: string, message: Record<string, unknown>): Promise<object> {
    const proc = this.#procOf(sandboxId, message)!;
    const stdin = (message.input as { stdin?: string } | undefined)?.stdin;
    if (stdin === undefined) throw new ConnectError("invalid_argument", "input.stdin is required (pty input is not served)");
    if (!proc.stdin || proc.child.stdin!.writableEnded) throw new ConnectError("failed_precondition", `stdin of process ${proc.pid} is not open`);
    await new Promise<void>((resolve, reject) => proc.child.stdin!.write(Buffer.from(stdin, "base64"), (e) => (e ? reject(e) : resolve())));
    return {};
  }

  async #sendSignal(sandboxId: string, message: Record<string, unknown>): Promise<object> {
    const proc = this.#procOf(sandboxId, message)!;
    const signal = SIGNALS[String(message.signal)];
    if (!signal) throw new ConnectError("invalid_argument", `signal ${String(message.signal)} is not one envd sends`);
    await this.#signal(proc, signal);
    return {};
  }

  #closeStdin(sandboxId: string, message: Record<string, unknown>): object {
    this.#procOf(sandboxId, message)!.child.stdin!.end();
    return {};
  }

  async #upload(req: IncomingMessage, res: ServerResponse, url: URL, sandboxId: string, body: Buffer): Promise<void> {
    const name = url.searchParams.get("username") ?? DEFAULT_USER;
    const user = USERS[name];
    const answer = (status: number, message: object) => void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(message));
    if (!user) return answer(401, { code: 401, message: `error looking up user '${name}': user: unknown user ${name}` });
    const type = req.headers["content-type"] ?? "";
    const files: { path: string; bytes: Buffer }[] = [];
    if (type.startsWith("application/octet-stream")) {
      const target = url.searchParams.get("path");
      if (!target) return answer(400, { code: 400, message: "path is required for an octet-stream upload" });
      files.push({ path: target, bytes: body });
    } else if (type.startsWith("multipart/form-data")) {
      const form = await new Response(body, { headers: { "content-type": type } }).formData();
      for (const entry of form.getAll("file")) {
        if (typeof entry === "string") continue;
        files.push({ path: url.searchParams.get("path") ?? entry.name, bytes: Buffer.from(await entry.arrayBuffer()) });
      }
    } else return answer(400, { code: 400, message: `unsupported content type ${type}` });
    if (files.length === 0) return answer(400, { code: 400, message: "no file in the upload" });
    const written = [];
    for (const file of files) {
      // A relative path is the user's home's (envd resolves it so).
      const target = path.posix.isAbsolute(file.path) ? file.path : path.posix.join(name === "root" ? "/root" : `/home/${name}`, file.path);
      const wrote = await this.host.docker(
        ["exec", "-i", "-u", user, sandboxId, "sh", "-c", 'mkdir -p "$(dirname "$1")" && cat > "$1"', "sh", target],
        file.bytes,
      );
      if (wrote.exitCode !== 0) return answer(500, { code: 500, message: `error writing file '${target}': ${wrote.stderr.trim()}` });
      written.push({ name: path.posix.basename(target), type: "file", path: target });
    }
    answer(200, written);
  }
}
