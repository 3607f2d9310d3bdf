// Modal's conformance module (--provider modal): the run's settings from its own COMPUTER_MODAL_*
// names, never MODAL_TOKEN_ID or MODAL_TOKEN_SECRET (a host may hold a production token under
// them), and a provider only with AGENTRUN_COMPUTER_LIVE_MODAL=1, checked before anything else.
import { toolchainBase } from "../../package.js";
import { create, driftedProvider, type ModalOptions } from "../create.js";
import type { ModalProvider } from "../provider.js";

/** Every name this module reads. */
export const ENV = [
  "AGENTRUN_COMPUTER_LIVE_MODAL",
  "COMPUTER_MODAL_TOKEN_ID",
  "COMPUTER_MODAL_TOKEN_SECRET",
  "COMPUTER_MODAL_APP",
  "COMPUTER_MODAL_SERVER_URL",
  "COMPUTER_MODAL_DAEMON_IMAGE",
] as const;

/** A conformance run's computers live at most 30 minutes: Modal's timeout is their lifetime. */
export const CONFORMANCE_MAX_LIFETIME_MS = 30 * 60 * 1000;

export type ModalSettings = Pick<ModalOptions, "tokenId" | "tokenSecret" | "app" | "serverUrl" | "daemonImage">;

/** The run's settings from this module's own names; throws in words, never with a value, when one is missing. */
export function settingsFromEnv(env: Record<string, string | undefined>): ModalSettings & { app: string } {
  const missing = (["COMPUTER_MODAL_TOKEN_ID", "COMPUTER_MODAL_TOKEN_SECRET", "COMPUTER_MODAL_APP"] as const).filter((k) => !env[k]);
  if (missing.length > 0) {
    const bare =
      env.MODAL_TOKEN_ID || env.MODAL_TOKEN_SECRET
        ? " (MODAL_TOKEN_ID and MODAL_TOKEN_SECRET are never read: set the COMPUTER_MODAL_ pair to a token meant for this run)"
        : "";
    throw new Error(`Modal's conformance run needs ${missing.join(", ")}${bare}`);
  }
  return {
    tokenId: env.COMPUTER_MODAL_TOKEN_ID!,
    tokenSecret: env.COMPUTER_MODAL_TOKEN_SECRET!,
    app: env.COMPUTER_MODAL_APP!,
    ...(env.COMPUTER_MODAL_SERVER_URL ? { serverUrl: env.COMPUTER_MODAL_SERVER_URL } : {}),
    ...(env.COMPUTER_MODAL_DAEMON_IMAGE ? { daemonImage: env.COMPUTER_MODAL_DAEMON_IMAGE } : {}),
  };
}

/** Why a live run may not start, or undefined: the switch first, then the settings. */
export function liveProblem(env: Record<string, string | undefined>): string | undefined {
  if (env.AGENTRUN_COMPUTER_LIVE_MODAL !== "1")
    return "a live Modal run needs AGENTRUN_COMPUTER_LIVE_MODAL=1 (it makes sandboxes at Modal, on the token's account)";
  try {
    settingsFromEnv(env);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function options(env: Record<string, string | undefined>): ModalOptions {
  const problem = liveProblem(env);
  if (problem) throw new Error(problem);
  return { ...settingsFromEnv(env), maxLifetimeMs: CONFORMANCE_MAX_LIFETIME_MS };
}

export function createProvider(env: Record<string, string | undefined> = process.env): ModalProvider {
  return create(options(env));
}

/** The same provider holding its daemon to another version: every computer it makes is refused and terminated. */
export function createDriftedProvider(env: Record<string, string | undefined> = process.env): ModalProvider {
  const settings = options(env);
  return driftedProvider(settings, `${create(settings).version}-drift`);
}

/** The set-up's base image; a live run names a registry image with --image. */
export function conformanceImage(): string | undefined {
  return toolchainBase();
}

export const conformanceNotes: string[] = [
  "Core provider.stop expects Modal's refusal (it declares no stop); nothing here ran against real Modal unless AGENTRUN_COMPUTER_LIVE_MODAL=1",
];
