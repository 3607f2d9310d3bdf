// The Browserbase provider's module, as the registry loads it: the class, create(options), MOUNT,
// CAPABILITIES, and its conformance module, loaded lazily.
import type { MountKind } from "../contract/mount.js";

export { create } from "./create.js";
export { BrowserbaseProvider, CAPABILITIES } from "./provider.js";
export type { BrowserbaseProviderOptions } from "./options.js";
export type { BrowserbaseApi } from "./sdk.js";
export type { BrowserbaseSettings } from "./settings.js";
export { causeOf } from "../kits/browser/vendor.js";

/** A browser takes no run folder. */
export const MOUNT: readonly MountKind[] = [];

/** Where the key goes. */
export const KEY_URLS: readonly string[] = ["apiUrl"];

export const conformance = () => import("./conformance/module.js");
