// The plugin's gRPC server: the engine's ResourceProvider protocol over @grpc/grpc-js and the
// protocol's own messages (@pulumi/pulumi's proto), loading nothing else before it prints its port.
// The SDK's server (@pulumi/pulumi/provider) loads the whole Pulumi runtime first, which was most of
// a plugin's start (the YAML host starts one just to read the schema on every preview); here the
// provider itself is loaded at the first call that needs it, and the SDK's server only for a
// construct or a call (a component's children are registered through the runtime's monitor).
// Besides, it says what the SDK's server leaves out of the protocol, so the engine prints what the
// plugin found:
// - diff: the SDK sends changes and replaces only, so the engine prints a diff of the inputs,
//   which never names a field that is not an input (a stopped computer's `state`). The plugin's
//   changed fields and their kinds go as the response's diffs and detailed diff.
// - read: the SDK hands read the stored outputs alone; the stored inputs go with them, so read
//   answers in the shape that was declared (a field left to the provider stays left out). An import
//   sends neither: both are then empty.
// - preview: the SDK says nothing of previews, so the engine takes a previewed create's or
//   update's outputs to be its inputs, and an output of another name (a Mount's `mount`) is unknown
//   to everything that takes it. The plugin says it previews: a create or update with the preview
//   flag is answered by the resource's preview (the outputs the step will make), never run.
import { createRequire } from "node:module";
import type * as Grpc from "@grpc/grpc-js";
import type { Provider } from "@pulumi/pulumi/provider/index.js";
import type * as ProviderGrpc from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import type * as ProviderProto from "@pulumi/pulumi/proto/provider_pb.js";
import type * as PluginProto from "@pulumi/pulumi/proto/plugin_pb.js";
import type * as EmptyProto from "google-protobuf/google/protobuf/empty_pb.js";
import type * as StructProto from "google-protobuf/google/protobuf/struct_pb.js";
import type { Props } from "./secrets.js";

// Required, not imported: an ES import of a CommonJS module first scans its source for its
// exports, which for the protocol's 430 KB of messages doubled the plugin's start.
const require = createRequire(import.meta.url);
const grpc = require("@grpc/grpc-js") as typeof Grpc;
const providerGrpc = require("@pulumi/pulumi/proto/provider_grpc_pb.js") as typeof ProviderGrpc;
const providerProto = require("@pulumi/pulumi/proto/provider_pb.js") as typeof ProviderProto;
const pluginProto = require("@pulumi/pulumi/proto/plugin_pb.js") as typeof PluginProto;
const emptyProto = require("google-protobuf/google/protobuf/empty_pb.js") as typeof EmptyProto;
const structProto = require("google-protobuf/google/protobuf/struct_pb.js") as typeof StructProto;

/** How long the plugin's end may take to close what it keeps open, inside the engine's 5 s before its kill. */
const SHUTDOWN_MS = 4_000;

/** A changed field's kind, as the engine's PropertyDiff names it. */
export type FieldChange = "add" | "add-replace" | "delete" | "delete-replace" | "update" | "update-replace";

/** What a diff answers: the SDK's result, with each changed field and how it changes. */
export interface FieldDiff {
  /** Undefined: the engine diffs the inputs itself. */
  changes?: boolean;
  replaces?: string[];
  deleteBeforeReplace?: boolean;
  /** Every changed field by name, shown in full under `--diff`. */
  detailedDiff?: Record<string, FieldChange>;
  /** The fields the plan's line names (`[diff: ...]`): detailedDiff's unless given, which may show more under `--diff` (the drift's sentences). */
  diffs?: string[];
}

/** The plugin's provider: the SDK's, with a diff's changed fields, read given the stored inputs too, and a previewed step's outputs. */
export type ServedProvider = Omit<Provider, "diff" | "read"> & {
  diff?(id: string, urn: string, olds: Props, news: Props): Promise<FieldDiff>;
  read?(id: string, urn: string, props: Props, inputs?: Props): Promise<{ id?: string; props?: Props; inputs?: Props }>;
  /** The outputs a create (olds undefined) or an update (olds: the stored outputs) of these inputs will make; unknown ones as the engine's unknown. */
  preview?(urn: string, news: Props, olds?: Props): Promise<Props>;
  /** The plugin is ending: what it keeps open is closed. */
  shutdown?(): Promise<void>;
};

type Callback = (error: unknown, response?: unknown, trailer?: Grpc.Metadata) => void;
/** The protocol's methods, each answered through its callback. */
type Handlers = {
  [K in keyof ProviderGrpc.IResourceProviderServer as string extends K ? never : K]?: (
    call: Parameters<ProviderGrpc.IResourceProviderServer[K]>[0],
    callback: Callback,
  ) => void;
};

/** The response a FieldDiff makes. */
export function diffResponse(result: FieldDiff): ProviderProto.DiffResponse {
  const { DiffChanges } = providerProto.DiffResponse;
  const resp = new providerProto.DiffResponse();
  resp.setChanges(result.changes === undefined ? DiffChanges.DIFF_UNKNOWN : result.changes ? DiffChanges.DIFF_SOME : DiffChanges.DIFF_NONE);
  if (result.replaces?.length) resp.setReplacesList(result.replaces);
  if (result.deleteBeforeReplace) resp.setDeletebeforereplace(true);
  if (result.detailedDiff) {
    resp.setDiffsList(result.diffs ?? Object.keys(result.detailedDiff));
    resp.setHasdetaileddiff(true);
    const map = resp.getDetaileddiffMap();
    for (const [field, kind] of Object.entries(result.detailedDiff)) {
      const d = new providerProto.PropertyDiff();
      d.setKind(providerProto.PropertyDiff.Kind[kind.toUpperCase().replace("-", "_") as keyof typeof providerProto.PropertyDiff.Kind]);
      map.set(field, d);
    }
  }
  return resp;
}

const props = (s: StructProto.Struct | undefined): Props => (s?.toJavaScript() as Props | undefined) ?? {};
const struct = (v: Props | undefined) => structProto.Struct.fromJavaScript((v ?? {}) as Record<string, StructProto.JavaScriptValue>);
/** A failed check, diff, read, delete or invoke: said on the plugin's stderr as the SDK's server says it, then answered. */
const said = (e: unknown) => {
  console.error(`${e}: ${(e as Error)?.stack}`);
  return e;
};
/** A failed create or update, answered as the SDK's server answers it (UNKNOWN, the error's message). */
const failed = (e: unknown) => ({ code: grpc.status.UNKNOWN, message: (e as Error)?.message, metadata: new grpc.Metadata() });

/** Runs a call's work and answers it: its response, or its error as onError makes it. */
function answer<T>(callback: Callback, work: () => Promise<T>, onError: (e: unknown) => unknown = said): void {
  work().then(
    (resp) => callback(null, resp),
    (e: unknown) => {
      const error = onError(e);
      callback(error, null, (error as { metadata?: Grpc.Metadata }).metadata);
    },
  );
}

export interface ServeOptions {
  version: string;
  schema: string;
  /** The plugin's arguments from the engine (its address among them). */
  args: string[];
  /** The provider, made at the first call that needs it. */
  provider: () => Promise<ServedProvider>;
}

/** The SDK's own server object for a provider (construct and call); loading it loads the Pulumi runtime. */
async function sdkServer(provider: ServedProvider, args: string[]): Promise<Record<string, (call: unknown, callback: Callback) => unknown>> {
  const { main } = await import("@pulumi/pulumi/provider/index.js");
  // The SDK makes its server object inside main(), which serves it: it is taken where main adds it
  // to its gRPC server, and main stops there, so nothing more is served or printed.
  const taken = Symbol("taken");
  let server: Record<string, (call: unknown, callback: Callback) => unknown> | undefined;
  const addService = grpc.Server.prototype.addService;
  grpc.Server.prototype.addService = function (_service, impl) {
    server = impl as typeof server;
    throw taken;
  };
  try {
    await main(provider as Provider, args);
  } catch (e) {
    if (e !== taken) throw e;
  } finally {
    grpc.Server.prototype.addService = addService;
  }
  if (!server) throw new Error("the Pulumi SDK's provider server did not start");
  return server;
}

/** Serves the provider on a port of 127.0.0.1 and prints the port (the engine reads it from the first line). */
export async function serve(opts: ServeOptions): Promise<void> {
  let made: Promise<ServedProvider> | undefined;
  const provider = () => (made ??= opts.provider());
  let sdk: ReturnType<typeof sdkServer> | undefined;
  let args = opts.args;
  // construct and call: the SDK's server, with the runtime configured from the request.
  const bySdk =
    (method: "construct" | "call") =>
    (call: unknown, callback: Callback): void => {
      sdk ??= provider().then((p) => sdkServer(p, args));
      sdk.then(
        (server) => server[method]!(call, callback),
        (e: unknown) => callback(e),
      );
    };
  // A create or an update: previewed by the resource, else run.
  const step =
    <Req extends ProviderProto.CreateRequest | ProviderProto.UpdateRequest, Res extends ProviderProto.CreateResponse | ProviderProto.UpdateResponse>(
      Response: new () => Res,
      run: (p: ServedProvider, r: Req, resp: Res) => Promise<void>,
    ) =>
    (call: Grpc.ServerUnaryCall<Req, Res>, callback: Callback) =>
      answer(
        callback,
        async () => {
          const r = call.request;
          const p = await provider();
          const resp = new Response();
          if (!r.getPreview()) {
            await run(p, r, resp);
            return resp;
          }
          const news = props(r instanceof providerProto.CreateRequest ? r.getProperties() : r.getNews());
          const olds = r instanceof providerProto.UpdateRequest ? props(r.getOlds()) : undefined;
          resp.setProperties(struct(p.preview ? await p.preview(r.getUrn(), news, olds) : news));
          return resp;
        },
        failed,
      );
  const unimplemented = (name: string) => (_call: unknown, callback: Callback) =>
    callback({ code: grpc.status.UNIMPLEMENTED, details: `Not yet implemented: ${name}` });

  const server: Handlers = {
    getPluginInfo: (_call, callback) => callback(null, new pluginProto.PluginInfo().setVersion(opts.version)),
    getSchema: (call, callback) => {
      if (call.request.getVersion() !== 0) return callback(new Error(`unsupported schema version ${call.request.getVersion()}`), null);
      callback(null, new providerProto.GetSchemaResponse().setSchema(opts.schema));
    },
    checkConfig: unimplemented("CheckConfig"),
    diffConfig: unimplemented("DiffConfig"),
    configure: (_call, callback) =>
      callback(null, new providerProto.ConfigureResponse().setAcceptsecrets(true).setAcceptresources(true).setAcceptoutputs(true).setSupportspreview(true)),
    parameterize: (_call, callback) => callback(new Error("parameterizeArgs not implemented"), null),
    attach: (call, callback) => {
      args = [call.request.getAddress()];
      callback(null, new emptyProto.Empty());
    },
    cancel: (_call, callback) =>
      answer(
        callback,
        async () => {
          // Nothing to cancel before the provider is made.
          if (made) await (await made).cancel?.();
          return new emptyProto.Empty();
        },
        (e) => e,
      ),
    check: (call, callback) =>
      answer(callback, async () => {
        const r = call.request;
        const news = props(r.getNews());
        const result = await (await provider()).check?.(r.getUrn(), props(r.getOlds()), news);
        const resp = new providerProto.CheckResponse().setInputs(struct(result?.inputs ?? news));
        if (result?.failures?.length) {
          resp.setFailuresList(result.failures.map((f) => new providerProto.CheckFailure().setProperty(f.property).setReason(f.reason)));
        }
        return resp;
      }),
    diff: (call, callback) =>
      answer(
        callback,
        async () => {
          const r = call.request;
          const p = await provider();
          return diffResponse(p.diff ? await p.diff(r.getId(), r.getUrn(), props(r.getOlds()), props(r.getNews())) : {});
        },
        (e) => e,
      ),
    create: step(providerProto.CreateResponse, async (p, r: ProviderProto.CreateRequest, resp) => {
      if (!p.create) throw new Error(`unknown resource type ${r.getUrn()}`);
      const result = await p.create(r.getUrn(), props(r.getProperties()));
      resp.setId(result.id).setProperties(struct(result.outs));
    }),
    update: step(providerProto.UpdateResponse, async (p, r: ProviderProto.UpdateRequest, resp) => {
      const result = (await p.update?.(r.getId(), r.getUrn(), props(r.getOlds()), props(r.getNews()))) ?? {};
      resp.setProperties(struct(result.outs));
    }),
    read: (call, callback) =>
      answer(
        callback,
        async () => {
          const r = call.request;
          const p = await provider();
          const inputs = r.getInputs();
          const result = p.read ? await p.read(r.getId(), r.getUrn(), props(r.getProperties()), inputs && props(inputs)) : {};
          const resp = new providerProto.ReadResponse().setId(result.id ?? "").setProperties(struct(result.props));
          if (result.inputs !== undefined) resp.setInputs(struct(result.inputs));
          return resp;
        },
        (e) => e,
      ),
    delete: (call, callback) =>
      answer(callback, async () => {
        const r = call.request;
        await (await provider()).delete?.(r.getId(), r.getUrn(), props(r.getProperties()));
        return new emptyProto.Empty();
      }),
    invoke: (call, callback) =>
      answer(callback, async () => {
        const r = call.request;
        const p = await provider();
        if (!p.invoke) throw new Error(`unknown function ${r.getTok()}`);
        const result = await p.invoke(r.getTok(), props(r.getArgs()));
        const resp = new providerProto.InvokeResponse().setReturn(struct(result.outputs));
        if (result.failures?.length) {
          resp.setFailuresList(result.failures.map((f) => new providerProto.CheckFailure().setProperty(f.property).setReason(f.reason)));
        }
        return resp;
      }),
    construct: bySdk("construct"),
    call: bySdk("call"),
  };

  // An error nothing caught is said on stderr as the SDK's server says one before it is configured,
  // and the plugin then exits non-zero; the SDK's own server, once loaded, says them itself.
  let uncaught = false;
  const onUncaught = (err: unknown) => {
    uncaught = true;
    if (!sdk) console.error(`error: [runtime] ${(err as Error)?.stack || (err as Error)?.message || String(err)}`);
  };
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onUncaught);
  process.on("exit", (code) => {
    if (code === 0 && uncaught) process.exitCode = 1;
  });
  // The engine ends a plugin with SIGINT to its process group and kills it 5 s later (Pulumi's
  // plugin Kill): the provider first closes what it keeps open, within SHUTDOWN_MS.
  let ending = false;
  const end = () => {
    if (ending) return;
    ending = true;
    const closed = made ? made.then((p) => p.shutdown?.()).catch(() => undefined) : Promise.resolve();
    const bound = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref());
    void Promise.race([closed, bound]).then(() => process.exit());
  };
  process.once("SIGINT", end);
  process.once("SIGTERM", end);

  // The SDK's own channel options: messages up to 400 MiB, and a call may wait half an hour in the
  // server's queue while the event loop is busy.
  const grpcServer = new grpc.Server({ "grpc.max_receive_message_length": 400 << 20, "grpc.server_max_unrequested_time_in_server": 30 * 60 });
  grpcServer.addService(providerGrpc.ResourceProviderService, server as unknown as Grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  console.log(String(port));
}
