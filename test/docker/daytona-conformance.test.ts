// Core against the Daytona fake, through the conformance CLI by registry id, as CI runs it: the
// module reads COMPUTER_DAYTONA_API_KEY and COMPUTER_DAYTONA_API_URL, the fake's.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { useDaytonaFake } from "../support/daytona-helpers.js";
import { ROOT, toolchain } from "../support/toolchain.js";

const run = promisify(execFile);
const KEY = `fake-key-${process.pid}`;
const held = useDaytonaFake(KEY);

it("Core passes against the fake with the conformance CLI (--provider daytona)", async () => {
  const env = { ...process.env, COMPUTER_DAYTONA_API_KEY: KEY, COMPUTER_DAYTONA_API_URL: held.fake.apiUrl, COMPUTER_DAYTONA_DAEMON: toolchain().daemon.amd64 };
  const ran = await run("node", [path.join(ROOT, "dist/src/conformance/cli.js"), "--provider", "daytona"], { env, cwd: ROOT, maxBuffer: 16 << 20 }).catch(
    (error: { stdout?: string; stderr?: string; code?: number }) => error,
  );
  const out = `${ran.stdout ?? ""}${ran.stderr ?? ""}`;
  if (process.env.DAYTONA_CONFORMANCE_OUT) writeFileSync(process.env.DAYTONA_CONFORMANCE_OUT, out);
  expect(out).toMatch(/^core PASS /m);
  expect(held.fake.sandboxes.size).toBe(0);
}, 900_000);
