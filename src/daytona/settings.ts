// Daytona's options from a host's plain settings (the Pulumi plugin's agentrun:daytona config):
// apiKey, apiUrl, target and class, with the daemon this package carries for amd64.
import path from "node:path";
import { packageRoot } from "../docker/package.js";
import type { DaytonaProviderOptions } from "./options.js";

export interface DaytonaSettings {
  apiKey?: string;
  apiUrl?: string;
  target?: string;
  class?: "container" | "linux-vm";
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
