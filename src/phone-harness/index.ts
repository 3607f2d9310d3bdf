// The phone harness provider's module, as the registry loads it: the class, create(options),
// MOUNT, CAPABILITIES, and the adb transport and ledgers a host builds options from.
import type { MountKind } from "../contract/mount.js";

export { create, driftedProvider } from "./create.js";
export { CAPABILITIES, PhoneHarnessProvider } from "./provider.js";
export type { PhoneHarnessOptions } from "./options.js";
export { adbCli, type AdbTransport } from "./adb.js";
export { fileLedger, memoryLedger, type Ledger, type LedgerEntry } from "./ledger.js";
export { optionsFromSettings, type PhoneHarnessSettings } from "./settings.js";

/** A phone takes no run folder: the phone harness takes no files. */
export const MOUNT: readonly MountKind[] = [];

/** Where the key goes. */
export const KEY_URLS: readonly string[] = ["baseUrl"];

export const conformance = () => import("./conformance/module.js");
