// E2B at the wire: a loopback HTTP server of E2B's REST API as the real `e2b` SDK calls it (create,
// get, list by metadata, set timeout, connect (resuming a paused one), kill, pause, and snapshots'
// take, list and delete; shapes, statuses and {code, message} error
// bodies from E2B's OpenAPI, spec/openapi.yml, and the SDK's own generated paths), and a second
// listener for envd inside every sandbox as E2B's sandbox proxy serves it (envd.ts). Its sandboxes
// are the Docker-backed fake's root containers (fake-e2b-docker.ts), which the REST calls drive. The
// API key is checked on every call (X-API-Key; a wrong one is answered 401, as E2B answers it), and
// each sandbox's envd takes only the access token its create handed out. Every call is logged by
// method and path, so the served set is exactly what the path sends. Faults are queued per call: a
// status answered (with Retry-After on a 429), an answer lost after the work was done, a process
// stream cut after so many bytes of output.
import { createHmac, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { E2BSandboxInfo } from "../../../src/e2b/sdk.js";
import { E2BDockerFake, type FakeOptions } from "../fake-e2b-docker.js";
import { bodyOf } from "./connect.js";
import { Envd } from "./envd.js";

/** The envd version create reports: past every version gate of the SDK's (stdin, closeStdin, octet-stream uploads). */
export const ENVD_VERSION = "0.5.7";
/** The fake's own connection options (it checks them; the wire's caller is checked here). */
const FAKE_CONN = { apiKey: "e2b_wire", debug: false, domain: "e2b.app", apiUrl: "https://api.e2b.app" } as const;
const MAX_LIMIT = 100;
/** How long an idle connection is kept open. */
const IDLE_MS = 60_000;

/** A key of E2B's shape, made up for one server. */
export const newApiKey = (): string => `e2b_${randomBytes(20).toString("hex")}`;

export interface E2BWireOptions extends FakeOptions {
  apiKey: string;
}

/**
 * One call's fault: answered with this status and E2B's error body before the work (with
 * retryAfterS, a Retry-After header), or (lost) the work done and the connection dropped unanswered;
 * cut, for a process stream: the output cut after that many bytes of stdout.
 */
export interface Fault {
  status?: number;
  message?: string;
  retryAfterS?: number;
  lost?: boolean;
  cut?: number;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const ROUTES: [string, RegExp][] = [
  ["POST /v2/sandboxes", /^POST \/v2\/sandboxes$/],
  ["GET /v2/sandboxes", /^GET \/v2\/sandboxes$/],
  ["GET /sandboxes/{sandboxID}", /^GET \/sandboxes\/([^/]+)$/],
  ["DELETE /sandboxes/{sandboxID}", /^DELETE \/sandboxes\/([^/]+)$/],
  ["POST /sandboxes/{sandboxID}/timeout", /^POST \/sandboxes\/([^/]+)\/timeout$/],
  ["POST /v2/sandboxes/{sandboxID}/connect", /^POST \/v2\/sandboxes\/([^/]+)\/connect$/],
  ["POST /sandboxes/{sandboxID}/pause", /^POST \/sandboxes\/([^/]+)\/pause$/],
  ["POST /sandboxes/{sandboxID}/snapshots", /^POST \/sandboxes\/([^/]+)\/snapshots$/],
  ["GET /snapshots", /^GET \/snapshots$/],
  ["DELETE /templates/{templateID}", /^DELETE \/templates\/([^/]+)$/],
];

export class E2BWireServer {
  readonly fake: E2BDockerFake;
  /** Every call, REST and envd, in the order they came. */
  readonly calls: string[] = [];
  readonly envd: Envd;
  readonly #apiKey: string;
  readonly #secret = randomBytes(32);
  readonly #api: Server;
  readonly #sandboxes: Server;
  readonly #faults = new Map<string, Fault[]>();

  constructor(options: E2BWireOptions) {
    const { apiKey, ...fake } = options;
    this.#apiKey = apiKey;
    this.fake = new E2BDockerFake(fake);
    this.envd = new Envd({
      running: (id) => this.#running(id),
      accessToken: (id) => this.#accessToken(id),
      docker: (args, input) => this.fake.docker(args, input),
      take: (call) => {
        const fault = this.#take(call);
        return (
          fault && {
            status: fault.status ?? 500,
            body: { code: fault.status ?? 500, message: fault.message ?? "" },
            ...(fault.cut !== undefined ? { cut: fault.cut } : {}),
          }
        );
      },
      log: (call) => this.calls.push(call),
    });
    this.#api = createServer((req, res) => void this.#rest(req, res));
    this.#sandboxes = createServer((req, res) => void this.envd.handle(req, res).catch(() => res.destroy()));
    // E2B's edge keeps an idle connection longer than the SDK's fetch does (undici's 4 s): Node's 5 s
    // default raced the SDK's reuse of a connection on a busy host, a SendInput's "fetch failed".
    for (const server of [this.#api, this.#sandboxes]) server.keepAliveTimeout = IDLE_MS;
  }

  /** The API's address, the provider's apiUrl. */
  get apiUrl(): string {
    return `http://127.0.0.1:${(this.#api.address() as AddressInfo).port}`;
  }

  /** envd's, every sandbox's, the provider's sandboxUrl. */
  get sandboxUrl(): string {
    return `http://127.0.0.1:${(this.#sandboxes.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    for (const server of [this.#api, this.#sandboxes]) await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return this;
  }

  /** Ends every connection, both listeners and every command; the sandboxes are the fake's (remove() ends them). */
  async stop(): Promise<void> {
    this.envd.stop();
    for (const server of [this.#api, this.#sandboxes]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  /** Queues faults for a call's next requests ("POST /v2/sandboxes", "POST /process.Process/Start"), one each. */
  fail(call: string, ...faults: Fault[]): void {
    this.#faults.set(call, [...(this.#faults.get(call) ?? []), ...faults]);
  }

  /** The calls made, each once, in the order first made. */
  methods(): string[] {
    return [...new Set(this.calls)];
  }

  #take(call: string): Fault | undefined {
    return this.#faults.get(call)?.shift();
  }

  #accessToken(sandboxId: string): string {
    return createHmac("sha256", this.#secret).update(sandboxId).digest("hex");
  }

  async #running(sandboxId: string): Promise<boolean> {
    return this.fake.getInfo(sandboxId, FAKE_CONN).then(
      (info) => info.state === "running",
      () => false,
    );
  }

  async #rest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://api");
    const line = `${req.method} ${url.pathname}`;
    const route = ROUTES.find(([, pattern]) => pattern.test(line));
    const call = route?.[0] ?? line;
    this.calls.push(call);
    const answer = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      if (body === undefined) res.writeHead(status, headers).end();
      else res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
    };
    try {
      const body = await bodyOf(req);
      if (req.headers["x-api-key"] !== this.#apiKey) throw new ApiError(401, "Invalid API key, please visit https://e2b.dev/docs/api-key to get a valid one");
      if (!route) throw new ApiError(404, `${line} is not served`);
      const fault = this.#take(call);
      if (fault && !fault.lost) {
        const status = fault.status ?? 500;
        return answer(
          status,
          { code: status, message: fault.message ?? "" },
          fault.retryAfterS !== undefined ? { "retry-after": String(fault.retryAfterS) } : {},
        );
      }
      const id = decodeURIComponent(route[1].exec(line)?.[1] ?? "");
      const json = body.length ? (JSON.parse(body.toString("utf8")) as Record<string, unknown>) : {};
      const [status, out, headers] = await this.#work(call, id, json, url.searchParams);
      // A lost answer: the work is done, and the connection drops before a byte of it.
      if (fault?.lost) return void res.socket?.destroy();
      answer(status, out, headers);
    } catch (error) {
      const status = error instanceof ApiError ? error.status : 500;
      answer(status, { code: status, message: (error as Error).message });
    }
  }

  async #work(call: string, id: string, body: Record<string, unknown>, query: URLSearchParams): Promise<[number, unknown?, Record<string, string>?]> {
    const missing = (error: unknown): never => {
      const name = (error as Error).name;
      if (name === "SandboxNotFoundError") throw new ApiError(404, `sandbox "${id}" doesn't exist or you don't have access to it`);
      throw error;
    };
    switch (call) {
      case "POST /v2/sandboxes": {
        const template = body.templateID;
        if (typeof template !== "string" || !template) throw new ApiError(400, "templateID is required");
        const network = (body.network ?? {}) as { allowPublicTraffic?: boolean };
        const autoResume = body.autoResume as { enabled?: boolean } | undefined;
        const sandbox = await this.fake
          .create(template, {
            ...FAKE_CONN,
            metadata: (body.metadata ?? {}) as Record<string, string>,
            timeoutMs: Number(body.timeout ?? 15) * 1000,
            ...(typeof body.allow_internet_access === "boolean" ? { allowInternetAccess: body.allow_internet_access } : {}),
            ...(typeof network.allowPublicTraffic === "boolean" ? { network: { allowPublicTraffic: network.allowPublicTraffic } } : {}),
            lifecycle: { onTimeout: body.autoPause === true ? "pause" : "kill", autoResume: autoResume?.enabled === true },
          })
          .catch((error: Error) => {
            if (error.name === "NotFoundError") throw new ApiError(400, `template '${template}' not found`);
            throw error;
          });
        return [201, this.#sandbox(await this.fake.getInfo(sandbox.sandboxId, FAKE_CONN))];
      }
      case "GET /v2/sandboxes": {
        const metadata = Object.fromEntries(
          [...new URLSearchParams(query.get("metadata") ?? "")].map(([k, v]) => [decodeURIComponent(k), decodeURIComponent(v)]),
        );
        const states = (query.get("state") ?? "running,paused").split(",");
        const pages = this.fake.list({ ...FAKE_CONN, query: { metadata, state: states as ("running" | "paused")[] }, limit: Number.MAX_SAFE_INTEGER });
        const all = (await pages.nextItems(FAKE_CONN)).sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime());
        const [page, headers] = this.#page(all, query);
        return [200, page.map((info) => this.#listed(info)), headers];
      }
      case "GET /sandboxes/{sandboxID}":
        return [200, this.#detail(await this.fake.getInfo(id, FAKE_CONN).catch(missing))];
      case "DELETE /sandboxes/{sandboxID}":
        if (!(await this.fake.kill(id, FAKE_CONN))) missing(Object.assign(new Error(), { name: "SandboxNotFoundError" }));
        return [204];
      case "POST /sandboxes/{sandboxID}/timeout":
        if (!Number.isInteger(body.timeout) || (body.timeout as number) < 0) throw new ApiError(400, "timeout is a whole number of seconds");
        await this.fake.setTimeout(id, (body.timeout as number) * 1000, FAKE_CONN).catch(missing);
        return [204];
      case "POST /v2/sandboxes/{sandboxID}/connect": {
        const before = await this.fake.getInfo(id, FAKE_CONN).catch(missing);
        await this.fake.connect(id, { ...FAKE_CONN, timeoutMs: Number(body.timeout ?? 300) * 1000 });
        return [before.state === "paused" ? 201 : 200, this.#sandbox(before)];
      }
      case "POST /sandboxes/{sandboxID}/pause":
        // A pause that keeps the disk alone would need a reboot on resume: the engine's freeze keeps memory only.
        if (body.memory === false) throw new ApiError(400, "the wire's pause keeps memory: memory false is not served");
        if (!(await this.fake.pause(id, FAKE_CONN).catch(missing))) throw new ApiError(409, `sandbox "${id}" is already paused`);
        return [204];
      case "POST /sandboxes/{sandboxID}/snapshots": {
        const name = typeof body.name === "string" ? body.name : undefined;
        const taken = await this.fake.createSnapshot(id, { ...FAKE_CONN, ...(name ? { name } : {}) }).catch(missing);
        return [201, { snapshotID: taken.snapshotId, names: taken.names }];
      }
      case "GET /snapshots": {
        const all = await this.fake
          .listSnapshots({ ...FAKE_CONN, sandboxId: query.get("sandboxID") ?? undefined, name: query.get("name") ?? undefined, limit: Number.MAX_SAFE_INTEGER })
          .nextItems(FAKE_CONN);
        const [page, headers] = this.#page(all, query);
        return [200, page.map((x) => ({ snapshotID: x.snapshotId, names: x.names })), headers];
      }
      case "DELETE /templates/{templateID}":
        if (!(await this.fake.deleteSnapshot(id, FAKE_CONN))) throw new ApiError(404, `template '${id}' not found`);
        return [204];
    }
    throw new ApiError(404, `${call} is not served`);
  }

  /** One page of a listing by its limit and nextToken, and the next token's header when more follow. */
  #page<T>(all: T[], query: URLSearchParams): [T[], Record<string, string>] {
    const limit = Math.min(Number(query.get("limit") ?? MAX_LIMIT), MAX_LIMIT);
    if (!Number.isInteger(limit) || limit < 1) throw new ApiError(400, `limit ${query.get("limit")} is not from 1 to ${MAX_LIMIT}`);
    const from = query.get("nextToken") ? Number(Buffer.from(query.get("nextToken")!, "base64url").toString("utf8")) : 0;
    const more = from + limit < all.length;
    return [all.slice(from, from + limit), more ? { "x-next-token": Buffer.from(String(from + limit)).toString("base64url") } : {}];
  }

  /** Sandbox: what create and connect answer. */
  #sandbox(info: E2BSandboxInfo) {
    return {
      templateID: info.templateId,
      sandboxID: info.sandboxId,
      ...(info.name ? { alias: info.name } : {}),
      clientID: "wire",
      envdVersion: ENVD_VERSION,
      envdAccessToken: this.#accessToken(info.sandboxId),
      trafficAccessToken: null,
      domain: null,
    };
  }

  /** ListedSandbox: a listing's item. */
  #listed(info: E2BSandboxInfo) {
    return {
      templateID: info.templateId,
      ...(info.name ? { alias: info.name } : {}),
      sandboxID: info.sandboxId,
      clientID: "wire",
      startedAt: info.startedAt.toISOString(),
      endAt: info.endAt.toISOString(),
      cpuCount: info.cpuCount,
      memoryMB: info.memoryMB,
      diskSizeMB: 512,
      metadata: info.metadata,
      state: info.state,
      envdVersion: ENVD_VERSION,
      volumeMounts: [],
    };
  }

  /** SandboxDetail: what get answers. */
  #detail(info: E2BSandboxInfo) {
    return {
      ...this.#listed(info),
      envdAccessToken: this.#accessToken(info.sandboxId),
      allowInternetAccess: info.allowInternetAccess ?? null,
      domain: null,
      network: info.network,
      lifecycle: info.lifecycle,
    };
  }
}
