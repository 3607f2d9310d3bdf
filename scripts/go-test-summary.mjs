// Reads `go test -json` output: prints each package's result and the output of failed tests,
// then "<passed> <failed> <skipped>" (test counts) on stdout's last line. Exit 1 when a package failed.
import { readFileSync } from "node:fs";

const events = readFileSync(process.argv[2], "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const output = new Map();
let passed = 0,
  failed = 0,
  skipped = 0,
  packageFailed = false;
for (const e of events) {
  const key = `${e.Package} ${e.Test ?? ""}`;
  if (e.Action === "output") output.set(key, (output.get(key) ?? "") + e.Output);
  if (!e.Test && (e.Action === "pass" || e.Action === "fail" || e.Action === "skip")) {
    console.error(`${e.Action === "pass" ? "ok  " : e.Action === "fail" ? "FAIL" : "skip"} ${e.Package}${e.Elapsed !== undefined ? ` ${e.Elapsed}s` : ""}`);
    if (e.Action === "fail") {
      packageFailed = true;
      process.stderr.write(output.get(key) ?? "");
    }
  }
  if (e.Test && e.Action === "pass") passed++;
  if (e.Test && e.Action === "skip") skipped++;
  if (e.Test && e.Action === "fail") {
    failed++;
    process.stderr.write(output.get(key) ?? "");
  }
}
console.log(`${passed} ${failed} ${skipped}`);
process.exit(packageFailed || failed > 0 ? 1 : 0);
