// Reads vitest's JSON report: prints the slowest test files (where npm test's time goes, to keep
// it under its budget) on stderr, then "<passed> <failed> <skipped>" on stdout, a run with no test
// counting as one failure. A report that cannot be read prints "0 1 0".
import { readFileSync } from "node:fs";
import { relative } from "node:path";

const SHOWN = 15;
let report;
try {
  report = JSON.parse(readFileSync(process.argv[2], "utf8"));
} catch {
  console.log("0 1 0");
  process.exit(0);
}
const files = (report.testResults ?? [])
  .map((f) => ({ name: relative(process.cwd(), f.name), ms: (f.endTime ?? 0) - (f.startTime ?? 0), tests: f.assertionResults?.length ?? 0 }))
  .sort((a, b) => b.ms - a.ms);
const total = files.reduce((n, f) => n + f.ms, 0);
console.error(
  `the ${Math.min(SHOWN, files.length)} slowest of ${files.length} test files (${Math.round(total / 1000)} s of file time in all, run side by side):`,
);
for (const f of files.slice(0, SHOWN)) console.error(`${String(Math.round(f.ms / 1000)).padStart(5)} s  ${f.name} (${f.tests} tests)`);
// Skipped: a test that cannot run here (a suite whose set-up is missing) proves nothing, so the summary says how many.
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${report.numPassedTests} ${report.numFailedTests + (report.numTotalTests === 0 ? 1 : 0)} ${skipped}`);
