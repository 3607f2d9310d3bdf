// A fake Daytona for the tests: a real HTTP server on the loopback speaking the endpoints the
// provider calls (create, get, stop, delete, list by labels, network settings, the toolbox URL,
// and the toolbox's upload, execute and session calls with the split log over a WebSocket),
// whose sandboxes are real Docker containers: root with every capability, on an internal Docker
// network of the fake's own (block-all: nothing leaves), and a stand-in toolbox agent as the first
// process, listening on 2280 on the loopback and on the container's address. Toolbox commands
// run in the container as root through docker exec, as Daytona's toolbox runs them as its user.
// Everything it makes carries the label agentrun.test.daytona-fake=<run>, and close() removes it.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { WebSocketServer, type WebSocket } from "ws";

const run = promisify(execFile);
export const FAKE_LABEL = "agentrun.test.daytona-fake";
const STANDIN_IN = "/daytona-toolbox/standin";

// Every capability, by bit; the ones this host's bounding set lacks are dropped from --cap-add ALL
// (runc cannot give what the engine does not hold: on this machine, SYS_RESOURCE).
const CAPS = [
  "CHOWN",
  "DAC_OVERRIDE",
  "DAC_READ_SEARCH",
  "FOWNER",
  "FSETID",
  "KILL",
  "SETGID",
  "SETUID",
  "SETPCAP",
  "LINUX_IMMUTABLE",
  "NET_BIND_SERVICE",
  "NET_BROADCAST",
  "NET_ADMIN",
  "NET_RAW",
  "IPC_LOCK",
  "IPC_OWNER",
  "SYS_MODULE",
  "SYS_RAWIO",
  "SYS_CHROOT",
  "SYS_PTRACE",
  "SYS_PACCT",
  "SYS_ADMIN",
  "SYS_BOOT",
  "SYS_NICE",
  "SYS_RESOURCE",
  "SYS_TIME",
  "SYS_TTY_CONFIG",
  "MKNOD",
  "LEASE",
  "AUDIT_WRITE",
  "AUDIT_CONTROL",
  "SETFCAP",
  "MAC_OVERRIDE",
  "MAC_ADMIN",
  "SYSLOG",
  "WAKE_ALARM",
  "BLOCK_SUSPEND",
  "AUDIT_READ",
  "PERFMON",
  "BPF",
  "CHECKPOINT_RESTORE",
];

function capsLacking(): string[] {
  const bnd = /^CapBnd:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
  if (!bnd) return [];
  const set = BigInt(`0x${bnd}`);
  return CAPS.filter((_, bit) => (set & (1n << BigInt(bit))) === 0n);
}

export interface FakeOptions {
  /** The Docker image "default" (and every snapshot named in snapshots) runs. */
  image: string;
  /** The stand-in agent, a static binary (daemon/cmd/computerd/testdata/standin). */
  standin: string;
  apiKey: string;
  /** Snapshot names the fake knows beside the default, each to a Docker image. */
  snapshots?: Record<string, string>;
  /** The name Daytona reports for a sandbox made with no snapshot. */
  defaultSnapshot?: string;
}

interface Cmd {
  id: string;
  proc: ChildProcess;
  log: Buffer[];
  lines: { stdout: Buffer; stderr: Buffer };
  ended: boolean;
  exitCode: number | null;
  listeners: Set<WebSocket>;
  pidFile: string;
}

export interface FakeSandbox {
  id: string;
  name: string;
  snapshot: string;
  image: string;
  labels: Record<string, string>;
  networkBlockAll: boolean;
  networkAllowList: string | null;
  state: string;
  desiredState: string;
  errorReason: string | null;
  autoStopInterval: number;
  autoDeleteInterval: number;
  autoDestroyAt: string;
  /** When the fake made it, as Daytona's createdAt. */
  createdAt: string;
  container: string;
  sessions: Map<string, Map<string, Cmd>>;
  ttl?: NodeJS.Timeout;
  /** Its docker run, settled: a delete waits for it, so a sandbox deleted while it starts is not left running. */
  running?: Promise<void>;
}

export interface Fake extends EventEmitter {
  url: string;
  apiUrl: string;
  run: string;
  sandboxes: Map<string, FakeSandbox>;
  /** The next change to block-all lands as block-all with a list (drift), once. */
  networkSkewOnce?: boolean;
  /** Network changes are refused, as Daytona refuses them on its lower tiers. */
  networkFrozen?: boolean;
  /** The next sandbox runs with Docker's default capabilities, as on a runner that is not privileged. */
  unprivilegedNext?: boolean;
  /** A test's hook, awaited at each upload before the bytes land (a change made by hand inside). */
  onUpload?: ((sandbox: FakeSandbox) => Promise<void>) | undefined;
  /** A test's hook, awaited as a delete starts, before the container goes (to read what is inside). */
  onDelete?: ((sandbox: FakeSandbox) => Promise<void>) | undefined;
  /** Kills the stand-in agent, the sandbox's first process: the sandbox ends. */
  killAgent(id: string): Promise<void>;
  /** Every container the fake holds, by its label (running or not). */
  containers(): Promise<string[]>;
  close(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body?: unknown) => {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(body === undefined ? "" : JSON.stringify(body));
};

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

export async function startFake(options: FakeOptions): Promise<Fake> {
  const runId = randomBytes(6).toString("hex");
  const network = `fake-daytona-${runId}`;
  await run("docker", ["network", "create", "--internal", "--label", `${FAKE_LABEL}=${runId}`, network]);
  const sandboxes = new Map<string, FakeSandbox>();
  const emitter = new EventEmitter();
  const wss = new WebSocketServer({ noServer: true });
  let base = "";

  const find = (idOrName: string) => sandboxes.get(idOrName) ?? [...sandboxes.values()].find((s) => s.name === idOrName);
  const view = (s: FakeSandbox) => ({
    id: s.id,
    name: s.name,
    snapshot: s.snapshot,
    labels: s.labels,
    public: false,
    networkBlockAll: s.networkBlockAll,
    networkAllowList: s.networkAllowList,
    domainAllowList: null,
    outboundProxyUrl: null,
    cpu: 1,
    gpu: 0,
    memory: 1,
    disk: 3,
    state: s.state,
    desiredState: s.desiredState,
    errorReason: s.errorReason,
    autoStopInterval: s.autoStopInterval,
    autoDeleteInterval: s.autoDeleteInterval,
    autoDestroyAt: s.autoDestroyAt,
    createdAt: s.createdAt,
    volumes: [],
    sandboxClass: "container",
    kvm: false,
    linkedSandboxId: null,
    target: "local",
    toolboxProxyUrl: `${base}/toolbox`,
  });

  const destroy = (s: FakeSandbox) => {
    if (s.desiredState === "destroyed") return;
    s.desiredState = "destroyed";
    s.state = "destroying";
    clearTimeout(s.ttl);
    for (const cmds of s.sessions.values()) for (const c of cmds.values()) c.proc.kill("SIGKILL");
    void Promise.resolve(s.running)
      .then(() => fake.onDelete?.(s))
      .catch(() => undefined)
      .then(() => run("docker", ["rm", "--force", "--volumes", s.container]))
      .catch(() => undefined)
      .then(() => {
        s.state = "destroyed";
        sandboxes.delete(s.id);
      });
  };
  const stop = (s: FakeSandbox) => {
    if (s.state === "stopped" || s.desiredState === "destroyed") return;
    s.desiredState = "stopped";
    s.state = "stopping";
    void run("docker", ["stop", "--time", "2", s.container])
      .catch(() => undefined)
      .then(() => {
        if (s.desiredState !== "stopped") return;
        s.state = "stopped";
        if (s.autoDeleteInterval === 0) destroy(s);
      });
  };

  const create = async (body: Record<string, unknown>, res: http.ServerResponse) => {
    const name = typeof body.name === "string" && body.name ? body.name : `sandbox-${randomBytes(4).toString("hex")}`;
    if (find(name)) return json(res, 409, { message: `a sandbox named ${name} exists` });
    const snapshot = typeof body.snapshot === "string" ? body.snapshot : undefined;
    const image = snapshot === undefined ? options.image : options.snapshots?.[snapshot];
    if (!image) return json(res, 400, { message: `snapshot ${snapshot} not found` });
    // An open sandbox (a computer made before the loopback block) still sits on the fake's
    // internal network: its read-back is what differs, never a route out.
    if (body.networkBlockAll !== true && body.networkBlockAll !== false) return json(res, 400, { message: "networkBlockAll is a boolean" });
    const ttl = Number(body.ttlMinutes ?? 0);
    const id = randomUUID();
    const s: FakeSandbox = {
      id,
      name,
      image,
      snapshot: snapshot ?? options.defaultSnapshot ?? "daytonaio/sandbox:fake",
      labels: (body.labels as Record<string, string>) ?? {},
      networkBlockAll: body.networkBlockAll === true,
      networkAllowList: null,
      state: "creating",
      desiredState: "started",
      errorReason: null,
      autoStopInterval: Number(body.autoStopInterval ?? 15),
      autoDeleteInterval: Number(body.autoDeleteInterval ?? -1),
      autoDestroyAt: new Date(Date.now() + ttl * 60_000).toISOString(),
      createdAt: new Date().toISOString(),
      container: `fake-daytona-${runId}-${id.slice(0, 8)}`,
      sessions: new Map(),
    };
    sandboxes.set(id, s);
    if (ttl > 0) {
      s.ttl = setTimeout(() => destroy(s), ttl * 60_000);
      s.ttl.unref();
    }
    json(res, 200, view(s));
    // Daytona answers first and starts the sandbox after. A runner that is not privileged gives
    // Docker's default capabilities: no CAP_SYS_ADMIN, so no network namespace for init.
    const caps = fake.unprivilegedNext ? [] : ["--cap-add", "ALL", ...capsLacking().flatMap((c) => ["--cap-drop", c])];
    fake.unprivilegedNext = false;
    const running = run("docker", [
      "run",
      "--detach",
      "--name",
      s.container,
      "--label",
      `${FAKE_LABEL}=${runId}`,
      "--network",
      network,
      ...caps,
      "--security-opt",
      "seccomp=unconfined",
      "--security-opt",
      "apparmor=unconfined",
      "-v",
      `${path.resolve(options.standin)}:${STANDIN_IN}:ro`,
      image,
      STANDIN_IN,
      "agent",
      "/run/daytona-toolbox.log",
    ]);
    s.running = running.then(
      () => undefined,
      () => undefined,
    );
    try {
      await running;
      // Started once the agent listens.
      for (let i = 0; i < 100; i += 1) {
        const ready = await run("docker", ["exec", s.container, "test", "-e", "/run/daytona-toolbox.log.ready"]).then(
          () => true,
          () => false,
        );
        if (ready) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      if (s.desiredState === "started") s.state = "started";
      // The agent's exit ends the sandbox.
      void run("docker", ["wait", s.container]).then(
        () => {
          if (s.desiredState === "started") {
            s.state = "error";
            s.errorReason = "the toolbox exited";
          }
        },
        () => undefined,
      );
    } catch (error) {
      if (s.desiredState !== "started") return; // deleted or stopped while it started
      s.state = "error";
      s.errorReason = (error as Error).message.split("\n")[0] ?? "docker run failed";
    }
  };

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
      emitter.emit("upload", s.id);
      await fake.onUpload?.(s);
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

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", base);
      if (req.headers.authorization !== `Bearer ${options.apiKey}`) return json(res, 401, { message: "unauthorized" });
      const method = req.method ?? "GET";
      const p = url.pathname;
      const tb = /^\/toolbox\/([^/]+)(\/.*)$/.exec(p);
      if (tb) {
        const s = sandboxes.get(decodeURIComponent(tb[1]!));
        if (!s) return json(res, 404, { message: "no such sandbox" });
        return toolbox(s, tb[2]!, url, req, res);
      }
      if (p === "/api/sandbox" && method === "POST") return create(JSON.parse((await readBody(req)).toString() || "{}"), res);
      if (p === "/api/sandbox" && method === "GET") {
        const want = JSON.parse(url.searchParams.get("labels") ?? "{}") as Record<string, string>;
        const limit = Number(url.searchParams.get("limit") ?? 100);
        const from = Number(url.searchParams.get("cursor") ?? 0);
        const all = [...sandboxes.values()].filter((s) => Object.entries(want).every(([k, v]) => s.labels[k] === v));
        const items = all.slice(from, from + limit).map(view);
        return json(res, 200, { items, nextCursor: from + limit < all.length ? String(from + limit) : null });
      }
      const one = /^\/api\/sandbox\/([^/]+)(\/[a-z-]+)?$/.exec(p);
      const s = one ? find(decodeURIComponent(one[1]!)) : undefined;
      if (!one) return json(res, 404, { message: `no route ${method} ${p}` });
      if (!s || s.state === "destroyed") return json(res, 404, { message: "sandbox not found" });
      const sub = one[2] ?? "";
      if (method === "GET" && sub === "") return json(res, 200, view(s));
      if (method === "DELETE" && sub === "") return (destroy(s), json(res, 200, view(s)));
      if (method === "POST" && sub === "/stop") return (stop(s), json(res, 200, {}));
      if (method === "GET" && sub === "/toolbox-proxy-url") return json(res, 200, { url: `${base}/toolbox` });
      if (method === "POST" && sub === "/network-settings") {
        const body = JSON.parse((await readBody(req)).toString() || "{}") as { networkBlockAll?: boolean };
        if (fake.networkFrozen) return json(res, 400, { message: "Tier 1 and 2 cannot override the network per sandbox" });
        const settings = body as { networkBlockAll?: boolean; networkAllowList?: string };
        if (fake.networkSkewOnce && settings.networkBlockAll === true) {
          // A change that lands as neither what was asked nor what was there.
          fake.networkSkewOnce = false;
          s.networkBlockAll = true;
          s.networkAllowList = "10.0.0.0/8";
          return json(res, 200, view(s));
        }
        if (settings.networkBlockAll === false) {
          s.networkBlockAll = false;
          s.networkAllowList = settings.networkAllowList || null;
        } else if (body.networkBlockAll === true) {
          s.networkBlockAll = true;
          s.networkAllowList = null;
        }
        return json(res, 200, view(s));
      }
      return json(res, 404, { message: `no route ${method} ${p}` });
    })().catch((error: Error) => {
      if (!res.headersSent) json(res, 500, { message: error.message });
    });
  });

  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", base);
    const m = /^\/toolbox\/([^/]+)\/process\/session\/([^/]+)\/command\/([^/]+)\/logs$/.exec(url.pathname);
    const cmd = m ? sandboxes.get(decodeURIComponent(m[1]!))?.sessions.get(decodeURIComponent(m[2]!))?.get(decodeURIComponent(m[3]!)) : undefined;
    if (
      req.headers.authorization !== `Bearer ${options.apiKey}` ||
      !cmd ||
      url.searchParams.get("follow") !== "true" ||
      req.headers["x-daytona-split-output"] !== "true"
    ) {
      socket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      for (const bytes of cmd.log) sendCut(ws, bytes);
      if (cmd.ended) return ws.close();
      cmd.listeners.add(ws);
      ws.on("close", () => cmd.listeners.delete(ws));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;

  const containers = async () => {
    const ps = await run("docker", ["ps", "--all", "--quiet", "--filter", `label=${FAKE_LABEL}=${runId}`]);
    return ps.stdout.split("\n").filter(Boolean);
  };
  const fake: Fake = Object.assign(emitter, {
    url: base,
    apiUrl: `${base}/api`,
    run: runId,
    sandboxes,
    killAgent: async (id: string) => {
      const s = sandboxes.get(id);
      if (s) await run("docker", ["kill", "--signal", "KILL", s.container]).catch(() => undefined);
    },
    containers,
    close: async () => {
      for (const s of sandboxes.values()) for (const cmds of s.sessions.values()) for (const c of cmds.values()) c.proc.kill("SIGKILL");
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      const left = await containers();
      if (left.length) await run("docker", ["rm", "--force", "--volumes", ...left]).catch(() => undefined);
      await run("docker", ["network", "rm", network]).catch(() => undefined);
    },
  });
  return fake;
}
