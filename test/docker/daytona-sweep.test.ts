// The sweep around a live run, against the fake: --before records, --after deletes what came
// since (a computer), reports what is not this provider's as still there, and touches nothing older.
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { create } from "../../src/daytona/create.js";
import { orThrow } from "../../src/daemon/result.js";
import { useDaytonaFake } from "../support/daytona-helpers.js";
import { ROOT, toolchain } from "../support/toolchain.js";

const run = promisify(execFile);
const KEY = `fake-key-sweep-${process.pid}`;
const held = useDaytonaFake(KEY);

async function sweep(...args: string[]) {
  const env = { ...process.env, COMPUTER_DAYTONA_API_KEY: KEY, COMPUTER_DAYTONA_API_URL: held.fake.apiUrl };
  return run("node", [path.join(ROOT, "dist/src/daytona/conformance/sweep.js"), ...args], { env }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

const raw = (name: string) =>
  fetch(`${held.fake.apiUrl}/sandbox`, {
    method: "POST",
    headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name, labels: { "agentrun.computer": "1" }, networkBlockAll: true, ttlMinutes: 10 }),
  }).then((r) => r.json() as Promise<{ id: string }>);

it("deletes the computers made since --before, reports another's sandbox still there, and keeps the older", async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "daytona-sweep-")), "before.json");
  const older = await raw("older-sandbox");
  expect(await sweep("--before", file)).toMatchObject({ code: 0 });
  const provider = create({ apiKey: KEY, apiUrl: held.fake.apiUrl, daemonPath: toolchain().daemon.amd64, pollMs: 100 });
  const computer = orThrow(await provider.create({ image: "default", lifetimeMs: 600_000, network: "none" }));
  const other = await raw("not-a-computer");
  const after = await sweep("--after", file);
  expect(after.code).toBe(1);
  expect(JSON.parse(after.stdout)).toEqual({ swept: 2, notFound: 1, stillThere: [other.id] });
  expect(held.fake.sandboxes.has(computer.id)).toBe(false);
  expect(held.fake.sandboxes.has(older.id)).toBe(true);
  expect((await sweep("--after")).code).toBe(2);
  // What the sweep rightly left, removed by its exact id.
  for (const { id } of [older, other]) {
    await fetch(`${held.fake.apiUrl}/sandbox/${id}`, { method: "DELETE", headers: { Authorization: `Bearer ${KEY}` } });
    for (let i = 0; i < 100 && held.fake.sandboxes.has(id); i += 1) await new Promise((r) => setTimeout(r, 100));
  }
}, 240_000);
