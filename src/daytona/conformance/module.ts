// Daytona's conformance module: the run's settings from its own COMPUTER_DAYTONA_* names (never
// DAYTONA_API_KEY, which on a shared host may hold another organization's key), the provider and
// its drifted twin built through create(), every sandbox stopped after 30 idle minutes and
// deleted at its stop, and the run's snapshot.
import { create, driftedProvider } from "../create.js";
import type { DaytonaProviderOptions } from "../options.js";
import type { DaytonaProvider } from "../provider.js";
import { type DaytonaSettings, optionsFromSettings } from "../settings.js";

/** Every name this module reads. */
export const ENV = [
  "COMPUTER_DAYTONA_API_KEY",
  "COMPUTER_DAYTONA_API_URL",
  "COMPUTER_DAYTONA_DAEMON",
  "COMPUTER_DAYTONA_ARCH",
  "COMPUTER_DAYTONA_TARGET",
  "COMPUTER_DAYTONA_CLASS",
  "COMPUTER_DAYTONA_USER",
  "COMPUTER_DAYTONA_SNAPSHOT",
] as const;

export function settingsFromEnv(env: Record<string, string | undefined>): DaytonaSettings {
  const settings: DaytonaSettings = {};
  if (env.COMPUTER_DAYTONA_API_KEY) settings.apiKey = env.COMPUTER_DAYTONA_API_KEY;
  if (env.COMPUTER_DAYTONA_API_URL) settings.apiUrl = env.COMPUTER_DAYTONA_API_URL;
  if (env.COMPUTER_DAYTONA_DAEMON) settings.daemonPath = env.COMPUTER_DAYTONA_DAEMON;
  if (env.COMPUTER_DAYTONA_ARCH) settings.arch = env.COMPUTER_DAYTONA_ARCH as DaytonaSettings["arch"];
  if (env.COMPUTER_DAYTONA_TARGET) settings.target = env.COMPUTER_DAYTONA_TARGET;
  if (env.COMPUTER_DAYTONA_CLASS) settings.class = env.COMPUTER_DAYTONA_CLASS as DaytonaSettings["class"];
  if (env.COMPUTER_DAYTONA_USER) settings.daemonUser = env.COMPUTER_DAYTONA_USER;
  return settings;
}

/** A run's options: the settings, with every sandbox's life bounded besides its TTL. */
export function runOptions(settings: DaytonaSettings): DaytonaProviderOptions {
  if (!settings.apiKey) throw new TypeError("Daytona's conformance run needs COMPUTER_DAYTONA_API_KEY (DAYTONA_API_KEY is never read)");
  return { ...optionsFromSettings(settings), autoStopMinutes: 30, autoDeleteMinutes: 0 };
}

export function createProvider(settings: DaytonaSettings = settingsFromEnv(process.env)): DaytonaProvider {
  return create(runOptions(settings));
}

export function createDriftedProvider(settings: DaytonaSettings = settingsFromEnv(process.env)): DaytonaProvider {
  return driftedProvider(runOptions(settings));
}

/** COMPUTER_DAYTONA_SNAPSHOT, else Daytona's default snapshot. */
export function conformanceImage(env: Record<string, string | undefined> = process.env): string {
  return env.COMPUTER_DAYTONA_SNAPSHOT || "default";
}

export const conformanceNotes: string[] = [
  "Daytona: every sandbox of the run stops after 30 idle minutes and is deleted at its stop (autoStopMinutes 30, autoDeleteMinutes 0), so provider.stop holds stopDeletes and provider.janitor is skipped",
];
