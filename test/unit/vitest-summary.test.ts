// npm test's vitest line: the counts it adds to the summary, and the slowest files it names.
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

it("counts passed and failed, and names the slowest files first", async () => {
  const ran = await summary({
    numPassedTests: 4,
    numFailedTests: 1,
    numTotalTests: 5,
    testResults: [file("test/docker/quick.test.ts", 2_000, 1), file("test/pulumi/slow.test.ts", 95_000, 4)],
  });
  expect(ran.stdout).toBe("4 1");
  expect(ran.stderr.split("\n")).toEqual([
    "the 2 slowest of 2 test files (97 s of file time in all, run side by side):",
    "   95 s  test/pulumi/slow.test.ts (4 tests)",
    "    2 s  test/docker/quick.test.ts (1 tests)",
  ]);
});

it("counts a run with no test, or no report, as a failure", async () => {
  expect((await summary({ numPassedTests: 0, numFailedTests: 0, numTotalTests: 0, testResults: [] })).stdout).toBe("0 1");
  expect((await summary(undefined)).stdout).toBe("0 1");
});
