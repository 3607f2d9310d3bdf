// The package a user installs: packed (npm pack), it ships what a user runs and nothing else
// (package.json's files), and installed from its tarball into an empty folder it runs a YAML
// stack through its plugin and `agentrun ls` from there. The computer is removed by its exact
// name, pass or fail.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { removeContainers } from "../support/docker.js";
import { pulumiEnv } from "../support/stack.js";
import { ROOT, toolchain } from "../support/toolchain.js";

type Packed = { filename: string; entryCount: number; unpackedSize: number; files: Array<{ path: string }> };

describe("the packed package, installed into an empty folder", () => {
  let dir: string;
  let app: string;
  let packed: Packed;
  const made = new Set<string>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentrun-package-"));
    app = join(dir, "app");
    await mkdir(app);
    const pack = await execa("npm", ["pack", "--json", "--pack-destination", dir], { cwd: ROOT });
    packed = (JSON.parse(pack.stdout) as Packed[])[0]!;
  }, 120_000);

  afterAll(async () => {
    await removeContainers(made);
    await rm(dir, { recursive: true, force: true });
  }, 120_000);

  test("ships the compiled library and plugin, the schema, both daemons and the conformance fixture, and no test, bench or source", () => {
    const paths = packed.files.map((f) => f.path);
    for (const needed of [
      "package.json",
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "dist/src/cli/program.js",
      "dist/src/conformance/cli.js",
      "dist/provider/main.js",
      "dist/provider/start-cache.bin",
      "dist/provider/sdk/index.js",
      "provider/bin/pulumi-resource-agentrun",
      "schema/schema.json",
      "dist/computerd-linux-amd64",
      "dist/computerd-linux-arm64",
      "dist/computerd-fixture-linux-amd64",
      "dist/computerd-fixture-linux-arm64",
    ])
      expect(paths).toContain(needed);
    const strays = paths.filter((p) => /^(test|bench|daemon|src|scripts|examples|dist\/test)\//.test(p) || p.endsWith(".map") || /^provider\/.*\.ts$/.test(p));
    expect(strays).toEqual([]);
    // Every compiled file shipped has its source in the tree: a build over an older one leaves
    // the compiled copies of moved or removed files behind, and they would ship. (A bound on the
    // count stood here; it grew a vendor's folder at a time and guarded nothing the list above
    // does not.)
    const orphans = paths.filter((p) => {
      const compiled = /^dist\/((?:src|provider)\/.+?)(?:\.d\.ts|\.js)$/.exec(p);
      return compiled !== null && !existsSync(join(ROOT, `${compiled[1]}.ts`));
    });
    expect(orphans).toEqual([]);
  });

  test("installed from its tarball, it runs a YAML stack through its plugin and agentrun ls, and the stack comes down", async () => {
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "app", private: true }));
    // Its dependencies from npm's cache when it has them (a warm machine), else the registry.
    const install = await execa("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", join(dir, packed.filename)], { cwd: app, reject: false });
    expect(install.exitCode, install.stderr).toBe(0);
    await writeFile(
      join(app, "Pulumi.yaml"),
      [
        "name: packed",
        "runtime: yaml",
        "plugins:",
        "  providers:",
        "    - name: agentrun",
        "      path: ./node_modules/@agentrun/computer/provider/bin",
        "resources:",
        "  box:",
        "    type: agentrun:index:Computer",
        `    properties: { image: ${toolchain().baseImage}, lifetimeMs: 600000, memoryMb: 256 }`,
        "outputs:",
        "  name: ${box.name}",
        "",
      ].join("\n"),
    );
    // The plugin's start cache serves the package where it is installed: V8 takes the code for
    // the modules the plugin's server loads (found by their place in node_modules) and refuses none.
    const provider = join(app, "node_modules/@agentrun/computer/dist/provider");
    const started = await execa(
      "node",
      [
        "--input-type=module",
        "-e",
        `const { useStartCache } = await import("${provider}/start-cache.js");
         const end = useStartCache("${provider}/start-cache.bin");
         await import("${provider}/server.js");
         console.log(JSON.stringify(end()));`,
      ],
      { cwd: app, reject: false },
    );
    expect(started.exitCode, started.stderr).toBe(0);
    const report = JSON.parse(started.stdout) as { used: number; refused: number };
    expect(report.refused).toBe(0);
    expect(report.used).toBeGreaterThan(60);
    const env = { ...process.env, ...pulumiEnv(join(dir, "state"), join(dir, "home")) };
    await mkdir(join(dir, "state"));
    const pulumi = (...args: string[]) => execa("pulumi", [...args, "--non-interactive"], { cwd: app, env, reject: false });
    expect((await pulumi("stack", "init", "test")).exitCode).toBe(0);
    const up = await pulumi("up", "--yes");
    const name = (await pulumi("stack", "output", "name")).stdout.trim();
    if (name) made.add(name);
    expect(up.exitCode, up.stderr || up.stdout).toBe(0);
    expect(name).toMatch(/^computer-[0-9a-f]{12}$/);
    const ls = await execa("npx", ["agentrun", "ls", "--json"], { cwd: app, env, reject: false });
    expect(ls.exitCode, ls.stderr).toBe(0);
    expect(JSON.parse(ls.stdout)).toContainEqual(expect.objectContaining({ name, state: "running", drift: "ok" }));
    expect((await pulumi("destroy", "--yes")).exitCode).toBe(0);
    const gone = await execa("docker", ["inspect", name], { reject: false });
    expect(gone.exitCode).not.toBe(0);
  }, 600_000);
});
