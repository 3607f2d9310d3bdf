// E2B's options from a host's plain settings (the Pulumi plugin's agentrun:e2b config): apiKey and
// domain, and testSdk for the plugin's tests; the daemon is the one this package carries for amd64.
import type { E2BOptions } from "./create.js";

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
