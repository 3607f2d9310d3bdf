// A preview's first answers load the provider's bundle and nothing of the library besides
// (provider/bundle.ts): the plugin as the engine starts it (provider/bin), answering Configure, Check
// and Diff of a Computer as bench/plugin-first-call.mjs times it, with every module it loads on the
// way written down (test/support/loaded-modules.mjs). A build that stopped bundling, or a bundle
// that took in a package the first call does not need, or a lazy import made eager, fails here.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as Grpc from "@grpc/grpc-js";
import type * as ProviderGrpc from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import type * as ProviderProto from "@pulumi/pulumi/proto/provider_pb.js";
import type * as StructProto from "google-protobuf/google/protobuf/struct_pb.js";
import { afterEach, expect, test } from "vitest";

const require = createRequire(import.meta.url);
const grpc = require("@grpc/grpc-js") as typeof Grpc;
const { ResourceProviderClient } = require("@pulumi/pulumi/proto/provider_grpc_pb.js") as typeof ProviderGrpc;
const proto = require("@pulumi/pulumi/proto/provider_pb.js") as typeof ProviderProto;
const { Struct } = require("google-protobuf/google/protobuf/struct_pb.js") as typeof StructProto;

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PLUGIN = join(ROOT, "provider/bin/pulumi-resource-agentrun");
const RECORDER = join(ROOT, "test/support/loaded-modules.mjs");
/** The packages the plugin's server loads (gRPC, the protos) before its port. */
const SERVER_PACKAGES = ["@grpc/grpc-js", "@grpc/proto-loader", "@js-sdsl/ordered-map", "@pulumi/pulumi", "google-protobuf"];
const URN = "urn:pulumi:first::first::agentrun:index:Computer::c";

let plugin: ChildProcess | undefined;
let dir: string | undefined;
afterEach(() => {
  plugin?.kill("SIGKILL");
  plugin = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const unary = <Req, Res>(call: (req: Req, cb: (err: Grpc.ServiceError | null, res: Res) => void) => unknown, req: Req) =>
  new Promise<Res>((resolve, reject) => call(req, (err, res) => (err ? reject(err) : resolve(res))));

test("the first Configure, Check and Diff of a Computer load the provider's bundle, no library module and no package they do not need", async () => {
  dir = mkdtempSync(join(tmpdir(), "agentrun-first-call-"));
  const record = join(dir, "modules");
  plugin = spawn(PLUGIN, [], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, NODE_OPTIONS: `--import ${RECORDER}`, AGENTRUN_LOADED_MODULES: record },
  });
  const [port] = (await once(plugin.stdout!, "data")) as [Buffer];
  const client = new ResourceProviderClient(`127.0.0.1:${String(port).trim()}`, grpc.credentials.createInsecure());
  try {
    await unary(client.configure.bind(client), new proto.ConfigureRequest().setAcceptsecrets(true).setAcceptresources(true));
    const news = Struct.fromJavaScript({ network: "none", lifetimeMs: 600000 });
    const checked = await unary<ProviderProto.CheckRequest, ProviderProto.CheckResponse>(
      client.check.bind(client),
      new proto.CheckRequest().setUrn(URN).setOlds(new Struct()).setNews(news),
    );
    expect(checked.getFailuresList().map((f) => f.getReason())).toEqual([]);
    const diffed = await unary<ProviderProto.DiffRequest, ProviderProto.DiffResponse>(
      client.diff.bind(client),
      new proto.DiffRequest().setId("c").setUrn(URN).setOlds(checked.getInputs()).setNews(checked.getInputs()),
    );
    expect(diffed.getChanges()).toBe(proto.DiffResponse.DiffChanges.DIFF_NONE);
  } finally {
    client.close();
  }
  const exited = once(plugin, "exit");
  plugin.kill("SIGUSR2");
  await exited;
  const lines = readFileSync(record, "utf8").trim().split("\n");
  const of = (kind: string) => lines.filter((l) => l.startsWith(`${kind} `)).map((l) => l.slice(kind.length + 1));
  const esm = of("esm")
    .filter((u) => u.startsWith("file:"))
    .map((u) => fileURLToPath(u).slice(ROOT.length));
  const cjs = of("cjs").map((p) => p.slice(p.lastIndexOf("/node_modules/") + 1 || ROOT.length));
  // The plugin's entry and server alone as ES modules: the library is in the bundle.
  expect(esm.sort()).toEqual(["main.js", "start-cache.js", "young-generation.js", "server.js", "bundle-load.js"].map((f) => `dist/provider/${f}`).sort());
  expect(cjs).toContain("dist/provider/start.bundle.cjs");
  // Packages the first call needs are in the bundle; the rest are not loaded: the Pulumi SDK
  // (a construct's, with TypeScript behind it), the vendors' SDKs, the CLI's.
  const packages = new Set(
    cjs
      .filter((p) => p.startsWith("node_modules/"))
      .map((p) =>
        p
          .split("/")
          .slice(1, p.startsWith("node_modules/@") ? 3 : 2)
          .join("/"),
      ),
  );
  expect([...packages].filter((p) => !SERVER_PACKAGES.includes(p))).toEqual([]);
  expect(cjs.filter((p) => p.startsWith("node_modules/@pulumi/pulumi/") && !p.startsWith("node_modules/@pulumi/pulumi/proto/"))).toEqual([]);
}, 60_000);
