// The Modal provider's module, as the registry loads it: the provider class, create(options),
// MOUNT and CAPABILITIES. The modal package is loaded only when create() builds a client.
import type { MountKind } from "../contract/mount.js";

export { CAPABILITIES, ModalProvider, type ModalProviderOptions } from "./provider.js";
export { BRIDGE, ENTRYPOINT, UPLOAD, imageEntrypoint, imageLayer, modalCommands, type ModalCommands } from "./commands.js";
export { asModalSdk, isModalError, type ModalApp, type ModalImage, type ModalProcess, type ModalSandbox, type ModalSdk } from "./sdk.js";
export { COMPUTER_TAG, DEADLINE_TAG, NAME_TAG, SPEC_TAG, TIMEOUTS, type ModalTimeouts } from "./constants.js";
export { DEFAULT_SERVER_URL } from "./client.js";
export { create, driftedProvider, type ModalOptions } from "./create.js";

/** A Modal computer takes no mount. */
export const MOUNT: readonly MountKind[] = [];

/** Where the token goes. */
export const KEY_URLS: readonly string[] = ["serverUrl"];

/** Its conformance module (reads COMPUTER_MODAL_*, and AGENTRUN_COMPUTER_LIVE_MODAL). */
export const conformance = () => import("./conformance/module.js");
