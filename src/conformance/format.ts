// formatReport: the report as a person reads it. One line per level and group with its cases and
// marks, each failure and skip under its line with what the case found, the run's notes, and the
// verdict line last (then the kind's, when one was asked).
import { CASE_GROUPS, LEVELS } from "./case.js";
import type { CaseResult, ConformanceReport } from "./report.js";

const NAMES_WIDTH = 44;
const INDENT = " ".repeat(19);

function wrap(names: string[]): string[] {
  const lines: string[] = [];
  let line = "";
  for (const name of names) {
    if (line && line.length + 1 + name.length > NAMES_WIDTH) {
      lines.push(line);
      line = name;
    } else line = line ? `${line} ${name}` : name;
  }
  lines.push(line);
  return lines;
}

function marks(results: CaseResult[]): string {
  const count = (status: CaseResult["status"]) => results.filter((r) => r.status === status).length;
  const parts: string[] = [];
  if (count("pass")) parts.push(`✓ ${count("pass")}`);
  if (count("fail")) parts.push(`✗ ${count("fail")}`);
  if (count("skip")) parts.push(`- ${count("skip")}`);
  return parts.join(" ");
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The verdict line: core's, the optional skips, full's count, and what was not declared. */
export function verdictLine(report: ConformanceReport): string {
  const core = report.results.filter((r) => r.level === "core");
  const passed = core.filter((r) => r.status === "pass").length;
  const parts = [`core ${report.core.toUpperCase()} ${passed}/${core.length}`];
  if (report.coreNotRun?.length) parts.push(`${plural(report.coreNotRun.length, "Core case")} not run`);
  const optional = report.results.filter((r) => r.level === "optional" && r.status === "skip").length;
  if (optional > 0) parts.push(`${plural(optional, "optional case")} skipped, not declared`);
  const full = report.results.filter((r) => r.level === "full");
  if (full.length > 0) parts.push(`full ${full.filter((r) => r.status === "pass").length}/${full.length}`);
  if (report.undeclared.length > 0) parts.push(`${report.undeclared.join(" ")} not declared`);
  return parts.join(" · ");
}

export function formatReport(report: ConformanceReport): string {
  const daemon = report.daemon ? `computerd ${report.daemon.version} ${report.daemon.os}/${report.daemon.arch}` : "no daemon answered";
  const out = [
    `computer conformance · ${report.provider} · ${report.kind}, daemon ${report.daemonMode}${report.runtime ? `, runtime ${report.runtime}` : ""} · ${daemon}`,
  ];
  for (const level of LEVELS) {
    for (const group of CASE_GROUPS) {
      const results = report.results.filter((r) => r.level === level && r.group === group);
      if (results.length === 0) continue;
      const [first, ...rest] = wrap(results.map((r) => r.id.slice(group.length + 1)));
      out.push(`${level.padEnd(8)} ${group.padEnd(9)} ${first!.padEnd(NAMES_WIDTH)} ${marks(results)}`);
      for (const line of rest) out.push(`${INDENT}${line}`);
      for (const r of results) {
        if (r.status === "fail") out.push(`  ✗ ${r.id}: ${r.reason ?? "failed"}`);
        else if (r.status === "skip") out.push(`  - ${r.id}: ${r.reason ?? "skipped"}`);
      }
    }
  }
  if (report.coreNotRun?.length) out.push(`core not run: ${report.coreNotRun.join(" ")}`);
  const { left, errors, late } = report.cleanup;
  for (const name of left) out.push(`cleanup: left behind ${name}`);
  for (const words of errors) out.push(`cleanup: ${words}`);
  for (const words of late) out.push(`cleanup: late ${words}`);
  for (const note of report.notes ?? []) out.push(`note: ${note}`);
  for (const { computer, note } of report.computerNotes ?? []) out.push(`note ${computer}: ${note}`);
  out.push(verdictLine(report));
  const kind = report.kindVerdict;
  if (kind) out.push(kind.verdict === "pass" ? `kind ${kind.kind} PASS` : `kind ${kind.kind} FAIL: ${kind.reasons.join("; ")}`);
  return `${out.join("\n")}\n`;
}
