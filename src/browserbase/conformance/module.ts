// Browserbase's conformance module (--provider browserbase): a provider only with
// AGENTRUN_COMPUTER_LIVE_BROWSERBASE=1, checked before anything else, then the run's settings
// from its own COMPUTER_BROWSERBASE_* names (never BROWSERBASE_API_KEY, which on a shared host may
// hold another account's key). A live run costs one session: every browser case but the first shares it.
import { liveRun } from "../../kits/browser/live.js";
import { create } from "../create.js";
import type { BrowserbaseProviderOptions } from "../options.js";
import type { BrowserbaseProvider } from "../provider.js";

/** Every name this module reads. */
export const ENV = [
  "AGENTRUN_COMPUTER_LIVE_BROWSERBASE",
  "COMPUTER_BROWSERBASE_API_KEY",
  "COMPUTER_BROWSERBASE_PROJECT_ID",
  "COMPUTER_BROWSERBASE_API_URL",
] as const;

/** The run's settings from this module's own names; throws in words, never with a value. */
export function settingsFromEnv(env: Record<string, string | undefined>): BrowserbaseProviderOptions {
  const missing = ["COMPUTER_BROWSERBASE_API_KEY", "COMPUTER_BROWSERBASE_PROJECT_ID"].filter((name) => !env[name]);
  if (missing.length > 0) {
    const bare = env.BROWSERBASE_API_KEY ? " (BROWSERBASE_API_KEY is never read: set the COMPUTER_BROWSERBASE_ names to a key meant for this run)" : "";
    throw new Error(`Browserbase's run needs ${missing.join(" and ")}${bare}`);
  }
  return {
    apiKey: env.COMPUTER_BROWSERBASE_API_KEY!,
    projectId: env.COMPUTER_BROWSERBASE_PROJECT_ID!,
    ...(env.COMPUTER_BROWSERBASE_API_URL ? { apiUrl: env.COMPUTER_BROWSERBASE_API_URL } : {}),
  };
}

const run = liveRun({ name: "Browserbase", id: "BROWSERBASE", settingsFromEnv, create });

export const { liveProblem, conformanceImage, conformanceNotes } = run;

export function createProvider(env: Record<string, string | undefined> = process.env): BrowserbaseProvider {
  return run.createProvider(env);
}
