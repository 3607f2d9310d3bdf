// The library's public surface. Vendor providers are reached through the registry
// (providers.ts), which loads each lazily, so no vendor SDK is loaded here; the Docker provider,
// which drives the docker CLI and needs no SDK, is exported as the spec's examples import it.
export * from "./daemon/protocol.js";
export * from "./daemon/client.js";
export * from "./vendor/result.js";
export * from "./vendor/provider.js";
export * from "./vendor/mount.js";
export * from "./vendor/user.js";
export * from "./daemon/files.js";
export * from "./daemon/processes.js";
export * from "./vendor/labels.js";
export * from "./vendor/lifetime.js";
export * from "./vendor/kinds.js";
export * from "./daemon/actions.js";
export * from "./vendor/wait.js";
export * from "./vendor/redact.js";
export * from "./fleet/janitor.js";
export * from "./daemon/desktop.js";
export * from "./daemon/screen-watch.js";
export * from "./fleet/pool.js";
export {
  checkAllowlist,
  checkTestNetwork,
  DEFAULT_HINT,
  EGRESS_PORTS,
  hintProblem,
  MAX_HINT,
  MAX_EACH as ALLOWLIST_MAX_EACH,
  ALLOW_REFUSAL_KINDS,
  type AllowRefusal,
  type AllowRefusalKind,
  type AllowlistCheck,
} from "./egress/list.js";
export * from "./vendor/probe.js";
export * from "./providers.js";
export { DockerProvider, type DockerProviderOptions, type EgressOptions, ensureImage, type ImageSource } from "./docker/index.js";
