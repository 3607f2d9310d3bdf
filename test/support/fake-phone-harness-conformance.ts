// The conformance module of the phone harness provider on the fake service, whose phones are
// simulated Android devices behind a real adb server of the run's own (test only):
// npm run conformance -- --provider ./dist/test/support/fake-phone-harness-conformance.js --kind phone
// The adb server is killed and the fake's phones ended when the process exits. The fixture app is
// the set-up's (scripts/build-phone-fixture.sh), installed from its folder.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { adbCli } from "../../src/phone-harness/adb.js";
import { CONCURRENCY } from "../../src/conformance/run-state.js";
import { CONFORMANCE_MAX_LIFETIME_MS } from "../../src/phone-harness/conformance/module.js";
import { create, driftedProvider } from "../../src/phone-harness/create.js";
import { fileLedger } from "../../src/phone-harness/ledger.js";
import type { PhoneHarnessOptions } from "../../src/phone-harness/options.js";
import type { PhoneHarnessProvider } from "../../src/phone-harness/provider.js";
import { startFakePhoneHarness } from "./fake-phone-harness.js";
import { adbServer } from "./phone-adb.js";

export const ENV = [] as const;
export const fake = await startFakePhoneHarness();
// The suite runs CONCURRENCY cases beside each other, a case holding up to four phones of its own
// (provider.release-older) beside the shared one: a limit of 12 was reached on an idle host and
// went past on a loaded one, where released sessions end later.
fake.sessionLimit = 1 + CONCURRENCY * 4;
const adb = await adbServer();
process.on("exit", () => {
  try {
    execFileSync("adb", ["-P", String(adb.port), "kill-server"], { env: adb.env, stdio: "ignore", timeout: 5000 });
  } catch {
    // already gone
  }
});
/** dist/phone-fixture/agentrun-fixture.apk, beside this module's dist/test/. */
const FIXTURE = fileURLToPath(new URL("../../phone-fixture/agentrun-fixture.apk", import.meta.url));
const ledger = fileLedger(join(mkdtempSync(join(tmpdir(), "phone-conformance-")), "ledger.json"));
const options = (): PhoneHarnessOptions => ({
  apiKey: fake.key,
  baseUrl: fake.url,
  adb: adbCli("adb", { port: adb.port, env: adb.env }),
  ledger,
  installFrom: dirname(FIXTURE),
  maxLifetimeMs: CONFORMANCE_MAX_LIFETIME_MS,
});

export function createProvider(): PhoneHarnessProvider {
  return create(options());
}

export function createDriftedProvider(): PhoneHarnessProvider {
  return driftedProvider(options());
}

export function conformanceFixture(): string {
  return FIXTURE;
}

export function conformanceImage(): string {
  return "android";
}

export const conformanceNotes: string[] = [
  "the phone harness on its fake: each phone a simulated Android device (test/support/phone-sim) reached through the real adb server",
];
