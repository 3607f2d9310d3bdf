// Modal at the wire: a loopback gRPC server speaking the part of Modal's control plane and task
// command router that the real `modal` SDK reaches on the provider's path, so the SDK's own code
// (its serialising, auth, retries, stdio streams and error mapping) runs in the tests. Its
// sandboxes are the Docker-backed fake's root containers. A token is checked on every call (a
// wrong one is refused UNAUTHENTICATED, as Modal refuses it), the command router takes the JWT the
// control plane handed out, and every call is logged by method so the served set is exactly what
// the path sends (a filesystem snapshot's among it: TaskSnapshotFilesystem, ImageFromId, ImageDelete). Faults are queued per method: an error answered, an answer lost after the work
// was done, an exec's stdout cut mid-stream.
import * as grpc from "@grpc/grpc-js";
import { randomBytes } from "node:crypto";
import type { ModalImage } from "../../../src/modal/sdk.js";
import { ModalDockerFake, type FakeOptions } from "../fake-modal-docker.js";
import { Exec } from "./execs.js";
import { CONTROL_PLANE, messageType, NETWORK_BLOCKED, retryAfter, ROUTER_SERVICE, RPCS, STATUS } from "./proto.js";

export interface WireToken {
  tokenId: string;
  tokenSecret: string;
}

/** A token of Modal's shape (ak- and as-), made up for one server. */
export const newToken = (): WireToken => ({ tokenId: `ak-${randomBytes(8).toString("hex")}`, tokenSecret: `as-${randomBytes(16).toString("hex")}` });

export interface ModalWireOptions extends Omit<FakeOptions, "v2Ids"> {
  token: WireToken;
}

/**
 * One call's fault: answered with this status, before the work or (afterWork) with the work done
 * and its answer lost; with retryAfterSecs, the status carries Modal's retry policy (its throttle).
 */
export interface Fault {
  code: grpc.status;
  details: string;
  afterWork?: boolean;
  retryAfterSecs?: number;
}

/** A fault as the status grpc-js answers with. */
function answerOf(fault: Fault): Partial<grpc.StatusObject> {
  if (fault.retryAfterSecs === undefined) return { code: fault.code, details: fault.details };
  const metadata = new grpc.Metadata();
  metadata.set("grpc-status-details-bin", retryAfter(fault.code, fault.details, fault.retryAfterSecs));
  return { code: fault.code, details: fault.details, metadata };
}

/** A cut of exec stdout streams: the stream that carries the bytes past `after` (counted from the cut's queuing) ends with this status there. */
interface Cut extends Fault {
  after: number;
  sent: number;
}

type Request = Record<string, unknown>;
/** A method's work: its answer (unary), or what it wrote to the call (streaming). */
type Handler = (request: Request, call: grpc.ServerWritableStream<Request, object>, fault: Fault | undefined) => Promise<object | void>;

class RpcError extends Error {
  constructor(
    readonly code: grpc.status,
    details: string,
  ) {
    super(details);
  }
}

/** The fake's SDK-shaped errors as the gRPC statuses Modal answers with. */
function statusOf(error: unknown): { code: grpc.status; details: string } {
  if (error instanceof RpcError) return { code: error.code, details: error.message };
  const message = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error ? error.name : "";
  if (name === "NotFoundError") return { code: grpc.status.NOT_FOUND, details: message };
  if (name === "InvalidError") return { code: grpc.status.INVALID_ARGUMENT, details: message };
  if (name === "ConflictError") return { code: grpc.status.FAILED_PRECONDITION, details: message };
  return { code: grpc.status.INTERNAL, details: message };
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
/** A JWT of the shape the SDK reads (it decodes exp only; nothing checks the signature). */
function jwt(subject: string): string {
  return `${b64url({ alg: "HS256", typ: "JWT" })}.${b64url({ sub: subject, exp: Math.floor(Date.now() / 1000) + 3600 })}.${randomBytes(16).toString("base64url")}`;
}

const taskOf = (sandboxId: string) => `ta-${sandboxId.slice(3)}`;
const sandboxOfTask = (taskId: string) => `sb-${taskId.slice(3)}`;

export class ModalWireServer {
  readonly fake: ModalDockerFake;
  /** Every call's method, in the order they came. */
  readonly calls: string[] = [];
  port = 0;
  readonly #token: WireToken;
  readonly #server = new grpc.Server();
  readonly #authToken = jwt("control-plane");
  readonly #routerJwt = jwt("task-command-router");
  readonly #faults = new Map<string, Fault[]>();
  readonly #cuts: Cut[] = [];
  readonly #images = new Map<string, ModalImage>();
  readonly #created = new Map<string, number>();
  readonly #execs = new Map<string, Exec>();
  /** Answers given, by the SDK's x-idempotency-key: a retried create is answered as the first was. */
  readonly #answered = new Map<string, object>();

  constructor(options: ModalWireOptions) {
    const { token, ...fake } = options;
    this.#token = token;
    this.fake = new ModalDockerFake({ ...fake, v2Ids: true });
    this.#serve(CONTROL_PLANE, this.#controlPlane());
    this.#serve(ROUTER_SERVICE, this.#router());
  }

  /** The address the SDK takes as serverUrl: plaintext on the loopback, as the SDK dials a localhost server. */
  get serverUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.port = await new Promise<number>((resolve, reject) =>
      this.#server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
    );
    return this;
  }

  /** Ends every call and the server; the sandboxes are the fake's (remove() ends them). */
  async stop(): Promise<void> {
    this.#server.forceShutdown();
  }

  /** Queues faults for a method's next calls, one each. */
  fail(method: string, ...faults: Fault[]): void {
    this.#faults.set(method, [...(this.#faults.get(method) ?? []), ...faults]);
  }

  /** Cuts the exec stdout streams live or to come, one cut each: each ends the stream that carries its byte `after`, with its status. */
  cut(after: number, fault: Fault, times = 1): void {
    for (let n = 0; n < times; n++) this.#cuts.push({ ...fault, after, sent: 0 });
  }

  /** How many queued cuts have not yet cut a stream. */
  pendingCuts(): number {
    return this.#cuts.length;
  }

  /** The methods called, each once, in the order first called. */
  methods(): string[] {
    return [...new Set(this.calls)];
  }

  #take(method: string): Fault | undefined {
    return this.#faults.get(method)?.shift();
  }

  /** Why a call's credentials are refused, or undefined: the token on the control plane, the router's JWT on the router. */
  #refused(service: string, method: string, metadata: grpc.Metadata): string | undefined {
    const one = (key: string) => String(metadata.get(key)[0] ?? "");
    if (service === ROUTER_SERVICE) return one("authorization") === `Bearer ${this.#routerJwt}` ? undefined : "invalid or expired command router token";
    if (one("x-modal-token-id") !== this.#token.tokenId || one("x-modal-token-secret") !== this.#token.tokenSecret)
      return "Token is invalid or has been revoked";
    if (method !== "AuthTokenGet" && one("x-modal-auth-token") !== this.#authToken) return "auth token is missing or invalid";
    return undefined;
  }

  #serve(service: typeof CONTROL_PLANE | typeof ROUTER_SERVICE, handlers: Record<string, Handler>): void {
    const definition: Record<string, grpc.MethodDefinition<Request, object>> = {};
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const [method, [requestName, responseName, streams]] of Object.entries(RPCS[service]) as [string, readonly string[]][]) {
      const Req = messageType(service, requestName!);
      const Res = messageType(service, responseName!);
      const responseStream = streams === "stream";
      definition[method] = {
        path: `/${service}/${method}`,
        requestStream: false,
        responseStream,
        requestSerialize: (m: Request) => Buffer.from(Req.encode(Req.fromObject(m)).finish()),
        requestDeserialize: (b: Buffer) => Req.toObject(Req.decode(b), { longs: Number, defaults: true }),
        responseSerialize: (m: object) => Buffer.from(Res.encode(Res.fromObject(m)).finish()),
        responseDeserialize: (b: Buffer) => Res.toObject(Res.decode(b), { longs: Number, defaults: true }),
        originalName: method,
      };
      const handler = handlers[method]!;
      implementation[method] = responseStream ? this.#streaming(service, method, handler) : this.#unary(service, method, handler);
    }
    this.#server.addService(definition, implementation);
  }

  #unary(service: string, method: string, handler: Handler): grpc.handleUnaryCall<Request, object> {
    return (call, callback) => {
      this.calls.push(method);
      const refused = this.#refused(service, method, call.metadata);
      if (refused) return callback({ code: grpc.status.UNAUTHENTICATED, details: refused });
      const fault = this.#take(method);
      if (fault && !fault.afterWork) return callback(answerOf(fault));
      const key = String(call.metadata.get("x-idempotency-key")[0] ?? "");
      const earlier = key ? this.#answered.get(`${method}:${key}`) : undefined;
      const answer = earlier ? Promise.resolve(earlier) : handler(call.request, call as unknown as grpc.ServerWritableStream<Request, object>, undefined);
      answer.then(
        (given) => {
          const response = given ?? {};
          if (key) this.#answered.set(`${method}:${key}`, response);
          if (fault) callback(answerOf(fault));
          else callback(null, response);
        },
        (error: unknown) => callback(statusOf(error)),
      );
    };
  }

  #streaming(service: string, method: string, handler: Handler): grpc.handleServerStreamingCall<Request, object> {
    return (call) => {
      this.calls.push(method);
      const refused = this.#refused(service, method, call.metadata);
      if (refused) return call.emit("error", { code: grpc.status.UNAUTHENTICATED, details: refused });
      const fault = this.#take(method);
      if (fault) return call.emit("error", { code: fault.code, details: fault.details });
      handler(call.request, call, undefined).then(
        () => call.end(),
        (error: unknown) => call.emit("error", statusOf(error)),
      );
    };
  }

  #access() {
    return { jwt: this.#routerJwt, url: `https://127.0.0.1:${this.port}` };
  }

  async #sandbox(sandboxId: unknown) {
    const id = String(sandboxId ?? "");
    if (!this.#created.has(id) && !/^sb-[0-9A-Z]{26}$/.test(id)) throw new RpcError(grpc.status.NOT_FOUND, `Sandbox ${id} not found`);
    return this.fake.sandboxes.fromId(id);
  }

  /** A finished sandbox's result as Modal gives it: terminated (137), else its exit code. */
  static #result(code: number) {
    if (code === 137) return { status: STATUS.terminated, exitcode: code };
    return { status: code === 0 ? STATUS.success : STATUS.failure, exitcode: code };
  }

  #controlPlane(): Record<string, Handler> {
    return {
      AuthTokenGet: async () => ({ token: this.#authToken }),
      AppGetOrCreate: async (r) => ({ appId: (await this.fake.apps.fromName(String(r.appName))).appId }),
      EnvironmentGetOrCreate: async (r) => ({
        environmentId: "en-wire",
        metadata: { name: String(r.deploymentName || "main"), settings: { imageBuilderVersion: "2025.06" } },
      }),
      ImageGetOrCreate: async (r) => {
        const image = (r.image ?? {}) as { dockerfileCommands?: string[]; baseImages?: { imageId: string; dockerTag: string }[] };
        const [from, ...commands] = image.dockerfileCommands ?? [];
        const tag = /^FROM (\S+)$/.exec(from ?? "")?.[1];
        if (!tag) throw new RpcError(grpc.status.INVALID_ARGUMENT, "an image's Dockerfile starts FROM");
        const base = image.baseImages?.find((b) => b.dockerTag === tag);
        const parent = base ? this.#images.get(base.imageId) : this.fake.images.fromRegistry(tag);
        if (!parent) throw new RpcError(grpc.status.NOT_FOUND, `Image ${base!.imageId} not found`);
        const built = commands.length ? parent.dockerfileCommands(commands) : parent;
        this.#images.set(built.imageId, built);
        return { imageId: built.imageId, result: { status: STATUS.success } };
      },
      ImageFromId: async (r) => {
        const id = String(r.imageId);
        const image = this.#images.get(id) ?? (await this.fake.images.fromId(id));
        this.#images.set(id, image);
        return { imageId: id };
      },
      ImageDelete: async (r) => {
        await this.fake.images.delete(String(r.imageId));
        this.#images.delete(String(r.imageId));
        return {};
      },
      SandboxCreateV2: async (r) => {
        const d = (r.definition ?? {}) as Record<string, unknown> & { resources?: Record<string, number>; networkAccess?: { networkAccessType?: number } };
        const image = this.#images.get(String(d.imageId));
        if (!image) throw new RpcError(grpc.status.NOT_FOUND, `Image ${String(d.imageId)} not found`);
        const res = d.resources ?? {};
        const args = (d.entrypointArgs as string[] | undefined) ?? [];
        const sandbox = await this.fake.sandboxes.create({ appId: String(r.appId) }, image, {
          ...(args.length ? { command: args } : {}),
          timeoutMs: Number(d.timeoutSecs || 300) * 1000,
          ...(d.workdir ? { workdir: String(d.workdir) } : {}),
          blockNetwork: d.blockNetwork === true || d.networkAccess?.networkAccessType === NETWORK_BLOCKED,
          tags: Object.fromEntries(((r.tags as { tagName: string; tagValue: string }[]) ?? []).map((t) => [t.tagName, t.tagValue])),
          ...(res.milliCpu ? { cpu: res.milliCpu / 1000 } : {}),
          ...(res.milliCpuMax ? { cpuLimit: res.milliCpuMax / 1000 } : {}),
          ...(res.memoryMb ? { memoryMiB: res.memoryMb } : {}),
          ...(res.memoryMbMax ? { memoryLimitMiB: res.memoryMbMax } : {}),
        });
        this.#created.set(sandbox.sandboxId, Date.now() / 1000);
        return { sandboxId: sandbox.sandboxId, taskId: taskOf(sandbox.sandboxId), commandRouterAccess: this.#access() };
      },
      SandboxGetCommandRouterAccess: async (r) => {
        await (await this.#sandbox(r.sandboxId ?? sandboxOfTask(String(r.taskId)))).poll();
        return this.#access();
      },
      SandboxGetTaskIdV2: async (r) => {
        const code = await (await this.#sandbox(r.sandboxId)).poll();
        return code === null ? { taskId: taskOf(String(r.sandboxId)) } : { taskResult: ModalWireServer.#result(code) };
      },
      SandboxListV2: async (r) => {
        // One page holds every match; the SDK asks again before the last one's time and is answered none.
        if (Number(r.beforeTimestamp) > 0) return { sandboxes: [] };
        const tags = Object.fromEntries(((r.tags as { tagName: string; tagValue: string }[]) ?? []).map((t) => [t.tagName, t.tagValue]));
        const sandboxes = [];
        for await (const sandbox of this.fake.sandboxes.list({ ...(r.appId ? { appId: String(r.appId) } : {}), tags }))
          sandboxes.push({ id: sandbox.sandboxId, createdAt: this.#created.get(sandbox.sandboxId) ?? Date.now() / 1000, appId: String(r.appId) });
        return { sandboxes };
      },
      SandboxTagsGetV2: async (r) => {
        const tags = await (await this.#sandbox(r.sandboxId)).getTags();
        return { tags: Object.entries(tags).map(([tagName, tagValue]) => ({ tagName, tagValue })) };
      },
      SandboxTerminateV2: async (r) => {
        await (await this.#sandbox(r.sandboxId)).terminate();
        return {};
      },
      SandboxWaitV2: async (r) => {
        const sandbox = await this.#sandbox(r.sandboxId);
        const until = Date.now() + Number(r.timeout) * 1000;
        for (;;) {
          const code = await sandbox.poll();
          if (code !== null) return { result: ModalWireServer.#result(code) };
          if (Date.now() + 250 > until) return {};
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      },
    };
  }

  #exec(execId: unknown): Exec {
    const exec = this.#execs.get(String(execId));
    if (!exec) throw new RpcError(grpc.status.NOT_FOUND, `exec ${String(execId)} not found`);
    return exec;
  }

  #router(): Record<string, Handler> {
    return {
      TaskExecStart: async (r) => {
        const execId = String(r.execId);
        if (this.#execs.has(execId)) return {};
        if (r.workdir || Object.keys((r.env as object) ?? {}).length || r.timeoutSecs)
          throw new RpcError(grpc.status.UNIMPLEMENTED, "the wire fake serves exec without workdir, env or timeout");
        const sandbox = await this.#sandbox(sandboxOfTask(String(r.taskId)));
        this.#execs.set(execId, new Exec(await sandbox.exec(r.commandArgs as string[], { mode: "binary" })));
        return {};
      },
      TaskExecStdioRead: async (r, call) => {
        const exec = this.#exec(r.execId);
        const stdout = Number(r.fileDescriptor) !== 1;
        for await (const data of (stdout ? exec.stdout : exec.stderr).from(Number(r.offset), () => call.cancelled)) {
          const cut = stdout ? this.#cuts[0] : undefined;
          if (cut && cut.sent + data.length > cut.after) {
            this.#cuts.shift();
            const part = data.subarray(0, cut.after - cut.sent);
            if (part.length) call.write({ data: part });
            throw new RpcError(cut.code, cut.details);
          }
          if (cut) cut.sent += data.length;
          call.write({ data });
        }
      },
      TaskExecStdinWrite: async (r) => {
        const wrote = await this.#exec(r.execId).write(Number(r.offset), Buffer.from(r.data as Uint8Array), r.eof === true);
        if (wrote === "gap") throw new RpcError(grpc.status.OUT_OF_RANGE, `stdin offset ${String(r.offset)} is past the bytes written`);
        return {};
      },
      TaskSnapshotFilesystem: async (r) => {
        const sandbox = await this.#sandbox(sandboxOfTask(String(r.taskId)));
        const image = (await sandbox.snapshotFilesystem()) as ModalImage;
        this.#images.set(image.imageId, image);
        return { imageId: image.imageId };
      },
      TaskExecWait: async (r) => {
        const exec = this.#exec(r.execId);
        await exec.exited;
        return { code: exec.code };
      },
    };
  }
}
