// What @pulumi/pulumi 3.248's Node provider server leaves out of the engine's protocol, put back
// where the server registers its service, so the engine prints what the plugin found:
// - diff: the server sends changes and replaces only, so the engine prints a diff of the inputs,
//   which never names a field that is not an input (a stopped computer's `state`). The plugin's
//   changed fields and their kinds go as the response's diffs and detailed diff.
// - read: the server hands read the stored outputs alone; the stored inputs go with them, so read
//   answers in the shape that was declared (a field left to the provider stays left out). An import
//   sends neither, which the server's own read failed on: both are then empty.
// - preview: the server says nothing of previews, so the engine takes a previewed create's or
//   update's outputs to be its inputs, and an output of another name (a Mount's `mount`) is unknown
//   to everything that takes it. The plugin says it previews: a create or update with the preview
//   flag is answered by the resource's preview (the outputs the step will make), never run.
import { createRequire } from "node:module";
import type { Props } from "./secrets.js";

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

/** The server's provider, with read given the stored inputs too, and a previewed step's outputs. */
export interface ServedProvider {
  diff?(id: string, urn: string, olds: Props, news: Props): Promise<FieldDiff>;
  read?(id: string, urn: string, props: Props, inputs?: Props): Promise<{ id?: string; props?: Props; inputs?: Props }>;
  /** The outputs a create (olds undefined) or an update (olds: the stored outputs) of these inputs will make; unknown ones as the engine's unknown. */
  preview?(urn: string, news: Props, olds?: Props): Promise<Props>;
}

const require = createRequire(createRequire(import.meta.url).resolve("@pulumi/pulumi"));
type Struct = { toJavaScript(): Props };
type Call<R> = { request: R };
type Callback = (error: unknown, response?: unknown) => void;
type Message = Record<string, (...args: unknown[]) => unknown>;
const grpc = require("@grpc/grpc-js") as { Server: { prototype: { addService(service: unknown, impl: Record<string, unknown>): void } } };
const { ResourceProviderService } = require("./proto/provider_grpc_pb") as { ResourceProviderService: unknown };
const proto = require("./proto/provider_pb") as {
  DiffResponse: new () => Message;
  ReadResponse: new () => Message;
  CreateResponse: new () => Message;
  UpdateResponse: new () => Message;
  ConfigureResponse: new () => Message;
  PropertyDiff: (new () => Message) & { Kind: Record<string, number> };
};
const { Struct } = require("google-protobuf/google/protobuf/struct_pb") as { Struct: { fromJavaScript(v: unknown): unknown } };
const DIFF_CHANGES = { unknown: 0, none: 1, some: 2 }; // DiffResponse.DiffChanges

/** The response a FieldDiff makes. */
export function diffResponse(result: FieldDiff): Message {
  const resp = new proto.DiffResponse();
  resp.setChanges!(result.changes === undefined ? DIFF_CHANGES.unknown : result.changes ? DIFF_CHANGES.some : DIFF_CHANGES.none);
  if (result.replaces?.length) resp.setReplacesList!(result.replaces);
  if (result.deleteBeforeReplace) resp.setDeletebeforereplace!(true);
  if (result.detailedDiff) {
    resp.setDiffsList!(result.diffs ?? Object.keys(result.detailedDiff));
    resp.setHasdetaileddiff!(true);
    const map = resp.getDetaileddiffMap!() as { set(k: string, v: unknown): void };
    for (const [field, kind] of Object.entries(result.detailedDiff)) {
      const d = new proto.PropertyDiff();
      d.setKind!(proto.PropertyDiff.Kind[kind.toUpperCase().replace("-", "_")]);
      map.set(field, d);
    }
  }
  return resp;
}

const props = (s: Struct | undefined): Props => s?.toJavaScript() ?? {};

type StepRequest = { getUrn(): string; getPreview(): boolean; getProperties?(): Struct; getNews?(): Struct; getOlds?(): Struct };
type Method = (call: Call<StepRequest>, callback: Callback) => unknown;

function served(impl: Record<string, unknown>) {
  const provider = impl.provider as ServedProvider;
  /** A create or an update: previewed by the resource, else the server's own. */
  const step = (run: Method, Response: new () => Message): Method =>
    async function (call, callback) {
      const r = call.request;
      if (!r.getPreview()) return run.call(impl, call, callback);
      try {
        const news = props(r.getProperties?.() ?? r.getNews?.());
        const olds = r.getOlds && props(r.getOlds());
        const resp = new Response();
        resp.setProperties!(Struct.fromJavaScript(provider.preview ? await provider.preview(r.getUrn(), news, olds) : news));
        callback(undefined, resp);
      } catch (error) {
        callback(error);
      }
    };
  return {
    configure(_call: unknown, callback: Callback) {
      const resp = new proto.ConfigureResponse();
      resp.setAcceptsecrets!(true);
      resp.setAcceptresources!(true);
      resp.setAcceptoutputs!(true);
      resp.setSupportspreview!(true);
      callback(undefined, resp);
    },
    create: step(impl.create as Method, proto.CreateResponse),
    update: step(impl.update as Method, proto.UpdateResponse),
    async diff(call: Call<{ getId(): string; getUrn(): string; getOlds(): Struct; getNews(): Struct }>, callback: Callback) {
      try {
        const r = call.request;
        const result = provider.diff ? await provider.diff(r.getId(), r.getUrn(), props(r.getOlds()), props(r.getNews())) : {};
        callback(undefined, diffResponse(result));
      } catch (error) {
        callback(error);
      }
    },
    async read(call: Call<{ getId(): string; getUrn(): string; getProperties(): Struct | undefined; getInputs(): Struct | undefined }>, callback: Callback) {
      try {
        const r = call.request;
        const resp = new proto.ReadResponse();
        const result = provider.read ? await provider.read(r.getId(), r.getUrn(), props(r.getProperties()), r.getInputs() && props(r.getInputs())) : {};
        resp.setId!(result.id ?? "");
        resp.setProperties!(Struct.fromJavaScript(result.props ?? {}));
        if (result.inputs !== undefined) resp.setInputs!(Struct.fromJavaScript(result.inputs));
        callback(undefined, resp);
      } catch (error) {
        callback(error);
      }
    },
  };
}

const addService = grpc.Server.prototype.addService;
grpc.Server.prototype.addService = function (this: unknown, service: unknown, impl: Record<string, unknown>) {
  if (service === ResourceProviderService) Object.assign(impl, served(impl));
  return addService.call(this, service, impl);
};
