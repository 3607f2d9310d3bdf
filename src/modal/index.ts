// The Modal provider's module, as the registry loads it: the provider class, create(options),
// MOUNT and CAPABILITIES. The modal package is loaded only when create() builds a client.
import type { MountKind } from "../mount.js";
import { modalClient } from "./client.js";
import { ModalProvider, type ModalProviderOptions } from "./provider.js";
import type { ModalSdk } from "./sdk.js";

export { CAPABILITIES, ModalProvider, type ModalProviderOptions } from "./provider.js";
export { BRIDGE, ENTRYPOINT, UPLOAD, imageEntrypoint, imageLayer, modalCommands, type ModalCommands } from "./commands.js";
export { asModalSdk, isModalError, type ModalApp, type ModalImage, type ModalProcess, type ModalSandbox, type ModalSdk } from "./sdk.js";
export { COMPUTER_TAG, DEADLINE_TAG, NAME_TAG, SPEC_TAG, TIMEOUTS, type ModalTimeouts } from "./constants.js";
export { DEFAULT_SERVER_URL } from "./client.js";

/** A Modal computer takes no mount. */
export const MOUNT: readonly MountKind[] = [];

export interface ModalOptions extends Omit<ModalProviderOptions, "sdk"> {
  /** The token, passed to ModalClient explicitly: MODAL_TOKEN_ID and MODAL_TOKEN_SECRET are never used. */
  tokenId?: string;
  tokenSecret?: string;
  /** Where the token goes (default https://api.modal.com:443). */
  serverUrl?: string;
  /** A client already made (a test's fake); then no token is taken. */
  sdk?: ModalSdk;
}

/** The provider from its options alone; a missing app or token throws in words that never hold the token. */
export function create(options: ModalOptions): ModalProvider {
  if (typeof options?.app !== "string" || options.app.length === 0) throw new TypeError("the Modal provider needs app: the name of the Modal app its sandboxes are made in");
  const { tokenId, tokenSecret, serverUrl, sdk, ...rest } = options;
  // With daemonImage the daemon comes from that image, and nothing is uploaded.
  const { daemonPath, ...others } = rest;
  const provider = { ...others, ...(rest.daemonImage ? {} : daemonPath ? { daemonPath } : {}) };
  if (sdk) return new ModalProvider({ ...provider, sdk });
  const client = modalClient({
    tokenId: tokenId ?? "",
    tokenSecret: tokenSecret ?? "",
    ...(rest.environment ? { environment: rest.environment } : {}),
    ...(serverUrl ? { serverUrl } : {}),
  });
  return new ModalProvider({ ...provider, sdk: client });
}

/** The drifted provider of the conformance suite: hello's version is held to another. */
export function driftedProvider(options: ModalOptions, version: string): ModalProvider {
  return create({ ...options, version });
}

/** Its conformance module (reads COMPUTER_MODAL_*, and AGENTRUN_COMPUTER_LIVE_MODAL). */
export const conformance = () => import("./conformance.js");
