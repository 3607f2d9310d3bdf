// The sweep around a live E2B run, against the Docker-backed fake: --before records, --after kills
// what came since (a computer), reports what is not this provider's as still there, and touches
// nothing older; a usage error and a missing key exit 2 with nothing killed.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { main } from "../../src/e2b/conformance/sweep.js";
import { create } from "../../src/e2b/create.js";
import { orThrow } from "../../src/daemon/result.js";
import { useE2BFake } from "../support/e2b-helpers.js";
import { toolchain } from "../support/toolchain.js";

const KEY = `e2b_sweep_${process.pid}`;
const fake = useE2BFake(KEY);
const env = { COMPUTER_E2B_API_KEY: KEY };
const opts = { apiKey: KEY, domain: "e2b.app", apiUrl: "https://api.e2b.app", debug: false as const };
// A sandbox that carries the label and is not a computer (no name), as another tool might leave.
const raw = () => fake.create("base", { ...opts, metadata: { "agentrun.computer": "1" }, timeoutMs: 600_000 });

it("kills the computers made since --before, reports another's sandbox still there, and keeps the older", async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "e2b-sweep-")), "before.json");
  const older = await raw();
  expect(await main(["--before", file], env, fake)).toMatchObject({ code: 0 });
  const provider = create({ sdk: fake, apiKey: KEY, daemonPath: toolchain().daemon.amd64, timeouts: { pollMs: 100 } });
  const computer = orThrow(await provider.create({ image: "base", kind: "linux", lifetimeMs: 600_000, network: "none" }));
  const other = await raw();
  const after = await main(["--after", file], env, fake);
  expect(after.code).toBe(1);
  expect(JSON.parse(after.out)).toEqual({ swept: 2, gone: 1, stillThere: [other.sandboxId] });
  expect(await fake.containers()).not.toContain(computer.id);
  expect(await fake.containers()).toContain(older.sandboxId);
  expect((await main(["--after"], env, fake)).code).toBe(2);
  expect(await main(["--after", file], {}, fake)).toMatchObject({ code: 2, err: expect.stringMatching(/COMPUTER_E2B_API_KEY/) });
  // What the sweep rightly left, removed by its exact id.
  for (const id of [older.sandboxId, other.sandboxId]) expect(await fake.kill(id, opts)).toBe(true);
}, 240_000);
