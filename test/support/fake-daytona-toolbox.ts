// The Daytona fake's toolbox (fake-daytona.ts): the upload, execute and session calls, run in the
// sandbox's container as root through docker exec, with each command's split log kept whole and
// sent over a WebSocket cut at random bytes.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import type http from "node:http";
import type { WebSocket } from "ws";
import type { FakeSandbox } from "./fake-daytona.js";

export interface Cmd {
  id: string;
  proc: ChildProcess;
  log: Buffer[];
  lines: { stdout: Buffer; stderr: Buffer };
  ended: boolean;
  exitCode: number | null;
  listeners: Set<WebSocket>;
  pidFile: string;
}

export const json = (res: http.ServerResponse, status: number, body?: unknown) => {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(body === undefined ? "" : JSON.stringify(body));
};

export async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** The toolbox's routes; emit tells of each upload, onUpload is awaited before its bytes land. */
export function toolboxRoutes(hooks: { emit(id: string): void; onUpload(s: FakeSandbox): Promise<void> | undefined }) {
  const dockerExec = (s: FakeSandbox, argv: string[], stdin?: Buffer) =>
    new Promise<{ code: number; stdout: Buffer; stderr: Buffer }>((resolve) => {
      const child = spawn("docker", ["exec", "-i", s.container, ...argv]);
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (d: Buffer) => out.push(d));
      child.stderr.on("data", (d: Buffer) => err.push(d));
      child.on("close", (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
      child.stdin.on("error", () => undefined);
      child.stdin.end(stdin ?? Buffer.alloc(0));
    });

  const sendLog = (cmd: Cmd, bytes: Buffer) => {
    cmd.log.push(bytes);
    for (const ws of cmd.listeners) sendCut(ws, bytes);
  };
  // Each message is cut at a random byte, so a prefix may come split across two.
  const sendCut = (ws: WebSocket, bytes: Buffer) => {
    if (bytes.length < 2) return ws.send(bytes);
    const at = 1 + Math.floor(Math.random() * (bytes.length - 1));
    ws.send(bytes.subarray(0, at));
    ws.send(bytes.subarray(at));
  };
  const onOutput = (cmd: Cmd, stream: "stdout" | "stderr", data: Buffer) => {
    let buf = Buffer.concat([cmd.lines[stream], data]);
    const prefix = Buffer.alloc(3, stream === "stdout" ? 1 : 2);
    const out: Buffer[] = [];
    for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10)) {
      out.push(prefix, buf.subarray(0, nl + 1));
      buf = buf.subarray(nl + 1);
    }
    cmd.lines[stream] = buf;
    if (out.length) sendLog(cmd, Buffer.concat(out));
  };

  const toolbox = async (s: FakeSandbox, rest: string, url: URL, req: http.IncomingMessage, res: http.ServerResponse) => {
    const method = req.method ?? "GET";
    if (s.state !== "started") return json(res, 502, { message: `the sandbox is ${s.state}` });
    if (method === "POST" && rest === "/files/upload-v2") {
      const target = url.searchParams.get("path") ?? "";
      const form = await new Response(await readBody(req), { headers: { "Content-Type": req.headers["content-type"] ?? "" } }).formData();
      const file = form.get("file");
      if (!(file instanceof Blob)) return json(res, 400, { message: "no file field" });
      hooks.emit(s.id);
      await hooks.onUpload(s);
      const wrote = await dockerExec(s, ["sh", "-c", 'cat > "$1"', "sh", target], Buffer.from(await file.arrayBuffer()));
      return wrote.code === 0 ? json(res, 200, {}) : json(res, 500, { message: wrote.stderr.toString() });
    }
    if (method === "POST" && rest === "/process/execute") {
      const body = JSON.parse((await readBody(req)).toString() || "{}") as { command?: string };
      // The command is piped to the shell, as the toolbox does.
      const ran = await dockerExec(s, ["sh"], Buffer.from(`${body.command ?? ""}\n`));
      return json(res, 200, { exitCode: ran.code, result: Buffer.concat([ran.stdout, ran.stderr]).toString() });
    }
    if (method === "POST" && rest === "/process/session") {
      const body = JSON.parse((await readBody(req)).toString() || "{}") as { sessionId?: string };
      if (!body.sessionId) return json(res, 400, { message: "sessionId is required" });
      if (s.sessions.has(body.sessionId)) return json(res, 409, { message: "the session exists" });
      s.sessions.set(body.sessionId, new Map());
      return json(res, 201, {});
    }
    const sessionMatch = /^\/process\/session\/([^/]+)(\/.*)?$/.exec(rest);
    if (!sessionMatch) return json(res, 404, { message: `no toolbox route ${method} ${rest}` });
    const sessionId = decodeURIComponent(sessionMatch[1]!);
    const session = s.sessions.get(sessionId);
    if (!session) return json(res, 404, { message: `no session ${sessionId}` });
    const sub = sessionMatch[2] ?? "";
    if (method === "DELETE" && sub === "") {
      for (const cmd of session.values()) {
        await dockerExec(s, ["sh", "-c", `kill -9 $(cat ${cmd.pidFile}) 2>/dev/null; rm -f ${cmd.pidFile}`]);
        cmd.proc.kill("SIGKILL");
      }
      s.sessions.delete(sessionId);
      return json(res, 204);
    }
    if (method === "POST" && sub === "/exec") {
      const body = JSON.parse((await readBody(req)).toString() || "{}") as { command?: string; runAsync?: boolean };
      const cmdId = randomUUID();
      const pidFile = `/tmp/.daytona-fake-${cmdId}`;
      // The pid the session records is the command's own: sh execs into it.
      const proc = spawn("docker", ["exec", "-i", s.container, "sh", "-c", `echo $$ > ${pidFile}; exec sh -c "$1"`, "sh", body.command ?? ""]);
      const cmd: Cmd = {
        id: cmdId,
        proc,
        log: [],
        lines: { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) },
        ended: false,
        exitCode: null,
        listeners: new Set(),
        pidFile,
      };
      proc.stdout!.on("data", (d: Buffer) => onOutput(cmd, "stdout", d));
      proc.stderr!.on("data", (d: Buffer) => onOutput(cmd, "stderr", d));
      proc.stdin!.on("error", () => undefined);
      proc.on("close", (code) => {
        cmd.ended = true;
        cmd.exitCode = code;
        for (const stream of ["stdout", "stderr"] as const) if (cmd.lines[stream].length) onOutput(cmd, stream, Buffer.from("\n"));
        for (const ws of cmd.listeners) ws.close();
      });
      session.set(cmdId, cmd);
      return json(res, 200, { cmdId });
    }
    const cmdMatch = /^\/command\/([^/]+)\/(input|logs)$/.exec(sub);
    const cmd = cmdMatch ? session.get(decodeURIComponent(cmdMatch[1]!)) : undefined;
    if (!cmdMatch || !cmd) return json(res, 404, { message: `no command at ${sub}` });
    if (method === "POST" && cmdMatch[2] === "input") {
      const body = JSON.parse((await readBody(req)).toString() || "{}") as { data?: string };
      const data = body.data ?? "";
      if (cmd.ended) return json(res, 400, { message: "the command has ended" });
      cmd.proc.stdin!.write(data.endsWith("\n") ? data : `${data}\n`);
      return json(res, 200, {});
    }
    if (method === "GET" && cmdMatch[2] === "logs") {
      res.writeHead(200, { "Content-Type": "text/plain" });
      return res.end(Buffer.concat(cmd.log));
    }
    return json(res, 404, { message: `no toolbox route ${method} ${rest}` });
  };

  return { toolbox, sendCut };
}
