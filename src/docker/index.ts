// The Docker provider's module, as the registry loads it: the provider class, create(options),
// MOUNT and CAPABILITIES, and what a caller or the conformance module needs beside them.
import type { MountKind } from "../mount.js";
import { DockerProvider, type DockerProviderOptions } from "./provider.js";

export { CAPABILITIES, DockerProvider, type DockerProviderOptions } from "./provider.js";
export { type Asked, DockerEngine, type Reply } from "./api.js";
export { DockerCli } from "./cli.js";
export { openConnection } from "./connect.js";
export { createRequest, type CreateRequest } from "./create-request.js";
export { DEFAULT_ENGINE, type EngineAddress, engineAt, resolveEngine } from "./engine.js";
export { type Plan, planOf } from "./plan.js";
export { drift, type DriftExpected, helloDrift, inspectDrift } from "./drift.js";
export { type DockerInfo, type Host, hostOf } from "./host.js";
export {
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
export { type DockerSettings, optionsFromSettings, packagedDaemon } from "./settings.js";
export { deadlineOf, type Inspected, mountOf, networkOf, specOf } from "./readback.js";
export { COMPUTER_LABEL, DEADLINE_LABEL } from "./constants.js";

/** The mount kinds a Docker computer takes: a host folder bound at /workspace. */
export const MOUNT: readonly MountKind[] = ["bind"];

/**
 * The conformance suite's drifted provider: the same provider, holding its daemon to another
 * version than the one the daemon reports, so every computer it makes is refused and deleted
 * at create, and connect refuses every computer.
 */
export function driftedProvider(options: DockerProviderOptions): DockerProvider {
  const probe = new DockerProvider(options);
  return new DockerProvider({ ...options, version: `${probe.version}-drifted` });
}

/** The provider from its options alone; a missing or wrong option throws in words. */
export function create(options: DockerProviderOptions): DockerProvider {
  return new DockerProvider(options);
}
