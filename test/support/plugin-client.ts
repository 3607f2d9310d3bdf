// The plugin as the engine starts it (provider/bin), spoken to over gRPC as the engine speaks: its
// port, Configure, then a Computer's Check. For the tests that hold what one plugin process does.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type * as Grpc from "@grpc/grpc-js";
import type * as ProviderGrpc from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import type * as ProviderProto from "@pulumi/pulumi/proto/provider_pb.js";
import type * as StructProto from "google-protobuf/google/protobuf/struct_pb.js";

const require = createRequire(import.meta.url);
const grpc = require("@grpc/grpc-js") as typeof Grpc;
const { ResourceProviderClient } = require("@pulumi/pulumi/proto/provider_grpc_pb.js") as typeof ProviderGrpc;
export const proto = require("@pulumi/pulumi/proto/provider_pb.js") as typeof ProviderProto;
const { Struct } = require("google-protobuf/google/protobuf/struct_pb.js") as typeof StructProto;

export const PLUGIN = fileURLToPath(new URL("../../provider/bin/pulumi-resource-agentrun", import.meta.url));
export const URN = "urn:pulumi:first::first::agentrun:index:Computer::c";

export const unary = <Req, Res>(call: (req: Req, cb: (err: Grpc.ServiceError | null, res: Res) => void) => unknown, req: Req) =>
  new Promise<Res>((resolve, reject) => call(req, (err, res) => (err ? reject(err) : resolve(res))));

/**
 * The plugin started with `env` beside this process's and configured: its client. `started` is
 * given the process at once, so a test removes it however the start ends.
 */
export async function startPlugin(env: Record<string, string>, started: (child: ChildProcess) => void, stderr: "inherit" | "pipe" = "inherit") {
  const child = spawn(PLUGIN, [], { stdio: ["ignore", "pipe", stderr], env: { ...process.env, ...env } });
  started(child);
  const [port] = (await once(child.stdout!, "data")) as [Buffer];
  const client = new ResourceProviderClient(`127.0.0.1:${String(port).trim()}`, grpc.credentials.createInsecure());
  await unary(client.configure.bind(client), new proto.ConfigureRequest().setAcceptsecrets(true).setAcceptresources(true));
  return { child, client };
}

/** Check of a Computer declared with `news`. */
export const checkComputer = (client: ProviderGrpc.ResourceProviderClient, news: Record<string, StructProto.JavaScriptValue>) =>
  unary<ProviderProto.CheckRequest, ProviderProto.CheckResponse>(
    client.check.bind(client),
    new proto.CheckRequest().setUrn(URN).setOlds(new Struct()).setNews(Struct.fromJavaScript(news)),
  );
