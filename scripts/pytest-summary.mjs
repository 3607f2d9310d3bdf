// Reads pytest's JUnit XML report (--junitxml): prints "<passed> <failed> <skipped>" (test counts,
// errors counted as failures) on stdout, a run with no test, or a report that cannot be read,
// counting as one failure.
import { readFileSync } from "node:fs";

let xml = "";
try {
  xml = readFileSync(process.argv[2], "utf8");
} catch {
  console.log("0 1 0");
  process.exit(0);
}
let tests = 0,
  failed = 0,
  skipped = 0;
for (const [, attrs] of xml.matchAll(/<testsuite\b([^>]*)>/g)) {
  const count = (name) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(attrs)?.[1] ?? 0);
  tests += count("tests");
  failed += count("failures") + count("errors");
  skipped += count("skipped");
}
console.log(`${tests - failed - skipped} ${failed + (tests === 0 ? 1 : 0)} ${skipped}`);
