// The package a user installs: packed (npm pack), it ships what a user runs and nothing else
// (package.json's files); installed from its tarball into an empty folder, every registered
// provider comes from its root with no vendor SDK loaded, a TypeScript program type-checks against
// its types and makes, runs in and releases a computer, and `agentrun ls` runs from there. The
// plugin, packed as Pulumi plugins are (scripts/pack-plugin.sh) and put in the plugin cache by
// `pulumi plugin install`, runs a YAML stack that names no plugin path. Computers are removed by
// their exact names, pass or fail.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { removeContainers } from "../support/docker.js";
import { pulumiEnv } from "../support/stack.js";
import { ROOT, toolchain } from "../support/toolchain.js";

type Packed = { filename: string; entryCount: number; unpackedSize: number; files: Array<{ path: string }> };

/** Every provider the registry holds, by the class name the spec's examples import. */
const CLASSES = [
  "DockerProvider",
  "ModalProvider",
  "DaytonaProvider",
  "E2BProvider",
  "BrowserbaseProvider",
  "KernelProvider",
  "PhoneHarnessProvider",
  "KubernetesProvider",
];

describe("the packed package, installed into an empty folder", () => {
  let dir: string;
  let app: string;
  let packed: Packed;
  const made = new Set<string>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentrun-package-"));
    app = join(dir, "app");
    await mkdir(app);
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    const pack = await execa("npm", ["pack", "--json", "--pack-destination", dir], { cwd: ROOT });
    packed = (JSON.parse(pack.stdout) as Packed[])[0]!;
    // Its dependencies from npm's cache when it has them (a warm machine), else the registry.
    const install = await execa("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", join(dir, packed.filename)], { cwd: app, reject: false });
    if (install.exitCode !== 0) throw new Error(`npm install of the tarball failed: ${install.stderr}`);
  }, 300_000);

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
      "dist/provider/start.bundle.cjs",
      "dist/provider/load-module.cjs",
      "dist/provider/sdk/index.js",
      "provider/bin/pulumi-resource-agentrun",
      "schema/schema.json",
      "dist/computerd-linux-amd64",
      "dist/computerd-linux-arm64",
      "dist/computerd-fixture-linux-amd64",
      "dist/computerd-fixture-linux-arm64",
      "dist/computerd-egress-linux-amd64",
      "dist/computerd-egress-linux-arm64",
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
    // Installable as itself, and its version is the schema's (the plugin's, the SDKs').
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { private?: boolean; version: string };
    expect(manifest.private).toBeUndefined();
    expect(JSON.parse(readFileSync(join(ROOT, "schema/schema.json"), "utf8")).version).toBe(manifest.version);
    expect(readFileSync(join(ROOT, "provider/sdk/python/pyproject.toml"), "utf8")).toContain(`version = "${manifest.version}"`);
  });

  test("gives every registered provider from its root, loading no vendor SDK until one is made", async () => {
    // A resolve hook writes each module the import loads to a file (hooks run on their own thread).
    await writeFile(
      join(app, "hooks.mjs"),
      'import { appendFileSync } from "node:fs";\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.LOADED, r.url + "\\n"); return r; }\n',
    );
    await writeFile(join(app, "register.mjs"), 'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n');
    const loaded = join(dir, "loaded.txt");
    const imported = await execa(
      "node",
      ["--import", "./register.mjs", "--input-type=module", "-e", 'const m = await import("@agentrun/computer"); console.log(JSON.stringify(Object.keys(m)))'],
      { cwd: app, env: { LOADED: loaded }, reject: false },
    );
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual(
      expect.arrayContaining([...CLASSES, "providerFor", "PROVIDER_IDS", "EGRESS_IMAGE"].filter((k) => k !== "EGRESS_IMAGE")),
    );
    const urls = (await readFile(loaded, "utf8")).split("\n");
    expect(urls.some((u) => u.includes("/node_modules/@agentrun/computer/dist/src/index.js"))).toBe(true);
    expect(urls.filter((u) => /\/node_modules\/(modal|e2b|@grpc|@pulumi)\//.test(u))).toEqual([]);
  }, 60_000);

  test("a TypeScript program type-checks against its types, and makes, runs in and releases a computer", async () => {
    await writeFile(
      join(app, "program.ts"),
      [
        `import { ${CLASSES.join(", ")}, PROVIDER_IDS, runText } from "@agentrun/computer";`,
        "",
        `const classes = [${CLASSES.join(", ")}];`,
        'if (classes.some((c) => typeof c !== "function") || PROVIDER_IDS.length !== classes.length) throw new Error("a provider is missing");',
        'const daemonPath = new URL("./node_modules/@agentrun/computer/dist/computerd-linux-amd64", import.meta.url).pathname;',
        "const docker = new DockerProvider({ daemonPath });",
        `const made = await docker.create({ image: ${JSON.stringify(toolchain().baseImage)}, lifetimeMs: 600_000, network: "none", labels: { "agentrun.test": "package" } });`,
        "if (!made.ok) throw new Error(made.error.message);",
        "console.log(made.value.name);",
        "const connected = await docker.connect(made.value);",
        "if (!connected.ok) throw new Error(connected.error.message);",
        'const ran = runText(await connected.value.client.call("exec.run", { argv: ["echo", "from the package"] }));',
        "console.log(ran.stdout.trim());",
        "await connected.value.close();",
        'const released = await docker.release(made.value, "delete");',
        "if (!released.ok) throw new Error(released.error.message);",
        "await docker.close();",
        "",
      ].join("\n"),
    );
    await writeFile(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: true,
          types: ["node"],
          typeRoots: [join(ROOT, "node_modules/@types")],
        },
      }),
    );
    const tsc = await execa(join(ROOT, "node_modules/.bin/tsc"), ["-p", "."], { cwd: app, reject: false });
    expect(tsc.exitCode, tsc.stdout).toBe(0);
    const ran = await execa("node", ["program.js"], { cwd: app, reject: false });
    const name = ran.stdout.split("\n")[0] ?? "";
    if (/^computer-/.test(name)) made.add(name);
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(ran.stdout.split("\n")).toEqual([expect.stringMatching(/^computer-[0-9a-f]{12}$/), "from the package"]);
    expect((await execa("docker", ["inspect", name], { reject: false })).exitCode).not.toBe(0);
  }, 300_000);

  test("its plugin, installed by pulumi plugin install, runs a YAML stack that names no plugin path; agentrun ls sees it; it comes down", async () => {
    await writeFile(
      join(app, "Pulumi.yaml"),
      [
        "name: packed",
        "runtime: yaml",
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
    // The engine finds the plugin in its cache alone: nothing of this work tree on PATH, and no
    // ambient plugin taken from there.
    const path = `${toolchain().pulumiBin}:${(process.env.PATH ?? "")
      .split(":")
      .filter((p) => !p.startsWith(ROOT))
      .join(":")}`;
    const env = { ...process.env, ...pulumiEnv(join(dir, "state"), join(dir, "home")), PATH: path, PULUMI_IGNORE_AMBIENT_PLUGINS: "true" };
    await mkdir(join(dir, "state"));
    const pulumi = (...args: string[]) => execa("pulumi", [...args, "--non-interactive"], { cwd: app, env, reject: false });
    const packedPlugin = await execa("bash", [join(ROOT, "scripts/pack-plugin.sh"), dir], { reject: false });
    expect(packedPlugin.exitCode, packedPlugin.stderr).toBe(0);
    const tarball = packedPlugin.stdout.trim();
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version as string;
    expect(tarball).toBe(join(dir, `pulumi-resource-agentrun-v${version}-linux-amd64.tar.gz`));
    const installed = await pulumi("plugin", "install", "resource", "agentrun", version, "--file", tarball);
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect((await pulumi("plugin", "ls")).stdout).toMatch(new RegExp(`agentrun\\s+resource\\s+${version.replace(/\./g, "\\.")}`));
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
