// A phone harness story's parts: the fake service with simulated phones, a real adb server of
// the test's own, and the provider pointed at both.
import { readdirSync, readFileSync } from "node:fs";
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

/** Samples every process's argv (/proc/<pid>/cmdline) until stopped; the argvs that held a secret. */
export function watchArgv(secrets: () => string[]): { stop(): string[] } {
  const seen = new Set<string>();
  const sample = () => {
    const wanted = secrets().filter(Boolean);
    for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
      let argv = "";
      try {
        argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      } catch {
        continue;
      }
      if (wanted.some((s) => argv.includes(s))) seen.add(argv);
    }
  };
  const timer = setInterval(sample, 10);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return [...seen];
    },
  };
}
