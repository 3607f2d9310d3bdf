// Docker's options from a host's plain settings (the Pulumi plugin's agentrun:docker config):
// the daemon this package carries for this machine's architecture unless one is named, and an
// image named by its tag. The registry (providerFromSettings) calls it, so no host knows Docker.
import { arch } from "node:os";
import path from "node:path";
import { packageRoot } from "./package.js";
import type { DockerProviderOptions } from "./provider.js";

export interface DockerSettings {
  user?: string;
  /** An image's tag; unset, the provider's own recipe. */
  image?: string;
  daemonPath?: string;
  daemonCache?: string;
}

// The daemons this package carries, by the architecture Go names.
const GOARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };

/** The daemon this package carries for this machine: a local Docker engine runs this host's arch. */
export function packagedDaemon(): string {
  return path.join(packageRoot(), "dist", `computerd-linux-${GOARCH[arch()] ?? arch()}`);
}

export function optionsFromSettings(settings: DockerSettings): DockerProviderOptions {
  const { image, ...rest } = settings;
  return { daemonPath: packagedDaemon(), ...rest, ...(image ? { image: { image } } : {}) };
}
