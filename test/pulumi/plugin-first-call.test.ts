// A preview's first answers load the provider's bundle and nothing of the library besides
// (provider/bundle.ts): the plugin as the engine starts it (provider/bin), answering Configure, Check
// and Diff of a Computer as bench/plugin-first-call.mjs times it, with every module it loads on the
// way written down (test/support/loaded-modules.mjs). A build that stopped bundling, or a bundle
// that took in a package the first call does not need, or a lazy import made eager, fails here.
// The bundle's code comes from the start cache (provider/start-cache.ts), where Node 20 runs no
// import(): a module the bundle loads at run time (a vendor's test SDK here) still loads.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as ProviderProto from "@pulumi/pulumi/proto/provider_pb.js";
import { afterEach, expect, test } from "vitest";
import { E2BDockerFake } from "../support/fake-e2b-docker.js";
import { checkComputer as check, proto, startPlugin, unary, URN } from "../support/plugin-client.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RECORDER = join(ROOT, "test/support/loaded-modules.mjs");
/** The packages the plugin's server loads (gRPC, the protos) before its port. */
const SERVER_PACKAGES = ["@grpc/grpc-js", "@grpc/proto-loader", "@js-sdsl/ordered-map", "@pulumi/pulumi", "google-protobuf"];

let plugin: ChildProcess | undefined;
let dir: string | undefined;
afterEach(() => {
  plugin?.kill("SIGKILL");
  plugin = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The plugin as the engine starts it, with `env` beside this process's, configured: its client. */
const started = (env: Record<string, string>) => startPlugin(env, (child) => (plugin = child));

test("the first Configure, Check and Diff of a Computer load the provider's bundle, no library module and no package they do not need", async () => {
  dir = mkdtempSync(join(tmpdir(), "agentrun-first-call-"));
  const record = join(dir, "modules");
  const { child, client } = await started({ NODE_OPTIONS: `--import ${RECORDER}`, AGENTRUN_LOADED_MODULES: record });
  try {
    const checked = await check(client, { network: "none", lifetimeMs: 600000 });
    expect(checked.getFailuresList().map((f) => f.getReason())).toEqual([]);
    const diffed = await unary<ProviderProto.DiffRequest, ProviderProto.DiffResponse>(
      client.diff.bind(client),
      new proto.DiffRequest().setId("c").setUrn(URN).setOlds(checked.getInputs()).setNews(checked.getInputs()),
    );
    expect(diffed.getChanges()).toBe(proto.DiffResponse.DiffChanges.DIFF_NONE);
  } finally {
    client.close();
  }
  const exited = once(child, "exit");
  child.kill("SIGUSR2");
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
  // The bundle's code and the server's come from the start cache, and V8 refused none of it.
  expect(of("refused")).toEqual([]);
  expect(of("cached").map((p) => p.slice(ROOT.length))).toContain("dist/provider/start.bundle.cjs");
  expect(of("cached").length).toBeGreaterThan(60);
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

test("a module the cached bundle loads at run time loads: an E2B computer's check loads the test SDK its setting names", async () => {
  // The Docker-backed fake of E2B's SDK, loaded by its path (agentrun:e2b testSdk) as the check
  // tests the key; it lists this run's sandboxes, of which there are none, and makes nothing.
  const run = `first-${randomBytes(6).toString("hex")}`;
  const key = `e2b_${randomBytes(12).toString("hex")}`;
  const fake = new E2BDockerFake({ run, apiKey: key });
  try {
    const { client } = await started({
      AGENTRUN_COMPUTER_TEST: "1",
      AGENTRUN_E2B_FAKE_RUN: run,
      AGENTRUN_E2B_FAKE_KEY: key,
      PULUMI_CONFIG: JSON.stringify({ "agentrun:e2b": JSON.stringify({ apiKey: key, testSdk: join(ROOT, "dist/test/support/fake-e2b-docker.js") }) }),
    });
    try {
      const checked = await check(client, { provider: "e2b", image: "base", kind: "linux", network: "none", lifetimeMs: 600000 });
      expect(checked.getFailuresList().map((f) => f.getReason())).toEqual([]);
      expect(checked.getInputs()?.toJavaScript()).toMatchObject({ provider: "e2b", image: "base" });
    } finally {
      client.close();
    }
  } finally {
    expect(await fake.remove()).toEqual([]);
  }
}, 60_000);
