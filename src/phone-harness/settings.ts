// The phone harness's options from a host's plain settings (the Pulumi plugin's
// agentrun:phone-harness config): the key (a secret), the API's base, the adb CLI and its
// server's port, and the ledger's file, which a host whose processes come and go (the plugin
// is started per command) must name, so a phone made by one is found by the next.
import { z } from "zod";
import { keySetting, secretSetting } from "../contract/setting-marks.js";
import type { HostEnvironment } from "../contract/provider.js";
import { OptionError } from "../daemon/result.js";
import { adbCli } from "./adb.js";
import { fileLedger } from "./ledger.js";
import type { PhoneHarnessOptions } from "./options.js";

/** The phone harness's settings as a host takes them from its user (a stack's agentrun:phone-harness, the CLI's --set). */
export const PHONE_HARNESS_SETTINGS = z.strictObject({
  apiKey: keySetting("PHONE_HARNESS_API_KEY", secretSetting(z.string().min(1).optional())),
  baseUrl: z.string().optional(),
  ledger: z.string().optional(),
  adb: z.string().optional(),
  adbPort: z.number().int().min(1).max(65535).optional(),
});
export type PhoneHarnessSettings = z.infer<typeof PHONE_HARNESS_SETTINGS>;

export function optionsFromSettings(settings: PhoneHarnessSettings, host?: HostEnvironment): PhoneHarnessOptions {
  const { apiKey, baseUrl, ledger, adb, adbPort } = settings ?? {};
  if (!ledger) {
    throw new OptionError(
      "ledger",
      "the phone harness's ledger setting",
      " is required: the file that keeps each phone's labels, image and deadline (the phone harness keeps none), so a later run finds the phones an earlier one made",
    );
  }
  return {
    apiKey: apiKey as string,
    ...(baseUrl ? { baseUrl } : {}),
    ledger: fileLedger(ledger),
    adb: adbCli(adb ?? "adb", { ...(adbPort ? { port: adbPort } : {}), ...(host ? { env: host.env } : {}) }),
  };
}
