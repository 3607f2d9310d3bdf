// The conformance CLI (usage, exit codes, a module by path, --json against the shared schema), the
// kind table and verdict, and the suite's own helpers.
import { describe, expect, it } from "vitest";
import { CAPABILITY_SETS, privilegeProblems } from "../../src/conformance/assert.js";
import { conformanceCases } from "../../src/conformance/cases/index.js";
import { interfacesOf } from "../../src/conformance/cases/isolation.js";
import { EXIT, main, usage } from "../../src/conformance/cli.js";
import { casesFor, kindCases, kindVerdict } from "../../src/conformance/kind.js";
import { ConformanceReport } from "../../src/conformance/report.js";
import { entriesOf, tarOf } from "../../src/conformance/tar.js";
import { PROVIDER_IDS } from "../../src/providers.js";
import { NET_DEV_LO, STATUS_UNPRIVILEGED } from "../support/memory-computers.js";

const FIXTURES = new URL("../fixtures/conformance/", import.meta.url).pathname;

async function cli(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd: FIXTURES, progress: true });
  return { code, stdout, stderr };
}

describe("the conformance CLI", () => {
  it("lists every registry id in its usage", () => {
    for (const id of PROVIDER_IDS) expect(usage()).toContain(id);
  });

  it("exits 2 with the usage for a missing --provider, an unknown flag, an unknown id or --kind with --only", async () => {
    for (const argv of [
      [],
      ["--provider", "docker", "--bogus"],
      ["--provider", "no-such-vendor"],
      ["--provider", "./memory-module.ts", "--kind", "linux", "--only", "health"],
    ]) {
      const run = await cli(...argv);
      expect(run.code, argv.join(" ")).toBe(EXIT.usage);
      expect(run.stderr).toContain("usage: npm run conformance");
      expect(run.stdout).toBe("");
    }
    expect((await cli("--provider", "no-such-vendor")).stderr).toMatch(
      /neither a registry id \(docker, modal, daytona, e2b, browserbase, kernel, phone-harness, kubernetes\) nor a module path/,
    );
  });

  it("exits 2 for --kind none and an --only naming no group or case, in words", async () => {
    expect((await cli("--provider", "./memory-module.ts", "--kind", "none")).stderr).toMatch(/--kind none is no computer/);
    const only = await cli("--provider", "./memory-module.ts", "--only", "health,nonesuch");
    expect(only.code).toBe(EXIT.usage);
    expect(only.stderr).toMatch(/--only names nonesuch, neither a group nor a case/);
  });

  it("exits 2 for a runtime that is none, and for one the provider declares nothing for, before anything is made", async () => {
    const unknown = await cli("--provider", "./memory-module.ts", "--runtime", "kata");
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toContain('--runtime takes runc or gvisor, not "kata"');
    const undeclared = await cli("--provider", "./memory-module.ts", "--runtime", "gvisor");
    expect(undeclared.code).toBe(EXIT.usage);
    expect(undeclared.stderr).toContain("--runtime gvisor: the provider's linux computers do not run under runtime gvisor");
  });

  it("exits 2 for a module by path that is neither a conformance module nor a provider file", async () => {
    const run = await cli("--provider", "./not-a-provider.mjs");
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(/exports neither createProvider\(\) \(a conformance module\) nor create\(options\) \(a provider file\)/);
  });

  it("runs a conformance module given by path from where npm was run, and exits 3 on a partial run", async () => {
    const run = await cli("--provider", "./memory-module.ts", "--only", "health");
    expect(run.code).toBe(EXIT.partial);
    expect(run.stdout).toMatch(/^computer conformance · memory · linux, daemon pid1 · computerd 1\.0\.0 linux\/amd64$/m);
    expect(run.stdout).toMatch(/^core PARTIAL 4\/4 · \d+ Core cases not run/m);
    expect(run.stderr).toMatch(/^✓ health: 4 passed, 0 failed, 0 skipped in /m);
  });

  it("takes the module's own fixture when --fixture gives none, and says so in the report", async () => {
    const own = await cli("--provider", "./own-fixture-module.ts", "--only", "health");
    expect(own.stdout).toContain(`note: no --fixture was given: the input cases used the package's own fixture, ${FIXTURES}own-fixture-module.ts`);
    const given = await cli("--provider", "./own-fixture-module.ts", "--only", "health", "--fixture", "memory-module.ts");
    expect(given.stdout).not.toContain("--fixture");
    const missing = await cli("--provider", "./missing-fixture-module.ts", "--only", "health");
    expect(missing.stdout).toContain(
      "note: no --fixture was given, and the package's own input fixture is not at /nonexistent/computerd-fixture-linux-amd64 (npm run setup builds it)",
    );
  });

  it("prints --json that the report's schema takes, with no progress", async () => {
    const run = await cli("--provider", "./memory-module.ts", "--only", "health,provider.create", "--json");
    expect(run.code).toBe(EXIT.partial);
    const report = ConformanceReport.parse(JSON.parse(run.stdout));
    expect(report).toMatchObject({ provider: "memory", image: "memory-image", core: "partial", only: ["health", "provider.create"] });
    expect(report.results.map((r) => r.id)).toEqual(["health.hello", "health.ping", "health.unknown-method", "health.kind-consistent", "provider.create"]);
    expect(run.stderr).toBe("");
  });

  it("takes the spec's case ids in --only, and the ids earlier reports printed as their aliases", async () => {
    for (const only of ["provider.stop,provider.janitor", "provider.release-stop,lifetime.janitor"]) {
      const run = await cli("--provider", "./memory-module.ts", "--only", only, "--json");
      expect(run.code, only).toBe(EXIT.partial);
      const report = ConformanceReport.parse(JSON.parse(run.stdout));
      expect(report.results.map((r) => [r.id, r.group, r.status])).toEqual([
        ["provider.stop", "provider", "pass"],
        ["provider.janitor", "provider", "skip"],
      ]);
    }
  });
});

describe("kinds", () => {
  it("takes a kind's cases: the groups it requires or allows, and those of no group", () => {
    expect(kindCases("linux").map((c) => c.id)).toEqual(kindCases("sandbox").map((c) => c.id));
    const display = (c: { needs: { groups?: string[] } }) =>
      (c.needs.groups ?? []).some((g) => g === "screen" || g.startsWith("input.") || g.startsWith("apps"));
    expect(kindCases("sandbox")).toEqual(casesFor("linux").filter((c) => !display(c)));
    expect(
      kindCases("desktop")
        .filter(display)
        .map((c) => c.id),
    ).toEqual([
      "screen.screenshot-size",
      "screen.watch",
      "input.click-lands",
      "input.type-text",
      "input.key-table-refuses-unknown",
      "input.actions-stops-at-first-failure",
      "apps.launch-terminate",
    ]);
    expect(
      kindCases("phone")
        .filter(display)
        .map((c) => c.id),
    ).toEqual([
      "screen.screenshot-size",
      "screen.watch",
      "input.type-text",
      "input.key-table-refuses-unknown",
      "touch.tap",
      "touch.swipe",
      "touch.pinch",
      "apps.launch-terminate",
      "apps.ui-tree-shape",
      "apps.install-launch",
    ]);
    expect(() => kindCases("none")).toThrow(/no computer/);
  });

  it("passes a kind only when it is served, no case failed, each required group passed, and nothing was left", () => {
    const caps = { kind: "linux" as const, groups: ["exec" as const, "files" as const, "processes" as const] };
    const clean = { left: [], errors: [], late: [] };
    const passing = conformanceCases.map((c) => ({ id: c.id, level: c.level, group: c.group, status: "pass" as const }));
    expect(kindVerdict("linux", caps, passing, clean)).toEqual({ kind: "linux", verdict: "pass", reasons: [] });
    const noFiles = passing.filter(
      (r) => r.group !== "files" && r.group !== "state" && r.id !== "process.log" && r.id !== "mount.run-folder-bind" && r.id !== "mount.run-folder-archil",
    );
    expect(kindVerdict("linux", caps, noFiles, clean).reasons).toEqual(["no case of the required group files passed"]);
    const skippedCore = passing.map((r) => (r.id === "drift.drifted-daemon" ? { ...r, status: "skip" as const } : r));
    expect(kindVerdict("linux", caps, skippedCore, clean).reasons).toEqual(["Core cases skipped: drift.drifted-daemon"]);
    expect(kindVerdict("linux", caps, passing, { ...clean, left: ["computer-1"] }).reasons).toEqual(["the run left something behind (see cleanup)"]);
    expect(kindVerdict("desktop", caps, passing, clean).verdict).toBe("fail");
  });
});

describe("the suite's helpers", () => {
  it("reads a status with no capability and NoNewPrivs 1 as clean, and names each set that is not", () => {
    expect(privilegeProblems(STATUS_UNPRIVILEGED)).toEqual([]);
    const held = STATUS_UNPRIVILEGED.replace("CapEff:\t0000000000000000", "CapEff:\t00000000a80425fb").replace("NoNewPrivs:\t1", "NoNewPrivs:\t0");
    expect(privilegeProblems(held)).toEqual(["CapEff is 00000000a80425fb, not 0000000000000000", "NoNewPrivs is 0, not 1"]);
    const missing = STATUS_UNPRIVILEGED.split("\n")
      .filter((l) => !l.startsWith("CapAmb"))
      .join("\n");
    expect(privilegeProblems(missing)).toEqual(["CapAmb is not reported"]);
    // gVisor's /proc reports neither CapAmb nor NoNewPrivs: the kernel's answer through setpriv stands in.
    const gvisor = missing
      .split("\n")
      .filter((l) => !l.startsWith("NoNewPrivs"))
      .join("\n");
    expect(privilegeProblems(gvisor)).toEqual(["CapAmb is not reported", "NoNewPrivs is not reported"]);
    const dump = (nnp: string, ambient: string) => `uid: 1000\nno_new_privs: ${nnp}\nInheritable capabilities: [none]\nAmbient capabilities: ${ambient}\n`;
    expect(privilegeProblems(gvisor, dump("1", "[unsupported]"))).toEqual([]);
    expect(privilegeProblems(gvisor, dump("1", "[none]"))).toEqual([]);
    expect(privilegeProblems(gvisor, dump("0", "net_raw"))).toEqual(["the ambient capabilities are net_raw, not none", "NoNewPrivs is 0, not 1"]);
    // What /proc does report is never overruled by the dump.
    expect(privilegeProblems(held, dump("1", "[none]"))).toEqual(["CapEff is 00000000a80425fb, not 0000000000000000", "NoNewPrivs is 0, not 1"]);
    expect(CAPABILITY_SETS).toHaveLength(5);
  });

  it("lists the interfaces of /proc/net/dev", () => {
    expect(interfacesOf(NET_DEV_LO)).toEqual(["lo"]);
    expect(interfacesOf(`${NET_DEV_LO}  eth0: 1 2 3\n`)).toEqual(["lo", "eth0"]);
  });

  it("writes a tar its reader reads back: files, a directory, a symlink, modes and bytes", () => {
    const bytes = new Uint8Array(1500).map((_, i) => i & 0xff);
    const entries = entriesOf(
      tarOf([
        { name: "a.txt", type: "file", mode: 0o640, data: Buffer.from("alpha") },
        { name: "sub", type: "dir", mode: 0o750 },
        { name: "sub/b.bin", type: "file", mode: 0o600, data: bytes },
        { name: "link", type: "symlink", mode: 0o777, linkname: "a.txt" },
      ]),
    );
    expect(entries.map((e) => [e.name, e.type, e.mode])).toEqual([
      ["a.txt", "file", 0o640],
      ["sub", "dir", 0o750],
      ["sub/b.bin", "file", 0o600],
      ["link", "symlink", 0o777],
    ]);
    expect(Buffer.from(entries[2]!.data!).equals(Buffer.from(bytes))).toBe(true);
    expect(entries[3]!.linkname).toBe("a.txt");
  });
});

describe("Docker's conformance module", () => {
  it("reads its own COMPUTER_DOCKER_* names and nothing else", async () => {
    const { ENV, settingsFromEnv } = await import("../../src/docker/conformance/module.js");
    expect(ENV).toEqual(["COMPUTER_DOCKER_DAEMON", "COMPUTER_DOCKER_DAEMON_CACHE", "COMPUTER_DOCKER_USER"]);
    expect(
      settingsFromEnv({ COMPUTER_DOCKER_DAEMON: "/d", COMPUTER_DOCKER_USER: "1234:1234", AGENTRUN_DOCKER_IMAGE: "x", COMPUTER_DOCKER_IMAGE: "y" }),
    ).toEqual({ daemonPath: "/d", user: "1234:1234" });
  });

  it("takes the package's daemon for Docker's architecture, and names docker version when it fails", async () => {
    const { daemonForDocker, dockerArch } = await import("../../src/docker/conformance/module.js");
    const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
    const dir = mkdtempSync("/tmp/agentrun-conformance-test-");
    try {
      writeFileSync(`${dir}/arm`, "#!/bin/sh\necho aarch64\n", { mode: 0o755 });
      writeFileSync(`${dir}/broken`, "#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2; exit 1\n", { mode: 0o755 });
      expect(await daemonForDocker(`${dir}/arm`)).toMatch(/\/dist\/computerd-linux-arm64$/);
      expect(await dockerArch(`${dir}/arm`)).toBe("arm64");
      await expect(daemonForDocker(`${dir}/broken`)).rejects.toThrow(/^docker version failed \(Cannot connect to the Docker daemon\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names the package's own fixture for a desktop run, and none for a sandbox", async () => {
    const { conformanceFixture } = await import("../../src/docker/conformance/module.js");
    const { packageRoot } = await import("../../src/package.js");
    expect(await conformanceFixture({})).toBeUndefined();
    expect(await conformanceFixture({ kind: "sandbox" })).toBeUndefined();
    const arm = () => Promise.resolve("arm64" as const);
    expect(await conformanceFixture({ kind: "sandbox" }, arm)).toBeUndefined();
    expect(await conformanceFixture({ kind: "desktop" }, arm)).toBe(`${packageRoot()}/dist/computerd-fixture-linux-arm64`);
  });

  it("gives a bind run folder owned by the provider's user, mode 0700, canonical, and removes it on close", async () => {
    const { mountFor } = await import("../../src/docker/conformance/module.js");
    const { statSync, existsSync, realpathSync } = await import("node:fs");
    expect(await mountFor("archil", {})).toBeUndefined();
    const folder = await mountFor("bind", { user: "4321:4322" });
    expect(folder?.mount.kind).toBe("bind");
    const path = (folder!.mount as { path: string }).path;
    try {
      expect(realpathSync(path)).toBe(path);
      const stat = statSync(path);
      expect(stat.mode & 0o777).toBe(0o700);
      if (process.getuid?.() === 0) expect([stat.uid, stat.gid]).toEqual([4321, 4322]);
      await folder!.write("a.txt", Buffer.from("hi"));
      expect(Buffer.from(await folder!.read("a.txt")).toString()).toBe("hi");
      await expect(folder!.write("../escape", Buffer.from("x"))).rejects.toThrow(/a name in it/);
    } finally {
      await folder!.close();
    }
    expect(existsSync(path)).toBe(false);
  });
});
