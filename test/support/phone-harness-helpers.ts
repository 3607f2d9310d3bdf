// A phone harness story's parts: the fake service with simulated phones, a real adb server of
// the test's own, and the provider pointed at both.
import { adbCli } from "../../src/phone-harness/adb.js";
import { create, type PhoneHarnessOptions } from "../../src/phone-harness/index.js";
import { startFakePhoneHarness, type FakePhoneHarness } from "./fake-phone-harness.js";
import { adbServer, type AdbServer } from "./phone-adb.js";

export interface PhoneStand {
  fake: FakePhoneHarness;
  adb: AdbServer;
  provider(extra?: Partial<PhoneHarnessOptions>): ReturnType<typeof create>;
  close(): Promise<void>;
}

export async function phoneStand(): Promise<PhoneStand> {
  const fake = await startFakePhoneHarness();
  const adb = await adbServer();
  return {
    fake,
    adb,
    provider: (extra = {}) =>
      create({ apiKey: fake.key, baseUrl: fake.url, adb: adbCli("adb", { port: adb.port, env: adb.env }), requestMs: 5_000, readyMs: 20_000, ...extra }),
    close: async () => {
      await adb.stop();
      await fake.close();
    },
  };
}

export const PHONE_SPEC = { image: "android", lifetimeMs: 5 * 60_000, network: "open" as const, labels: { story: "phone" } };
