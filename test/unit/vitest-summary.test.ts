// npm test's summary lines: the counts vitest's, go test's and pytest's reports add (passed, failed, skipped), and the slowest files.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const dir = await mkdtemp(join(tmpdir(), "agentrun-vitest-summary-"));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function summary(report: object | undefined) {
  const path = join(dir, `${Math.random()}.json`);
  if (report) await writeFile(path, JSON.stringify(report));
  return execa("node", [join(ROOT, "scripts/vitest-summary.mjs"), path], { cwd: ROOT });
}

const file = (name: string, ms: number, tests: number) => ({
  name: join(ROOT, name),
  startTime: 1_000,
  endTime: 1_000 + ms,
  assertionResults: Array(tests).fill({}),
});

it("counts passed, failed and skipped, and names the slowest files first", async () => {
  const ran = await summary({
    numPassedTests: 4,
    numFailedTests: 1,
    numPendingTests: 6,
    numTodoTests: 1,
    numTotalTests: 12,
    testResults: [file("test/docker/quick.test.ts", 2_000, 1), file("test/pulumi/slow.test.ts", 95_000, 4)],
  });
  expect(ran.stdout).toBe("4 1 7");
  expect(ran.stderr.split("\n")).toEqual([
    "the 2 slowest of 2 test files (97 s of file time in all, run side by side):",
    "   95 s  test/pulumi/slow.test.ts (4 tests)",
    "    2 s  test/docker/quick.test.ts (1 tests)",
  ]);
});

it("counts a run with no test, or no report, as a failure", async () => {
  expect((await summary({ numPassedTests: 0, numFailedTests: 0, numTotalTests: 0, testResults: [] })).stdout).toBe("0 1 0");
  expect((await summary(undefined)).stdout).toBe("0 1 0");
});

it("counts go test's skipped tests beside its passed and failed", async () => {
  const path = join(dir, "go.json");
  const events = [
    { Action: "pass", Package: "p", Test: "TestA" },
    { Action: "skip", Package: "p", Test: "TestB" },
    { Action: "fail", Package: "p", Test: "TestC" },
    { Action: "fail", Package: "p" },
  ];
  await writeFile(path, events.map((e) => JSON.stringify(e)).join("\n"));
  const ran = await execa("node", [join(ROOT, "scripts/go-test-summary.mjs"), path], { cwd: ROOT, reject: false });
  expect(ran.stdout).toBe("1 1 1");
});

it("counts pytest's JUnit report: errors as failures, skipped apart, and no test or no report as a failure", async () => {
  const report = async (xml: string | undefined) => {
    const path = join(dir, `${Math.random()}.xml`);
    if (xml !== undefined) await writeFile(path, xml);
    return (await execa("node", [join(ROOT, "scripts/pytest-summary.mjs"), path], { cwd: ROOT })).stdout;
  };
  const suite = (tests: number, failures: number, errors: number, skipped: number) =>
    `<testsuite name="pytest" errors="${errors}" failures="${failures}" skipped="${skipped}" tests="${tests}" time="1.0">`;
  expect(await report(`<?xml version="1.0"?><testsuites>${suite(7, 1, 1, 2)}<testcase/></testsuite></testsuites>`)).toBe("3 2 2");
  expect(await report(`<?xml version="1.0"?><testsuites>${suite(0, 0, 0, 0)}</testsuite></testsuites>`)).toBe("0 1 0");
  expect(await report(undefined)).toBe("0 1 0");
});
