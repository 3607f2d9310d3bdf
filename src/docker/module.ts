// The Docker provider's module as the registry loads it (src/providers.ts): create(options), its
// options from a host's settings, MOUNT, CAPABILITIES and its conformance module. Apart from
// index.ts, whose library exports (images and their recipes, the CLI, the create request) a read
// never needs: a refresh's plugin loads this and the read-back alone (test/unit/read-loads.test.ts).
import type { MountKind } from "../contract/mount.js";
import type { Capabilities } from "../contract/provider.js";
import { CAPABILITIES as LINUX, DESKTOP_CAPABILITIES } from "./context.js";

export { create, driftedProvider } from "./create.js";
export { optionsFromSettings } from "./settings.js";

/** Its capabilities by configuration: linux, and desktop with the desktop option. */
export const CAPABILITIES: Record<string, Capabilities> = { linux: LINUX, desktop: DESKTOP_CAPABILITIES };

/** The mount kinds a Docker computer takes: a host folder bound at /workspace. */
export const MOUNT: readonly MountKind[] = ["bind"];

/** None: an engine is reached over its socket, tcp:// with TLS verified both ways, or ssh with its own keys; no key is sent. */
export const KEY_URLS: readonly string[] = [];

/** Docker's conformance module: its settings, provider, drifted provider, run folder and image. */
export const conformance = () => import("./conformance/module.js");
