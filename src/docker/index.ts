// The Docker provider as a library user imports it: the registry's module (module.ts: create,
// MOUNT, CAPABILITIES), the provider class, and what a caller or the conformance module needs
// beside them (images, the CLI, the create request and the drift check).
export { CAPABILITIES, conformance, create, driftedProvider, MOUNT } from "./module.js";
export {
  capabilitiesOfKind,
  DESKTOP_CAPABILITIES,
  type DockerImageOptions,
  DockerProvider,
  type DockerProviderOptions,
  type EgressOptions,
} from "./provider.js";
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
