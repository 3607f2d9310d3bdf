// The conformance runner against the in-memory vendor: what passes, what fails and where it is
// said, what a skip is, a partial run, cleanup, bounds, and the vendor-agent probe.
import { describe, expect, it } from "vitest";
import { check } from "../../src/conformance/assert.js";
import { conformanceCase, type ConformanceCase } from "../../src/conformance/case.js";
import { conformanceCases } from "../../src/conformance/cases/index.js";
import { probeProblems, vendorAgentTargets } from "../../src/conformance/cases/isolation.js";
import vectors from "../vectors/probe-lines.json" with { type: "json" };
import { exitCodeOf } from "../../src/conformance/cli.js";
import { formatReport } from "../../src/conformance/format.js";
import { ConformanceReport } from "../../src/conformance/report.js";
import { runConformance, type ConformanceOptions } from "../../src/conformance/runner.js";
import { MemoryComputers, NET_DEV_LO, probeLine } from "../support/memory-computers.js";

/** Every case the in-memory vendor can answer: no file, process or shell of its own. */
const MEMORY_CASES = conformanceCases.filter((c) => ["health", "provider", "drift"].includes(c.group) || c.group === "isolation");

function vendor(options: ConstructorParameters<typeof MemoryComputers>[0] = {}) {
  const store = new Map();
  const provider = new MemoryComputers({ store, ...options });
  const drifted = new MemoryComputers({ store, ...options, version: "1.0.0-drifted", daemonVersion: options.daemonVersion ?? "1.0.0" });
  return { provider, drifted };
}

async function run(provider: MemoryComputers, options: Partial<ConformanceOptions> = {}) {
  const report = await runConformance(provider, { image: "memory-image", cases: MEMORY_CASES, ...options });
  ConformanceReport.parse(report);
  return report;
}

const result = (report: ConformanceReport, id: string) => report.results.find((r) => r.id === id);

/** The text under a report line: the lines that follow it up to the next line of a level. */
function under(text: string, line: RegExp): string[] {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => line.test(l));
  expect(at, `no line ${line} in\n${text}`).toBeGreaterThanOrEqual(0);
  const rest = lines.slice(at + 1);
  const end = rest.findIndex((l) => /^(core|full|optional) /.test(l));
  return end < 0 ? rest : rest.slice(0, end);
}

describe("runConformance on the in-memory vendor", () => {
  it("passes Core with its drifted provider refused, and leaves nothing", async () => {
    const { provider, drifted } = vendor();
    const report = await run(provider, { drifted });
    expect(report.results.filter((r) => r.status === "fail")).toEqual([]);
    expect(report.core).toBe("pass");
    expect(exitCodeOf(report)).toBe(0);
    expect(report.cleanup).toEqual({ left: [], errors: [], late: [] });
    expect(provider.store.size).toBe(0);
    expect(formatReport(report)).toMatch(/^core PASS \d+\/\d+ · /m);
  });

  it("fails Core with exit 1 when one Core case fails, with what it found under its line", async () => {
    const { provider, drifted } = vendor({
      exec: (argv) => (argv.join(" ") === "cat /proc/net/dev" ? { stdout: `${NET_DEV_LO}  eth0: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n` } : undefined),
    });
    const report = await run(provider, { drifted });
    expect(report.results.filter((r) => r.status === "fail").map((r) => r.id)).toEqual(["isolation.network-none"]);
    expect(report.core).toBe("fail");
    expect(exitCodeOf(report)).toBe(1);
    const text = formatReport(report);
    expect(under(text, /^core {5}isolation network-none/)).toContain(
      "  ✗ isolation.network-none: a program of a computer with network none sees the interfaces lo, eth0, not lo alone",
    );
    expect(text).toMatch(/^core FAIL /m);
  });

  it("fails cleanup, and Core, when a computer is left behind", async () => {
    const { provider, drifted } = vendor({ keepOnRelease: true });
    const report = await run(provider, { drifted, cases: MEMORY_CASES.filter((c) => c.group === "health") });
    expect(report.results.every((r) => r.status === "pass")).toBe(true);
    expect(report.cleanup.left).toHaveLength(1);
    expect(report.cleanup.left[0]).toMatch(/^computer-\S+ \(shared, running\)$/);
    expect(report.core).toBe("fail");
    expect(formatReport(report)).toMatch(/^cleanup: left behind computer-/m);
  });

  it("fails the drift case when a computer of the drifted daemon is handed out", async () => {
    const { provider } = vendor();
    const handsOut = new MemoryComputers({ store: provider.store, version: "1.0.0-drifted", daemonVersion: "1.0.0", checksDaemon: false });
    const report = await run(provider, { drifted: handsOut });
    expect(result(report, "drift.drifted-daemon")).toMatchObject({ level: "core", status: "fail" });
    expect(result(report, "drift.drifted-daemon")?.reason).toMatch(/reports 1\.0\.0, not 1\.0\.0-drifted, was made and handed a connection/);
    expect(report.core).toBe("fail");
    expect(provider.store.size).toBe(0);
  });

  it("fails the drift case when the drifted provider's connect fails for another reason than the drift (a daemon that answers late)", async () => {
    const { provider } = vendor();
    const slow = new MemoryComputers({
      store: provider.store,
      version: "1.0.0-drifted",
      daemonVersion: "1.0.0",
      checksDaemon: false,
      connectFailure: { code: "timeout", message: "hello did not answer within 30 s" },
    });
    const report = await run(provider, { drifted: slow, only: ["drift.drifted-daemon"] });
    expect(result(report, "drift.drifted-daemon")).toMatchObject({ level: "core", status: "fail" });
    expect(result(report, "drift.drifted-daemon")?.reason).toMatch(
      /^connect to computer-\S+, whose daemon is not 1\.0\.0-drifted, was refused as timeout \(hello did not answer within 30 s\), not refused$/,
    );
    expect(provider.store.size).toBe(0);
  });

  it("says provider.network-undeclared is not applicable, never a pass, for a provider that declares every network", async () => {
    const { provider, drifted } = vendor({ networks: ["none", "open", "allow"] });
    const report = await run(provider, { drifted, only: ["provider.network-undeclared"] });
    expect(result(report, "provider.network-undeclared")).toEqual({
      id: "provider.network-undeclared",
      level: "optional",
      group: "provider",
      status: "skip",
      reason: "not applicable: the provider declares every network (none, open, allow), so there is no network it must refuse",
      undeclared: ["network:undeclared"],
    });
    const narrow = vendor();
    const held = await run(narrow.provider, { drifted: narrow.drifted, only: ["provider.network-undeclared"] });
    expect(result(held, "provider.network-undeclared")).toMatchObject({ level: "core", status: "pass" });
  });

  it("skips the drift cases without a drifted provider, and then Core does not pass", async () => {
    const { provider } = vendor();
    const report = await run(provider);
    expect(result(report, "drift.drifted-daemon")).toMatchObject({ level: "core", status: "skip" });
    expect(report.core).toBe("fail");
    expect(formatReport(report)).toMatch(/^ {2}- drift\.drifted-daemon: the run has no drifted provider/m);
  });

  it("makes --only a partial run that exits 3 and never says PASS", async () => {
    const { provider, drifted } = vendor();
    const report = await run(provider, { drifted, only: ["health"] });
    expect(report.core).toBe("partial");
    expect(exitCodeOf(report)).toBe(3);
    expect(report.coreNotRun).toContain("provider.check-refuses");
    expect(report.coreNotRun).not.toContain("isolation.vendor-agent"); // not declared: not Core here
    const text = formatReport(report);
    expect(text).not.toMatch(/PASS/);
    expect(text).toMatch(new RegExp(`^core PARTIAL 4/4 · ${report.coreNotRun!.length} Core cases not run`, "m"));
    expect(text).toMatch(/^core not run: .*provider\.check-refuses/m);
  });

  it("takes an --only that names every Core case as a whole run, which can pass", async () => {
    const { provider, drifted } = vendor();
    const core = MEMORY_CASES.filter((c) => c.level === "core" && c.id !== "isolation.vendor-agent").map((c) => c.id);
    const report = await run(provider, { drifted, only: core });
    expect(report.coreNotRun).toBeUndefined();
    expect(report.core).toBe("pass");
  });

  it("fails a partial run whose cases fail", async () => {
    const { provider } = vendor({ networkReadBack: "open" });
    const report = await run(provider, { only: ["provider.network-readback"] });
    expect(report.core).toBe("fail");
    expect(exitCodeOf(report)).toBe(1);
  });

  it("skips a Core case of an optional group not declared, in words, and counts it as optional", async () => {
    const { provider, drifted } = vendor();
    let ran = false;
    const screen = conformanceCase("screen.screenshot-size", "core", { groups: ["screen"] }, async () => {
      ran = true;
    });
    const report = await run(provider, { drifted, cases: [...MEMORY_CASES, screen] });
    expect(ran).toBe(false);
    expect(result(report, "screen.screenshot-size")).toEqual({
      id: "screen.screenshot-size",
      level: "optional",
      group: "screen",
      status: "skip",
      reason: "the provider does not declare screen",
      undeclared: ["screen"],
    });
    expect(report.undeclared).toContain("screen");
    expect(report.core).toBe("pass");
    const text = formatReport(report);
    expect(text).toMatch(/^optional screen {4}screenshot-size +- 1$/m);
    expect(text).toMatch(/· 2 optional cases skipped, not declared ·/); // screen and vendor-agent
    expect(text).toMatch(/ screen not declared$/m);
  });

  it("fails a Core case whose group the kind requires, in words, when the provider does not declare it", async () => {
    const { provider, drifted } = vendor({ groups: ["files", "processes"] });
    const report = await run(provider, { drifted, cases: conformanceCases.filter((c) => c.id === "exec.argv" || c.group === "health") });
    expect(result(report, "exec.argv")).toMatchObject({ level: "core", status: "fail", undeclared: ["exec"] });
    expect(result(report, "exec.argv")?.reason).toBe("a linux computer with daemon pid1 must declare exec: the provider does not declare exec");
    expect(report.core).toBe("fail");
  });

  it("fails a case that runs past its bound, and deletes the computer its create brings later", async () => {
    const { provider } = vendor({ createMs: 400 });
    const real = provider.create.bind(provider);
    provider.create = (spec) => real(spec); // a vendor that does not hear the abort
    const slow = conformanceCase("provider.slow", "core", {}, async (t) => {
      await t.create();
    });
    const report = await run(provider, { cases: [slow], caseTimeoutMs: 100 });
    expect(result(report, "provider.slow")).toMatchObject({ status: "fail", reason: "the case ran past 0.1 s; its computers were deleted" });
    expect(report.cleanup.late).toHaveLength(1);
    expect(report.cleanup.late[0]).toMatch(/made for provider\.slow after it ended, deleted as it came/);
    expect(provider.store.size).toBe(0);
  });

  it("names a create still pending past the cleanup bound in cleanup.errors, and fails Core", async () => {
    const { provider } = vendor();
    const never = new MemoryComputers({ store: provider.store });
    never.create = () => new Promise(() => {});
    const hangs = conformanceCase("provider.hangs", "core", {}, async (t) => {
      await t.attempt(t.spec(), never);
    });
    const report = await run(provider, { cases: [hangs], caseTimeoutMs: 50, cleanupTimeoutMs: 100 });
    expect(report.cleanup.errors).toEqual(["a create started by provider.hangs had not answered 0.1 s after the cases ended: what it makes may be left"]);
    expect(report.core).toBe("fail");
  });

  it("fails the cases on the shared computer, and runs the rest, when it cannot be made", async () => {
    const { provider, drifted } = vendor();
    const real = provider.create.bind(provider);
    provider.create = async (spec, options) =>
      spec.labels?.["agentrun.conformance.case"] === "shared" ? { ok: false, error: { code: "failed", message: "no capacity" } } : real(spec, options);
    const report = await run(provider, { drifted });
    expect(result(report, "health.ping")).toMatchObject({
      status: "fail",
      reason: "the shared computer could not be made: its create failed (failed): no capacity",
    });
    expect(result(report, "provider.create")?.status).toBe("pass");
    expect(report.daemon).toBeNull();
  });

  it("fails the shared computer's cases past its bound, and deletes the computer it brings later", async () => {
    const { provider } = vendor({ createMs: 300 });
    const real = provider.create.bind(provider);
    provider.create = (spec) => real(spec); // a vendor that does not hear the abort
    const report = await run(provider, { cases: MEMORY_CASES.filter((c) => c.group === "health"), sharedTimeoutMs: 100 });
    expect(result(report, "health.ping")).toMatchObject({ status: "fail", reason: "the shared computer was not made and connected within 0.1 s" });
    expect(report.cleanup.late).toEqual([expect.stringMatching(/^computer-\S+, the shared computer, made after its bound, deleted as it came$/)]);
    expect(provider.store.size).toBe(0);
  });

  it("carries every note a create returned, naming its computer, above the verdict", async () => {
    const { provider, drifted } = vendor();
    const real = provider.create.bind(provider);
    provider.create = async (spec, options) => {
      const made = await real(spec, options);
      if (made.ok) made.value.notes = ["network: none; accepted with no answer (no bytes came back): 1.1.1.1:443"];
      return made;
    };
    const report = await run(provider, { drifted, cases: MEMORY_CASES.filter((c) => c.group === "health") });
    expect(report.computerNotes).toHaveLength(1);
    const lines = formatReport(report).trimEnd().split("\n");
    expect(lines.at(-2)).toMatch(/^note computer-\S+: network: none; accepted with no answer/);
  });
});

describe("--kind on the in-memory vendor", () => {
  it("fails a kind the provider does not serve, in words, with exit 1", async () => {
    const { provider, drifted } = vendor();
    const report = await run(provider, { drifted, kind: "desktop" });
    expect(report.kindVerdict?.verdict).toBe("fail");
    expect(exitCodeOf(report)).toBe(1);
    expect(formatReport(report).trimEnd().split("\n").at(-1)).toMatch(
      /^kind desktop FAIL: the provider does not serve desktop: a desktop is a computer of kind desktop, and this one is linux; a desktop needs the groups screen, input\.pointer, input\.keys, not declared; /,
    );
  });

  it("passes a kind it serves when every required group has a passing case", async () => {
    const { provider, drifted } = vendor();
    const groups = conformanceCase("files.some", "core", { groups: ["files", "processes"] }, async () => {});
    const report = await run(provider, { drifted, kind: "linux", cases: [...MEMORY_CASES, groups] });
    expect(report.kindVerdict).toEqual({ kind: "linux", verdict: "pass", reasons: [] });
    expect(exitCodeOf(report)).toBe(0);
    expect(formatReport(report).trimEnd().split("\n").at(-1)).toBe("kind linux PASS");
  });

  it("refuses --kind with --only", async () => {
    const { provider } = vendor();
    await expect(run(provider, { kind: "linux", only: ["health"] })).rejects.toThrow(/never given with --only/);
  });
});

describe("--runtime on the in-memory vendor", () => {
  it("runs every computer under the runtime, held to the network kinds the provider declares for it, and says the runtime", async () => {
    const { provider, drifted } = vendor({ networks: ["none", "open"], runtimes: { gvisor: { network: ["none"] } } });
    const specs: unknown[] = [];
    const create = provider.create.bind(provider);
    provider.create = async (spec, options) => {
      specs.push(spec.runtime);
      return create(spec, options);
    };
    const report = await run(provider, { drifted, runtime: "gvisor" });
    expect(report.core).toBe("pass");
    expect(report.runtime).toBe("gvisor");
    expect(specs.length).toBeGreaterThan(0);
    expect(new Set(specs)).toEqual(new Set(["gvisor"]));
    expect(result(report, "provider.network-switch")).toMatchObject({ status: "skip", reason: "the provider does not declare network open" });
    expect(formatReport(report).split("\n")[0]).toContain("linux, daemon pid1, runtime gvisor");
  });

  it("refuses a runtime the provider declares nothing for, before anything is made", async () => {
    const { provider, drifted } = vendor({ networks: ["none", "open"] });
    await expect(run(provider, { drifted, runtime: "gvisor" })).rejects.toThrow(
      "--runtime gvisor: the provider's linux computers do not run under runtime gvisor (its capabilities name no such runtime)",
    );
    expect(provider.store.size).toBe(0);
  });
});

describe("isolation.vendor-agent through computerd probe", () => {
  const childVendor = (exec?: (argv: string[]) => { stdout: string } | undefined) =>
    vendor({ daemon: "child", vendorAgentPorts: [2280], ...(exec ? { exec } : {}) });
  const only = MEMORY_CASES.filter((c) => c.id === "isolation.vendor-agent" || c.group === "health");
  const targets = vendorAgentTargets([2280]);
  const probe = (line: string) => (argv: string[]) => (argv[1] === "probe" ? { stdout: `${line}\n` } : undefined);

  it("runs the probe through exec.run against the agent on both loopbacks and the outside, and passes when all are refused", async () => {
    const { provider, drifted } = childVendor();
    const report = await run(provider, { drifted, cases: only });
    expect(result(report, "isolation.vendor-agent")).toMatchObject({ level: "core", status: "pass" });
    const sent = provider.sent.find((s) => s.method === "exec.run" && (s.params as { argv: string[] }).argv[1] === "probe");
    expect((sent?.params as { argv: string[] }).argv).toEqual([
      "/opt/agentrun/computerd",
      "probe",
      "--connect",
      "127.0.0.1:2280",
      "--connect",
      "[::1]:2280",
      "--connect",
      "1.1.1.1:443",
      "--connect",
      "example.com:443",
    ]);
  });

  it("fails, naming the target, when the agent answers", async () => {
    const { provider, drifted } = childVendor(probe(probeLine(targets, { "[::1]:2280": "answered" })));
    const report = await run(provider, { drifted, cases: only });
    expect(result(report, "isolation.vendor-agent")?.reason).toBe(
      "a program of the computer reaches past its own loopback: [::1]:2280 answered (connection refused); reached: [::1]:2280",
    );
  });

  it("fails when a target accepted and sent nothing back, or an interface past lo is there", async () => {
    const { provider, drifted } = childVendor(probe(probeLine(targets, { "1.1.1.1:443": "accepted" }, ["lo", "eth0"])));
    const report = await run(provider, { drifted, cases: only });
    const reason = result(report, "isolation.vendor-agent")?.reason ?? "";
    expect(reason).toMatch(/the probe sees the interfaces lo, eth0, not lo alone/);
    expect(reason).toMatch(/1\.1\.1\.1:443 accepted/);
  });

  it("fails when the probe prints no JSON line, or leaves a target out", async () => {
    const garbled = childVendor(probe("computerd: unknown command probe"));
    expect(result(await run(garbled.provider, { drifted: garbled.drifted, cases: only }), "isolation.vendor-agent")?.reason).toMatch(
      /computerd probe printed no JSON line/,
    );
    const short = childVendor(probe(probeLine(targets.slice(1))));
    expect(result(await run(short.provider, { drifted: short.drifted, cases: only }), "isolation.vendor-agent")?.reason).toMatch(
      /127\.0\.0\.1:2280 has no result/,
    );
  });

  it("skips in words on a provider that declares no agent, as optional", async () => {
    const { provider, drifted } = vendor();
    const report = await run(provider, { drifted, cases: only });
    expect(result(report, "isolation.vendor-agent")).toMatchObject({ level: "optional", status: "skip", undeclared: ["vendor-agent"] });
  });

  it("fails as Core on a child daemon that declares no agent ports", async () => {
    const { provider, drifted } = vendor({ daemon: "child" });
    const report = await run(provider, { drifted, cases: only });
    expect(result(report, "isolation.vendor-agent")).toMatchObject({ level: "core", status: "fail" });
    expect(result(report, "isolation.vendor-agent")?.reason).toMatch(/^a linux computer with daemon child must declare vendor-agent/);
  });
});

describe("the vendor-agent rule on lines computerd probe printed (test/vectors/probe-lines.json)", () => {
  const recorded = (name: string) => {
    const found = vectors.lines.find((l) => l.name === name);
    if (!found) throw new Error(`no recorded probe line ${name}`);
    return { line: found.line, targets: found.args.filter((_, i) => found.args[i - 1] === "--connect") };
  };

  it("holds a line where both loopbacks refuse the agent's ports and lo alone is there", () => {
    const { line, targets } = recorded("own network: the vendor agent's ports on both loopbacks");
    expect(targets).toEqual(["127.0.0.1:2280", "[::1]:2280", "127.0.0.1:49983", "[::1]:49983"]);
    expect(probeProblems(line, targets)).toEqual([]);
  });

  it("names an answer, what it reached, and every interface past lo", () => {
    const { line, targets } = recorded("loopback: an HTTP answer and a DNS answer");
    const problems = probeProblems(line, targets);
    expect(problems[0]).toBe("the probe sees the interfaces docker0, eth0, lo, not lo alone");
    expect(problems).toContain(`${targets[0]} answered (an HTTP status line: HTTP/1.1 403 Forbidden)`);
    expect(problems.at(-1)).toMatch(/^reached: /);
  });

  it("refuses a target that only accepted, which network none's read-back keeps as a note", () => {
    const { line, targets } = recorded("loopback: accepted and closed with nothing back");
    expect(probeProblems(line, targets)).toContain(`accepted with no answer: ${targets[0]}`);
  });

  it("names a target the line has no result for", () => {
    const { line, targets } = recorded("own network: the vendor agent's ports on both loopbacks");
    expect(probeProblems(line, vendorAgentTargets([2280]))).toEqual(["1.1.1.1:443 has no result", "example.com:443 has no result"]);
    expect(targets).toHaveLength(4);
  });
});

describe("a case's own checks", () => {
  it("reports a CaseFailure's words and a thrown error's apart", async () => {
    const { provider } = vendor();
    const cases: ConformanceCase[] = [
      conformanceCase("health.found", "core", {}, async () => check(false, "it found this")),
      conformanceCase("health.threw", "core", {}, async () => {
        throw new Error("boom");
      }),
    ];
    const report = await run(provider, { cases });
    expect(result(report, "health.found")?.reason).toBe("it found this");
    expect(result(report, "health.threw")?.reason).toBe("the case threw: boom");
  });
});

describe("a case marked last (a browser's release of the shared computer)", () => {
  it("runs once every other case has ended, whatever the concurrency", async () => {
    const order: string[] = [];
    const slow = (id: string) =>
      conformanceCase(id, "core", {}, async (t) => {
        await t.sleep(50);
        order.push(id);
      });
    const cases = [
      conformanceCase("health.last", "core", {}, async () => void order.push("health.last"), { last: true }),
      slow("health.a"),
      slow("health.b"),
      slow("health.c"),
    ];
    const { provider } = vendor();
    await run(provider, { cases, concurrency: 4 });
    expect(order.at(-1)).toBe("health.last");
    expect(order).toHaveLength(4);
  });
});
