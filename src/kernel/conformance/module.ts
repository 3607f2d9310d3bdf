// Kernel's conformance module (--provider kernel): a provider only with
// AGENTRUN_COMPUTER_LIVE_KERNEL=1, checked before anything else, then the run's settings from its
// own COMPUTER_KERNEL_* names (never KERNEL_API_KEY). A live run costs one browser.
import { liveRun } from "../../kits/browser/live.js";
import { create } from "../create.js";
import type { KernelProviderOptions } from "../options.js";
import type { KernelProvider } from "../provider.js";

/** Every name this module reads. */
export const ENV = ["AGENTRUN_COMPUTER_LIVE_KERNEL", "COMPUTER_KERNEL_API_KEY", "COMPUTER_KERNEL_API_URL"] as const;

/** The run's settings from this module's own names; throws in words, never with a value. */
export function settingsFromEnv(env: Record<string, string | undefined>): KernelProviderOptions {
  if (!env.COMPUTER_KERNEL_API_KEY) {
    const bare = env.KERNEL_API_KEY ? " (KERNEL_API_KEY is never read: set COMPUTER_KERNEL_API_KEY to a key meant for this run)" : "";
    throw new Error(`Kernel's run needs COMPUTER_KERNEL_API_KEY${bare}`);
  }
  return { apiKey: env.COMPUTER_KERNEL_API_KEY, ...(env.COMPUTER_KERNEL_API_URL ? { apiUrl: env.COMPUTER_KERNEL_API_URL } : {}) };
}

const run = liveRun({ name: "Kernel", id: "KERNEL", settingsFromEnv, create });

export const { liveProblem, conformanceImage, conformanceNotes } = run;

export function createProvider(env: Record<string, string | undefined> = process.env): KernelProvider {
  return run.createProvider(env);
}
