// The Daytona provider's module, as the registry loads it: the class, create(options), MOUNT,
// CAPABILITIES, optionsFromSettings, and its conformance module, loaded lazily.
import type { MountKind } from "../contract/mount.js";

export { create, driftedProvider } from "./create.js";
export { CAPABILITIES, DaytonaProvider } from "./provider.js";
export type { DaytonaProviderOptions } from "./options.js";
export { type DaytonaSettings, optionsFromSettings } from "./settings.js";

/** A Daytona computer takes no run folder. */
export const MOUNT: readonly MountKind[] = [];

/** Where the key goes (and the toolbox URL each sandbox reports, held to the same rule). */
export const KEY_URLS: readonly string[] = ["apiUrl"];

export const conformance = () => import("./conformance/module.js");
