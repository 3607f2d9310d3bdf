// scripts/check-env.mjs: the Settings rule, run on src/ and on fixtures of every evasion.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const script = join(root, "scripts", "check-env.mjs");
const fixtures = join(root, "test", "fixtures", "check-env");

interface Report {
  files: string[];
  findings: Array<{ file: string; line: number; how: string; text: string }>;
}

function run(...args: string[]): { code: number; report: Report } {
  try {
    const out = execFileSync(process.execPath, [script, "--json", ...args], { encoding: "utf8" });
    return { code: 0, report: JSON.parse(out) as Report };
  } catch (error) {
    const e = error as { status: number; stdout: string };
    return { code: e.status, report: JSON.parse(e.stdout) as Report };
  }
}

describe("check-env", () => {
  it("passes on src/, having read every file outside src/conformance/ and the vendors' conformance modules", () => {
    const { code, report } = run();
    expect(report.findings).toEqual([]);
    expect(code).toBe(0);
    for (const file of ["src/daemon/client.ts", "src/daemon/protocol.ts", "src/daemon/files.ts", "src/fleet/janitor.ts", "src/contract/kinds.ts"])
      expect(report.files).toContain(file);
    expect(report.files.some((f) => f.startsWith("src/conformance/") || /^src\/[^/]+\/conformance\//.test(f))).toBe(false);
    const top = readdirSync(join(root, "src")).filter((f) => f.endsWith(".ts"));
    for (const f of top) expect(report.files).toContain(`src/${f}`);
  });

  it("finds every evasion", () => {
    const { code, report } = run("--root", join(fixtures, "evasions"));
    expect(code).toBe(1);
    const found = report.findings.map((f) => `${f.file}:${f.line} ${f.how}: ${f.text}`);
    expect(found).toEqual([
      "src/aliased.ts:2 process.env read: p.env",
      'src/bracketed.ts:1 process.env read (bracketed): process["env"]',
      "src/computed.ts:2 process read by a computed key: (process as any)[name]",
      // The hand-over is the environment whole, in its function: a variable read there, and the
      // whole handed on elsewhere, are both found.
      "src/contract/host.ts:2 process.env read: process.env",
      "src/contract/host.ts:5 process.env read: process.env",
      "src/destructured.ts:1 env destructured from process: env",
      "src/destructured.ts:2 env destructured from process: env: renamed",
      "src/dotted.ts:1 process.env read: process.env",
      "src/global-this.ts:1 process.env read: globalThis.process.env",
      'src/global-this.ts:2 process.env read: globalThis["process"].env',
      "src/handed-on.ts:4 process handed on, where its env can be read: process",
      // The exception is its variable in its function: the right function with another
      // variable, and the right variable in another function, are both found.
      "src/modal/client.ts:2 process.env read: process.env",
      "src/modal/client.ts:5 process.env read: process.env",
      "src/modal/client.ts:8 process.env read: process.env",
      'src/nested/runtime.ts:1 node:process loaded at run time: import("node:process")',
      "src/node-process.ts:3 env imported from node:process: env",
      "src/node-process.ts:4 process.env read: proc.env",
      "src/node-process.ts:4 process.env read: all.env",
    ]);
  });

  it("allows its exceptions, each by variable (or a prefix_*, in its one function), file and function, the host's hand-over, and skips src/conformance/ and src/<vendor>/conformance/", () => {
    const { code, report } = run("--root", join(fixtures, "clean"));
    expect(report).toEqual({ files: ["src/contract/host.ts", "src/e2b/client.ts", "src/modal/client.ts"], findings: [] });
    expect(code).toBe(0);
  });

  it("refuses an unknown argument as a usage error", () => {
    let status = 0;
    try {
      execFileSync(process.execPath, [script, "--nope"], { stdio: "pipe" });
    } catch (error) {
      status = (error as { status: number }).status;
    }
    expect(status).toBe(2);
  });
});
