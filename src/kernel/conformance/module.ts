// Kernel's conformance module (--provider kernel): a provider only with
// AGENTRUN_COMPUTER_LIVE_KERNEL=1, checked before anything else, then the run's settings from its
// own COMPUTER_KERNEL_* names (never KERNEL_API_KEY). A live run costs one browser.
import { BROWSER_IMAGE } from "../../contract/kinds.js";
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

/** Why a live run may not start, or undefined: the switch first, then the settings. */
export function liveProblem(env: Record<string, string | undefined>): string | undefined {
  if (env.AGENTRUN_COMPUTER_LIVE_KERNEL !== "1")
    return "a live Kernel run needs AGENTRUN_COMPUTER_LIVE_KERNEL=1 (it makes a browser at Kernel, on the key's account)";
  try {
    settingsFromEnv(env);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

export function createProvider(env: Record<string, string | undefined> = process.env): KernelProvider {
  const problem = liveProblem(env);
  if (problem) throw new Error(problem);
  return create(settingsFromEnv(env));
}

export function conformanceImage(): string {
  return BROWSER_IMAGE;
}

export const conformanceNotes: string[] = [
  "Kernel: one browser for the run (every browser case but the first shares it); nothing here ran against real Kernel unless AGENTRUN_COMPUTER_LIVE_KERNEL=1",
];
