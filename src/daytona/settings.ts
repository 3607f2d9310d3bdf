// Daytona's options from a host's plain settings (the Pulumi plugin's agentrun:daytona config):
// apiKey, apiUrl, target and class, with the daemon this package carries for amd64.
import path from "node:path";
import { z } from "zod";
import { packageRoot } from "../package.js";
import { keySetting, secretSetting } from "../contract/setting-marks.js";
import type { DaytonaProviderOptions } from "./options.js";

/** Daytona's settings as a host takes them from its user (a stack's agentrun:daytona, the CLI's --set). */
export const DAYTONA_SETTINGS = z.strictObject({
  apiKey: keySetting("DAYTONA_API_KEY", secretSetting(z.string().min(1).optional())),
  apiUrl: keySetting("DAYTONA_API_URL", z.string().optional()),
  target: keySetting("DAYTONA_TARGET", z.string().optional()),
  class: z.enum(["container", "linux-vm"]).optional(),
});

/** What optionsFromSettings maps: a host's settings, and the daemon's source the conformance run names. */
export interface DaytonaSettings extends z.infer<typeof DAYTONA_SETTINGS> {
  daemonPath?: string;
  arch?: "amd64" | "arm64";
  daemonUser?: string;
}

export function optionsFromSettings(settings: DaytonaSettings): DaytonaProviderOptions {
  const { class: sandboxClass, arch = "amd64", ...rest } = settings;
  return {
    daemonPath: path.join(packageRoot(), "dist", `computerd-linux-${arch}`),
    ...rest,
    arch,
    ...(sandboxClass ? { sandboxClass } : {}),
  } as DaytonaProviderOptions;
}
