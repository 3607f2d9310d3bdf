// The library's public surface. Vendor providers are reached through the registry
// (providers.ts), which loads each lazily, so no vendor SDK is loaded here; the Docker provider,
// which drives the docker CLI and needs no SDK, is exported as the spec's examples import it.
export * from "./protocol.js";
export * from "./client.js";
export * from "./result.js";
export * from "./provider.js";
export * from "./mount.js";
export * from "./user.js";
export * from "./files.js";
export * from "./processes.js";
export * from "./labels.js";
export * from "./lifetime.js";
export * from "./kinds.js";
export * from "./actions.js";
export * from "./wait.js";
export * from "./redact.js";
export * from "./janitor.js";
export * from "./desktop.js";
export * from "./screen-watch.js";
export * from "./pool.js";
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
export * from "./probe.js";
export * from "./providers.js";
export { DockerProvider, type DockerProviderOptions, type EgressOptions, ensureImage, type ImageSource } from "./docker/index.js";
