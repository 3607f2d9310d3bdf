// The host's environment, as a host hands it to the registry (providerFromSettings' host): the
// Pulumi plugin and the agentrun CLI call this one function, so a setting a vendor's own CLI
// defaults from there (Docker's engine: DOCKER_HOST, then the docker CLI's context) defaults the
// same way under both. No provider reads the environment: this is read by the host, handed on whole,
// and only a provider's optionsFromSettings looks into it, for such a default alone.
import { homedir } from "node:os";
import type { HostEnvironment } from "./provider.js";

/** This process's environment and home. */
export function hostEnvironment(): HostEnvironment {
  return { env: process.env, home: homedir() };
}
