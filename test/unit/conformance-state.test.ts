// The state cases on the in-memory vendor: each passes on a vendor that keeps its promise and
// fails, in words, on one that breaks it; a provider without pause or snapshot shows them skipped
// by capability; every snapshot a case takes is removed, and one that stays is left behind.
import { describe, expect, it } from "vitest";
import { stateCases } from "../../src/conformance/cases/state.js";
import { formatReport } from "../../src/conformance/format.js";
import { ConformanceReport } from "../../src/conformance/report.js";
import { runConformance } from "../../src/conformance/runner.js";
import { MemoryComputers, type MemoryOptions } from "../support/memory-computers.js";
import type { StateBreak } from "../support/memory-state.js";

const STATEFUL: MemoryOptions = { pause: "memory", snapshot: true, mount: true };

async function run(provider: MemoryComputers, only?: string[]) {
  const cases = only ? stateCases.filter((c) => only.includes(c.id)) : stateCases;
  const report = await runConformance(provider, {
    image: "memory-image",
    cases,
    mountFor: (kind) => (kind === "bind" ? provider.runFolder() : undefined),
  });
  ConformanceReport.parse(report);
  return report;
}

const verdicts = (report: ConformanceReport) => Object.fromEntries(report.results.map((r) => [r.id, r.status]));

describe("the state cases on the in-memory vendor", () => {
  it("pass on a vendor that keeps every promise, print in the Core table, and leave no computer and no snapshot", async () => {
    const provider = new MemoryComputers(STATEFUL);
    const report = await run(provider);
    expect(report.results.filter((r) => r.status !== "pass")).toEqual([]);
    expect(report.core).toBe("pass");
    expect(report.cleanup).toEqual({ left: [], errors: [], late: [] });
    expect(provider.store.size).toBe(0);
    expect(provider.state.snapshots.size).toBe(0);
    const text = formatReport(report);
    expect(text).toMatch(/^core {5}state {5}pause-keeps-memory pause-keeps-files +✓ 5$/m);
    expect(text).toMatch(/^ {19}fork-has-files forks-apart secret-left-out$/m);
  }, 30_000);

  it("are skipped by capability on a vendor with neither pause nor snapshot, as optional", async () => {
    const report = await run(new MemoryComputers({ mount: true }));
    expect(report.results.map((r) => [r.id, r.level, r.status, r.reason])).toEqual([
      ["state.pause-keeps-memory", "optional", "skip", "the provider declares no pause"],
      ["state.pause-keeps-files", "optional", "skip", "the provider declares no pause"],
      ["state.fork-has-files", "optional", "skip", "the provider declares no snapshot"],
      ["state.forks-apart", "optional", "skip", "the provider declares no snapshot"],
      ["state.secret-left-out", "optional", "skip", "the provider declares no snapshot"],
    ]);
    expect(report.undeclared).toEqual(["pause", "snapshot"]);
    expect(formatReport(report)).toMatch(/^optional state {5}pause-keeps-memory pause-keeps-files +- 5$/m);
  });

  it("skip the memory case for a pause that keeps disk, and run the files case", async () => {
    const report = await run(new MemoryComputers({ ...STATEFUL, pause: "disk" }), ["state.pause-keeps-memory", "state.pause-keeps-files"]);
    expect(report.results.map((r) => [r.id, r.status, r.reason])).toEqual([
      ["state.pause-keeps-memory", "skip", "the provider's pause keeps disk, not memory"],
      ["state.pause-keeps-files", "pass", undefined],
    ]);
  }, 20_000);

  const broken: Array<[StateBreak, string, RegExp]> = [
    [
      "pause-counts-on",
      "state.pause-keeps-memory",
      /^the counter went from \d+ to \d+ across a pause of \d+ ms, past the \d+ its \d+ ms of running give: it counted while paused$/,
    ],
    ["pause-ends-processes", "state.pause-keeps-memory", /^process\.read of the counter failed \(not_found\): no process p1$/],
    ["pause-loses-files", "state.pause-keeps-files", /^files\.read \/home\/agent\/before-pause-\w+\.txt failed \(not_found\)/],
    ["pause-reads-running", "state.pause-keeps-files", /^computer-\S+ reads back list: running while paused, not paused$/],
    [
      "fork-loses-owner",
      "state.fork-has-files",
      /^\/home\/agent\/snapshot-\w+\/notes\.txt is 0:0 644 \(owner, mode\) in the fork, not 1000:1000 640 as in the computer/,
    ],
    ["forks-share", "state.forks-apart", /^fork 0 \(computer-\S+\) sees the file fork 1 wrote: "fork 1\\n"$/],
    ["snapshot-keeps-mount", "state.secret-left-out", /^files\.stat of \/workspace\/secret\.txt in the fork answered/],
  ];
  for (const [breaks, id, words] of broken) {
    it(`fail ${id} on a vendor that breaks it (${breaks}), in words`, async () => {
      const provider = new MemoryComputers({ ...STATEFUL, breaks: [breaks] });
      const report = await run(provider, [id]);
      expect(verdicts(report)).toEqual({ [id]: "fail" });
      expect(report.results[0]!.reason).toMatch(words);
      expect(report.core).toBe("fail");
      expect(provider.store.size).toBe(0);
    }, 20_000);
  }

  it("fail cleanup, and Core, when a snapshot stays after its removal", async () => {
    const provider = new MemoryComputers({ ...STATEFUL, breaks: ["snapshot-stays"] });
    const report = await run(provider, ["state.fork-has-files"]);
    expect(verdicts(report)).toEqual({ "state.fork-has-files": "pass" });
    expect(report.cleanup.left).toEqual([
      expect.stringMatching(/^the snapshot snapshot:\/\/memory\/snap-\d+ \(state\.fork-has-files\), still read back after its removal$/),
    ]);
    expect(report.core).toBe("fail");
    expect(formatReport(report)).toMatch(/^cleanup: left behind the snapshot snapshot:\/\/memory\//m);
  }, 20_000);

  it("fail a case whose provider declares pause but gives no hooks, or hooks that keep another thing", async () => {
    const noHooks = new MemoryComputers(STATEFUL);
    Object.defineProperty(noHooks, "pause", { value: undefined });
    const report = await run(noHooks, ["state.pause-keeps-files"]);
    expect(report.results[0]!.reason).toBe("the provider declares pause memory but has no pause hooks (ComputerProvider.pause)");
    const other = new MemoryComputers(STATEFUL);
    Object.defineProperty(other, "pause", { value: { ...other.pause!, keeps: "disk" } });
    const said = await run(other, ["state.pause-keeps-files"]);
    expect(said.results[0]!.reason).toBe("its pause hooks keep disk, but its capability row says memory");
  });
});
