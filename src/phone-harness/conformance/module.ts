// The phone harness's conformance module (--provider phone-harness): a provider only with
// AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS=1 (a phone is billed by the minute), then the run's
// settings from its own COMPUTER_PHONE_HARNESS_* names, never the bare PHONE_HARNESS_API_KEY.
// A run's phones live at most 10 min; its ledger is a JSON file, so a lost create is found again.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PHONE_IMAGE } from "../constants.js";
import { adbCli } from "../adb.js";
import { create, driftedProvider } from "../create.js";
import { fileLedger } from "../ledger.js";
import type { PhoneHarnessOptions } from "../options.js";
import type { PhoneHarnessProvider } from "../provider.js";

/** Every name this module reads. */
export const ENV = [
  "AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS",
  "COMPUTER_PHONE_HARNESS_API_KEY",
  "COMPUTER_PHONE_HARNESS_PLATFORM",
  "COMPUTER_PHONE_HARNESS_ADB",
  "COMPUTER_PHONE_HARNESS_LEDGER",
] as const;

export const CONFORMANCE_MAX_LIFETIME_MS = 10 * 60_000;
const OWN = /^COMPUTER_PHONE_HARNESS_/;

/** The run's options from this module's own names; throws in words, never with a value. */
export function settingsFromEnv(env: Record<string, string | undefined>): PhoneHarnessOptions {
  if (!env.COMPUTER_PHONE_HARNESS_API_KEY) {
    throw new Error(
      `the phone harness's run needs COMPUTER_PHONE_HARNESS_API_KEY${env.PHONE_HARNESS_API_KEY ? " (PHONE_HARNESS_API_KEY is never read: set COMPUTER_PHONE_HARNESS_API_KEY to a key meant for this run)" : ""}`,
    );
  }
  const platform = env.COMPUTER_PHONE_HARNESS_PLATFORM || "android";
  if (platform !== "android" && platform !== "ios") throw new Error("COMPUTER_PHONE_HARNESS_PLATFORM is android (or ios, which is refused until it is built)");
  // adb starts from this process's environment minus this module's names: the key never reaches it.
  const adbEnv = Object.fromEntries(Object.entries(env).filter(([k]) => !OWN.test(k)));
  return {
    apiKey: env.COMPUTER_PHONE_HARNESS_API_KEY,
    platform,
    adb: adbCli(env.COMPUTER_PHONE_HARNESS_ADB || "adb", { env: adbEnv }),
    ledger: fileLedger(env.COMPUTER_PHONE_HARNESS_LEDGER || join(tmpdir(), "agentrun-phone-harness-ledger.json")),
    maxLifetimeMs: CONFORMANCE_MAX_LIFETIME_MS,
  };
}

/** Why a live run may not start, or undefined: the switch first, then the settings. */
export function liveProblem(env: Record<string, string | undefined>): string | undefined {
  if (env.AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS !== "1") {
    return "a live phone harness run needs AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS=1 (it rents phones at 5 cents a minute, on the key's account)";
  }
  try {
    settingsFromEnv(env);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function options(env: Record<string, string | undefined>): PhoneHarnessOptions {
  const problem = liveProblem(env);
  if (problem) throw new Error(problem);
  return settingsFromEnv(env);
}

export function createProvider(env: Record<string, string | undefined> = process.env): PhoneHarnessProvider {
  return create(options(env));
}

export function createDriftedProvider(env: Record<string, string | undefined> = process.env): PhoneHarnessProvider {
  return driftedProvider(options(env));
}

export function conformanceImage(): string {
  return PHONE_IMAGE;
}

export const conformanceNotes: string[] = [
  "the phone harness: every phone of the run lives at most 10 min; no fixture app (the phone harness takes no files): touch, keys and apps are read back from Settings through apps.ui_tree",
];
