// The Docker provider's module, as the registry loads it: the provider class, create(options),
// MOUNT and CAPABILITIES, and what a caller or the conformance module needs beside them.
import type { MountKind } from "../contract/mount.js";
import type { Capabilities } from "../contract/provider.js";
import { CAPABILITIES as LINUX, DESKTOP_CAPABILITIES } from "./provider.js";

export { create, driftedProvider } from "./create.js";
export {
  capabilitiesOfKind,
  DESKTOP_CAPABILITIES,
  type DockerImageOptions,
  DockerProvider,
  type DockerProviderOptions,
  type EgressOptions,
} from "./provider.js";

/** Its capabilities by configuration: linux, and desktop with the desktop option. */
export const CAPABILITIES: Record<string, Capabilities> = { linux: LINUX, desktop: DESKTOP_CAPABILITIES };
export { type Asked, DockerEngine, type Reply } from "./api.js";
export { DockerCli } from "./cli.js";
export { openConnection } from "./connect.js";
export { createRequest, type CreateRequest } from "./create-request.js";
export { DEFAULT_ENGINE, type EngineAddress, engineAt, resolveEngine } from "./engine.js";
export { type Plan, planOf } from "./plan.js";
export { drift, type DriftExpected, helloDrift, inspectDrift } from "./drift.js";
export { type DockerInfo, type Host, hostOf } from "./host.js";
export {
  DESKTOP_RECIPE_HAS,
  desktopRecipe,
  DOCKER_RECIPE_HAS,
  dockerRecipe,
  ensureImage,
  type EnsureOptions,
  IMAGE_TIMEOUT_MS,
  type ImageSource,
  RECIPE_LABEL,
  recipeHash,
  recipeTag,
} from "./image.js";
export { type BaseChoice, DOCKER_BASE } from "./default-image.js";
export { type DockerSettings, optionsFromSettings, packagedDaemon } from "./settings.js";
export { deadlineOf, type Inspected, mountOf, networkOf, specOf } from "./readback.js";
export { COMPUTER_LABEL, DEADLINE_LABEL } from "./constants.js";

/** The mount kinds a Docker computer takes: a host folder bound at /workspace. */
export const MOUNT: readonly MountKind[] = ["bind"];

/** Docker's conformance module: its settings, provider, drifted provider, run folder and image. */
export const conformance = () => import("./conformance/module.js");
