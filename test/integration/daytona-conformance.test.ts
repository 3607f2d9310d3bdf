// Core against the Daytona fake, through the conformance CLI by registry id, as CI runs it: the
// module reads COMPUTER_DAYTONA_API_KEY and COMPUTER_DAYTONA_API_URL, the fake's.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Fake, startFake } from "../fakes/daytona.js";
import { standinBinary } from "../support/standin.js";
import { ROOT, toolchain } from "../support/toolchain.js";

const run = promisify(execFile);
const KEY = `fake-key-${process.pid}`;
let fake: Fake;

beforeAll(async () => {
  fake = await startFake({ image: toolchain().baseImage, standin: await standinBinary(), apiKey: KEY });
}, 120_000);

afterAll(async () => {
  const left = fake ? await fake.containers() : [];
  await fake?.close();
  expect(left).toEqual([]);
}, 60_000);

it("Core passes against the fake with the conformance CLI (--provider daytona)", async () => {
  const env = { ...process.env, COMPUTER_DAYTONA_API_KEY: KEY, COMPUTER_DAYTONA_API_URL: fake.apiUrl, COMPUTER_DAYTONA_DAEMON: toolchain().daemon.amd64 };
  const ran = await run("node", [path.join(ROOT, "dist/src/conformance/cli.js"), "--provider", "daytona"], { env, cwd: ROOT, maxBuffer: 16 << 20 }).catch((error: { stdout?: string; stderr?: string; code?: number }) => error);
  const out = `${ran.stdout ?? ""}${ran.stderr ?? ""}`;
  if (process.env.DAYTONA_CONFORMANCE_OUT) writeFileSync(process.env.DAYTONA_CONFORMANCE_OUT, out);
  expect(out).toMatch(/^core PASS /m);
  expect(fake.sandboxes.size).toBe(0);
}, 900_000);
