// E2B's options from a host's plain settings (the Pulumi plugin's agentrun:e2b config): apiKey and
// domain, and testSdk for the plugin's tests; the daemon is the one this package carries for amd64.
import { z } from "zod";
import { keySetting, secretSetting, testSetting } from "../contract/setting-marks.js";
import type { E2BOptions } from "./create.js";

/** E2B's settings as a host takes them from its user (a stack's agentrun:e2b, the CLI's --set). */
export const E2B_SETTINGS = z.strictObject({
  apiKey: keySetting("E2B_API_KEY", secretSetting(z.string().min(1).optional())),
  domain: z.string().optional(),
  /** Tests only: the Docker-backed fake's module (the Pulumi plugin refuses it unless its test flag is on). */
  testSdk: testSetting(z.string().optional(), "points the plugin at a fake of E2B"),
});

export interface E2BSettings {
  apiKey?: string;
  domain?: string;
  daemonPath?: string;
  daemonUser?: string;
  maxLifetimeMs?: number;
  testSdk?: string;
}

export function optionsFromSettings(settings: E2BSettings): E2BOptions {
  return { ...settings } as E2BOptions;
}
