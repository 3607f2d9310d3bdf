// Docker's options from a host's plain settings (the Pulumi plugin's agentrun:docker config):
// the daemon this package carries for this machine's architecture unless one is named, an image
// named by its tag, and the engine: the one named, else (when the host hands its environment in)
// the one the docker CLI would use there. The registry (providerFromSettings) calls it, so no host
// knows Docker.
import { arch } from "node:os";
import path from "node:path";
import { z } from "zod";
import type { HostEnvironment } from "../contract/provider.js";
import { resolveEngine } from "./engine.js";
import { packageRoot } from "../package.js";
import { CREATE_STEPS, pauseAt } from "./pause.js";
import type { DockerProviderOptions } from "./provider.js";

/** Docker's settings as a host takes them from its user (a stack's agentrun:docker, the CLI's --set). */
export const DOCKER_SETTINGS = z.strictObject({
  user: z.string().optional(),
  /** An image's tag; unset, the provider's own recipe. */
  image: z.string().optional(),
  daemonPath: z.string().optional(),
  daemonCache: z.string().optional(),
  /** The engine's unix socket (unix:///path); unset, the docker CLI's choice in the host's environment. */
  engine: z.string().optional(),
  /** An allowlist's egress proxy: the Docker host's own addresses (required in a container) and the refusals' hint. */
  egress: z.strictObject({ hostAddresses: z.array(z.string()).optional(), hint: z.string().optional() }).optional(),
  /** Desktops by default: the display, the X server's argv and how long create waits for it. */
  desktop: z
    .strictObject({ display: z.string().optional(), server: z.array(z.string()).optional(), timeoutMs: z.number().int().positive().optional() })
    .optional(),
  /** Tests only (the plugin refuses it unless its test flag is on): hold a create at a step. */
  testPause: z.strictObject({ at: z.enum(CREATE_STEPS), file: z.string().min(1) }).optional(),
  /** Tests only: the folder the container signs are read under, so a plugin in a container can be a plain host's. */
  testHostRoot: z.string().min(1).optional(),
});
export type DockerSettings = z.infer<typeof DOCKER_SETTINGS>;

// The daemons this package carries, by the architecture Go names.
const GOARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };

/** The daemon this package carries for this machine: a local Docker engine runs this host's arch. */
export function packagedDaemon(): string {
  return path.join(packageRoot(), "dist", `computerd-linux-${GOARCH[arch()] ?? arch()}`);
}

/** The options; an engine the CLI's choice names but the provider cannot reach (ssh, TCP) throws in words. */
export function optionsFromSettings(settings: DockerSettings, host?: HostEnvironment): DockerProviderOptions {
  const { image, engine, testPause, testHostRoot, ...rest } = settings;
  const options: DockerProviderOptions = {
    daemonPath: packagedDaemon(),
    ...rest,
    ...(image ? { image: { image } } : {}),
    ...(testPause ? { pause: pauseAt(testPause.at, testPause.file) } : {}),
    ...(testHostRoot ? { egress: { ...rest.egress, hostRoot: testHostRoot } } : {}),
  };
  if (engine !== undefined) return { ...options, engine };
  if (!host) return options;
  const found = resolveEngine(host);
  if (!found.ok) throw new TypeError(found.error.message, { cause: found.error });
  return { ...options, engine: found.value };
}
