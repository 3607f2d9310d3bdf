// kind desktop against the E2B provider on the Docker-backed fake, through the conformance CLI, as
// CI runs it: the fake's module (dist/test/support/fake-e2b-conformance.js) with this file's own run
// label, by which every container and the network it made are removed after, pass or fail. Core
// runs at the wire instead (e2b-wire in scripts/test.sh: the real SDK against test/support/e2b-wire/).
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { E2BDockerFake } from "../support/fake-e2b-docker.js";
import { standinBinary } from "../support/standin.js";
import { ROOT } from "../support/toolchain.js";

const run = promisify(execFile);
const label = `conformance-${randomBytes(6).toString("hex")}`;
const fake = new E2BDockerFake({ run: label });

beforeAll(async () => {
  await standinBinary();
}, 120_000);

afterAll(async () => {
  await fake.remove();
}, 60_000);

/** The CLI on the fake's module with argv, its words kept where CI reads them; nothing of the fake is left after. */
async function conformance(argv: string[], verdict: RegExp) {
  const env = { ...process.env, AGENTRUN_E2B_FAKE_RUN: label };
  const module = path.join(ROOT, "dist/test/support/fake-e2b-conformance.js");
  const ran = await run("node", [path.join(ROOT, "dist/src/conformance/cli.js"), "--provider", module, ...argv], {
    env,
    cwd: ROOT,
    maxBuffer: 16 << 20,
  }).catch((error: { stdout?: string; stderr?: string }) => error);
  const out = `${ran.stdout ?? ""}${ran.stderr ?? ""}`;
  if (process.env.E2B_CONFORMANCE_OUT) writeFileSync(process.env.E2B_CONFORMANCE_OUT, out);
  expect(out).toMatch(verdict);
  expect(await fake.containers()).toEqual([]);
}

// The desktop run's template is Docker's desktop image (Xvfb on the set-up's base); its input
// cases use the package's own fixture, as the CLI takes it when --fixture names none.
it("kind desktop passes against the E2B fake with the conformance CLI", () => conformance(["--kind", "desktop"], /^kind desktop PASS$/m), 900_000);
