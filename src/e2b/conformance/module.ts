// E2B's conformance module (--provider e2b): a provider only with AGENTRUN_COMPUTER_LIVE_E2B=1,
// checked before anything else, then the run's settings from its own COMPUTER_E2B_* names (never
// E2B_API_KEY, which on a shared host may hold another team's key), every computer capped at 30
// minutes (Hobby's plan caps a sandbox at 1 h).
import { SANDBOX_URL_SET } from "../client.js";
import { create, driftedProvider, type E2BOptions } from "../create.js";
import { BASE_TEMPLATE, DESKTOP_TEMPLATE } from "../constants.js";
import type { E2BProvider } from "../provider.js";
import { packagedFixture, type RunShape, settingKindOf } from "../../kits/conformance/module.js";

/** Every name this module reads. */
export const ENV = [
  "AGENTRUN_COMPUTER_LIVE_E2B",
  "COMPUTER_E2B_API_KEY",
  "COMPUTER_E2B_DOMAIN",
  "COMPUTER_E2B_DAEMON",
  "COMPUTER_E2B_KIND",
  "COMPUTER_E2B_MAX_LIFETIME_MS",
  "COMPUTER_E2B_USER",
  "COMPUTER_E2B_TEMPLATE",
  "E2B_SANDBOX_URL",
] as const;

export const CONFORMANCE_MAX_LIFETIME_MS = 30 * 60 * 1000;

export type E2BRunSettings = Pick<E2BOptions, "apiKey" | "domain" | "daemonPath" | "kind" | "maxLifetimeMs" | "daemonUser">;

/** The run's settings from this module's own names; throws in words, never with a value. */
export function settingsFromEnv(env: Record<string, string | undefined>): E2BRunSettings {
  if (env.E2B_SANDBOX_URL !== undefined) throw new Error(`E2B's run refuses to start: ${SANDBOX_URL_SET}`);
  if (!env.COMPUTER_E2B_API_KEY)
    throw new Error(
      `E2B's run needs COMPUTER_E2B_API_KEY${env.E2B_API_KEY ? " (E2B_API_KEY is never read: set COMPUTER_E2B_API_KEY to a key meant for this run)" : ""}`,
    );
  const settings: E2BRunSettings = { apiKey: env.COMPUTER_E2B_API_KEY };
  if (env.COMPUTER_E2B_DOMAIN) settings.domain = env.COMPUTER_E2B_DOMAIN;
  if (env.COMPUTER_E2B_DAEMON) settings.daemonPath = env.COMPUTER_E2B_DAEMON;
  if (env.COMPUTER_E2B_KIND) settings.kind = env.COMPUTER_E2B_KIND as E2BRunSettings["kind"];
  if (env.COMPUTER_E2B_USER) settings.daemonUser = env.COMPUTER_E2B_USER;
  if (env.COMPUTER_E2B_MAX_LIFETIME_MS) {
    const ms = Number(env.COMPUTER_E2B_MAX_LIFETIME_MS);
    if (!Number.isInteger(ms) || ms <= 0) throw new Error("COMPUTER_E2B_MAX_LIFETIME_MS is a whole number of milliseconds");
    settings.maxLifetimeMs = ms;
  }
  return settings;
}

/** Why a live run may not start, or undefined: the switch first, then the settings. */
export function liveProblem(env: Record<string, string | undefined>): string | undefined {
  if (env.AGENTRUN_COMPUTER_LIVE_E2B !== "1") return "a live E2B run needs AGENTRUN_COMPUTER_LIVE_E2B=1 (it makes sandboxes at E2B, on the key's account)";
  try {
    settingsFromEnv(env);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * The kind of the run's computers: --kind's (desktop, or sandbox for linux), else the setting's
 * (COMPUTER_E2B_KIND, which the provider holds to linux or desktop), else E2B's own, desktop.
 */
export function runKind(run: RunShape, setting?: string): string {
  const asked = run.kind !== undefined ? settingKindOf(run.kind) : undefined;
  return asked === "desktop" ? "desktop" : asked === "sandbox" ? "linux" : (setting ?? "desktop");
}

/** A run whose computers are desktops: --kind desktop, or no --kind and no kind setting but linux. */
export const isDesktopRun = (run: RunShape, setting?: string) => runKind(run, setting) === "desktop";

function options(env: Record<string, string | undefined>, run: RunShape): E2BOptions {
  const problem = liveProblem(env);
  if (problem) throw new Error(problem);
  const settings = settingsFromEnv(env);
  return {
    ...settings,
    kind: runKind(run, settings.kind),
    maxLifetimeMs: Math.min(settings.maxLifetimeMs ?? CONFORMANCE_MAX_LIFETIME_MS, CONFORMANCE_MAX_LIFETIME_MS),
  } as E2BOptions;
}

export function createProvider(env: Record<string, string | undefined> = process.env, run: RunShape = {}): E2BProvider {
  return create(options(env, run));
}

export function createDriftedProvider(env: Record<string, string | undefined> = process.env, run: RunShape = {}): E2BProvider {
  return driftedProvider(options(env, run));
}

/** COMPUTER_E2B_TEMPLATE, else E2B's desktop template for a desktop run and its base template for a linux one. */
export function conformanceImage(run: RunShape = {}, env: Record<string, string | undefined> = process.env): string {
  return env.COMPUTER_E2B_TEMPLATE || (isDesktopRun(run, env.COMPUTER_E2B_KIND) ? DESKTOP_TEMPLATE : BASE_TEMPLATE);
}

/** A desktop run's input fixture when the CLI is given none: the package's own for amd64, E2B's architecture. */
export function conformanceFixture(run: RunShape = {}, env: Record<string, string | undefined> = process.env): string | undefined {
  return isDesktopRun(run, env.COMPUTER_E2B_KIND) ? packagedFixture("amd64") : undefined;
}

export const conformanceNotes: string[] = [
  "E2B: every computer of the run is capped at 30 minutes; provider.stop expects E2B's refusal (it declares delete alone); nothing here ran against real E2B unless AGENTRUN_COMPUTER_LIVE_E2B=1",
];
