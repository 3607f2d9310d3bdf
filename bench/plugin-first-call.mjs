// How long a preview's plugin takes from exec to its answers for one Computer: the port, then
// Configure, Check and Diff of a declared computer (the library, the Docker provider and its
// engine call loaded on the way), beside a bare `node -e ""` started the same way. The engine
// starts a plugin for every preview, up and refresh, and each pays this before its first answer.
// Usage: node bench/plugin-first-call.mjs [runs]
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { onStop } from "./stop.mjs";

const require = createRequire(import.meta.url);
const grpc = require("@grpc/grpc-js");
const { ResourceProviderClient } = require("@pulumi/pulumi/proto/provider_grpc_pb.js");
const proto = require("@pulumi/pulumi/proto/provider_pb.js");
const { Struct } = require("google-protobuf/google/protobuf/struct_pb.js");

const runs = Number(process.argv[2] ?? 10);
// A stop (SIGINT, SIGTERM) ends the plugin under way, which would outlive this process.
onStop();
const plugin = new URL("../provider/bin/pulumi-resource-agentrun", import.meta.url).pathname;
const urn = "urn:pulumi:bench::bench::agentrun:index:Computer::c";
const news = Struct.fromJavaScript({ network: "none", lifetimeMs: 600000 });

const unary = (client, method, request) => new Promise((resolve, reject) => client[method](request, (err, reply) => (err ? reject(err) : resolve(reply))));

/** ms from exec to the port, and to Diff's answer. */
function pluginRun() {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
    const child = spawn(plugin, [], { stdio: ["ignore", "pipe", "inherit"] });
    child.on("error", reject);
    child.stdout.once("data", async (line) => {
      const port = ms();
      const client = new ResourceProviderClient(`127.0.0.1:${String(line).trim()}`, grpc.credentials.createInsecure());
      try {
        await unary(client, "configure", new proto.ConfigureRequest().setAcceptsecrets(true).setAcceptresources(true));
        const checked = await unary(client, "check", new proto.CheckRequest().setUrn(urn).setOlds(new Struct()).setNews(news));
        if (checked.getFailuresList().length) throw new Error(`check failed: ${checked.getFailuresList().map((f) => f.getReason())}`);
        await unary(client, "diff", new proto.DiffRequest().setId("c").setUrn(urn).setOlds(checked.getInputs()).setNews(checked.getInputs()));
        resolve({ port, answered: ms() });
      } catch (e) {
        reject(e);
      } finally {
        client.close();
        child.kill("SIGKILL");
      }
    });
  });
}

function bareNode() {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    child.on("exit", () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
    child.on("error", reject);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const port = [],
  answered = [],
  bare = [];
for (let i = 0; i < runs; i++) {
  const r = await pluginRun();
  port.push(r.port);
  answered.push(r.answered);
  bare.push(await bareNode());
}
const anchor = median(bare);
console.log(`plugin exec to port: median ${median(port).toFixed(0)} ms (${(median(port) / anchor).toFixed(2)}x)`);
console.log(
  `plugin exec to Configure, Check and Diff of a Computer answered: median ${median(answered).toFixed(0)} ms (${(median(answered) / anchor).toFixed(2)}x) (${runs} runs)`,
);
console.log(`bare node start/exit: median ${anchor.toFixed(0)} ms (the anchor)`);
