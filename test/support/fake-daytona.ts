// A fake Daytona for the tests: a real HTTP server on the loopback speaking the endpoints the
// provider calls (create, get, stop, start, labels, delete, list by labels, network settings, the
// toolbox URL, snapshots: fake-daytona-snapshots.ts; and the toolbox's upload, execute and session
// calls with the split log over a WebSocket: fake-daytona-toolbox.ts),
// whose sandboxes are real Docker containers: root with every capability, on an internal Docker
// network of the fake's own (block-all: nothing leaves), and a stand-in toolbox agent as the first
// process, listening on 2280 on the loopback and on the container's address. Toolbox commands
// run in the container as root through docker exec, as Daytona's toolbox runs them as its user.
// Everything it makes carries the label agentrun.test.daytona-fake=<run>, and close() removes it.
import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import http from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { WebSocketServer } from "ws";
import { FakeSnapshots } from "./fake-daytona-snapshots.js";
import { type Cmd, json, readBody, toolboxRoutes } from "./fake-daytona-toolbox.js";
import { everyCapability } from "./capabilities.js";

const run = promisify(execFile);
export const FAKE_LABEL = "agentrun.test.daytona-fake";
const STANDIN_IN = "/daytona-toolbox/standin";
const READY = "/run/daytona-toolbox.log.ready";

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
  snapshots: FakeSnapshots;
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

export async function startFake(options: FakeOptions): Promise<Fake> {
  const runId = randomBytes(6).toString("hex");
  const network = `fake-daytona-${runId}`;
  await run("docker", ["network", "create", "--internal", "--label", `${FAKE_LABEL}=${runId}`, network]);
  const sandboxes = new Map<string, FakeSandbox>();
  const snapshots = new FakeSnapshots(FAKE_LABEL, runId);
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
    // A stop ends every process, the sessions' with them; the ready mark goes so a start waits for the agent.
    for (const cmds of s.sessions.values()) for (const c of cmds.values()) c.proc.kill("SIGKILL");
    s.sessions.clear();
    void run("docker", ["exec", s.container, "rm", "-f", READY])
      .catch(() => undefined)
      .then(() => run("docker", ["stop", "--time", "2", s.container]))
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
    const image = snapshot === undefined ? options.image : (options.snapshots?.[snapshot] ?? snapshots.imageOf(snapshot));
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
    const caps = fake.unprivilegedNext ? [] : everyCapability();
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
      await boot(s);
    } catch (error) {
      if (s.desiredState !== "started") return; // deleted or stopped while it started
      s.state = "error";
      s.errorReason = (error as Error).message.split("\n")[0] ?? "docker run failed";
    }
  };

  /** Started once the agent listens; the agent's exit then ends the sandbox. */
  const boot = async (s: FakeSandbox) => {
    for (let i = 0; i < 100; i += 1) {
      const ready = await run("docker", ["exec", s.container, "test", "-e", READY]).then(
        () => true,
        () => false,
      );
      if (ready) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (s.desiredState === "started") s.state = "started";
    void run("docker", ["wait", s.container]).then(
      () => {
        if (s.desiredState === "started") {
          s.state = "error";
          s.errorReason = "the toolbox exited";
        }
      },
      () => undefined,
    );
  };
  // Daytona's start: the container again, its disk as the stop left it and no process of before.
  const start = (s: FakeSandbox) => {
    s.desiredState = "started";
    s.state = "starting";
    s.running = run("docker", ["start", s.container])
      .then(() => boot(s))
      .catch((error: Error) => {
        if (s.desiredState !== "started") return;
        s.state = "error";
        s.errorReason = error.message.split("\n")[0] ?? "docker start failed";
      });
  };

  const { toolbox, sendCut } = toolboxRoutes({ emit: (id) => emitter.emit("upload", id), onUpload: (s) => fake.onUpload?.(s) });

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
      if (p === "/api/snapshots" && method === "GET") {
        const limit = Number(url.searchParams.get("limit") ?? 10);
        const page = Number(url.searchParams.get("page") ?? 1);
        const all = [...snapshots.all.values()];
        const items = all.slice((page - 1) * limit, page * limit).map((x) => snapshots.view(x));
        return json(res, 200, { items, total: all.length, page, totalPages: Math.max(1, Math.ceil(all.length / limit)) });
      }
      const snap = /^\/api\/snapshots\/([^/]+)$/.exec(p);
      if (snap) {
        const found = snapshots.find(decodeURIComponent(snap[1]!));
        if (method === "GET") return found ? json(res, 200, snapshots.view(found)) : json(res, 404, { message: "snapshot not found" });
        const byId = snapshots.all.get(decodeURIComponent(snap[1]!));
        if (method === "DELETE") return byId ? (snapshots.delete(byId), json(res, 200, {})) : json(res, 404, { message: "snapshot not found" });
      }
      const one = /^\/api\/sandbox\/([^/]+)(\/[a-z-]+)?$/.exec(p);
      const s = one ? find(decodeURIComponent(one[1]!)) : undefined;
      if (!one) return json(res, 404, { message: `no route ${method} ${p}` });
      if (!s || s.state === "destroyed") return json(res, 404, { message: "sandbox not found" });
      const sub = one[2] ?? "";
      if (method === "GET" && sub === "") return json(res, 200, view(s));
      if (method === "DELETE" && sub === "") return (destroy(s), json(res, 200, view(s)));
      if (method === "POST" && sub === "/stop") return (stop(s), json(res, 200, {}));
      if (method === "POST" && sub === "/start") {
        if (s.state !== "stopped") return json(res, 400, { message: `a sandbox that is ${s.state} cannot be started` });
        return (start(s), json(res, 200, view(s)));
      }
      if (method === "PUT" && sub === "/labels") {
        const body = JSON.parse((await readBody(req)).toString() || "{}") as { labels?: Record<string, string> };
        if (typeof body.labels !== "object" || body.labels === null) return json(res, 400, { message: "labels is an object" });
        s.labels = body.labels;
        return json(res, 200, { labels: s.labels });
      }
      if (method === "POST" && sub === "/snapshot") {
        const body = JSON.parse((await readBody(req)).toString() || "{}") as { name?: unknown };
        if (s.state !== "started" && s.state !== "stopped") return json(res, 400, { message: `a sandbox that is ${s.state} cannot be snapshotted` });
        const refused = snapshots.take(s.container, s.id, String(body.name ?? ""));
        return refused ? json(res, refused.includes("exists") ? 409 : 400, { message: refused }) : json(res, 200, view(s));
      }
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
    snapshots,
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
      await snapshots.removeAll();
      await run("docker", ["network", "rm", network]).catch(() => undefined);
    },
  });
  return fake;
}
