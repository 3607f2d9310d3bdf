// The live network diagnostic's shape, against the Docker-backed fake: refused with no live switch
// (exit 2, nothing made); with it, one sandbox made as create makes one, read back and checked,
// computerd probe --diagnose run in it, one JSON line, and the sandbox killed and read back gone.
import { expect, it } from "vitest";
import { main } from "../../src/e2b/conformance/diagnose.js";
import { useE2BFake } from "../support/e2b-helpers.js";
import { toolchain } from "../support/toolchain.js";

const KEY = `e2b_diagnose_${process.pid}`;
const fake = useE2BFake(KEY);

it("refuses without the live switch, and with it diagnoses one sandbox and leaves nothing", async () => {
  expect(await main({ COMPUTER_E2B_API_KEY: KEY }, { sdk: fake })).toMatchObject({ code: 2, err: expect.stringMatching(/AGENTRUN_COMPUTER_LIVE_E2B=1/) });
  expect(await fake.containers()).toEqual([]);
  const env = { AGENTRUN_COMPUTER_LIVE_E2B: "1", COMPUTER_E2B_API_KEY: KEY, COMPUTER_E2B_DAEMON: toolchain().daemon.amd64 };
  const ran = await main(env, { sdk: fake });
  const line = JSON.parse(ran.out);
  expect(ran.code, ran.out).toBe(0);
  expect(line).toMatchObject({ ok: true, check: "passed", gone: true, readBack: { allowInternetAccess: false, network: { allowPublicTraffic: false } } });
  // The fake's network is internal: every target the diagnosis tries reads no answer.
  expect(line.diagnosis).toMatchObject({ uid: 0, reached: [], accepted: [] });
  expect(line.diagnosis.results.length).toBeGreaterThan(0);
  expect(await fake.containers()).toEqual([]);
}, 240_000);
