// The E2B provider's module, as the registry loads it: the class, create(options), MOUNT,
// CAPABILITIES, optionsFromSettings, and its conformance module, loaded lazily. The e2b package
// is loaded only when the first call needs it.
import type { MountKind } from "../contract/mount.js";

export { create, driftedProvider, type E2BOptions } from "./create.js";
export { CAPABILITIES, E2BProvider } from "./provider.js";
export type { E2BProviderOptions } from "./options.js";
export { asE2BSandboxClass, type E2BCommandHandle, type E2BPaginator, type E2BSandbox, type E2BSandboxClass } from "./sdk.js";
export { type E2BSettings, optionsFromSettings } from "./settings.js";

/** An E2B computer takes no run folder yet. */
export const MOUNT: readonly MountKind[] = [];

/** Where the key goes (unset, https://api.<domain> and the sandboxes' own https addresses). */
export const KEY_URLS: readonly string[] = ["apiUrl", "sandboxUrl"];

export const conformance = () => import("./conformance/module.js");
