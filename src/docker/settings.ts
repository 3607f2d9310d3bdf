// Docker's options from a host's plain settings (the Pulumi plugin's agentrun:docker config):
// the daemon this package carries for this machine's architecture unless one is named, an image
// named by its tag, and the engine: the one named, else (when the host hands its environment in)
// the one the docker CLI would use there. The registry (providerFromSettings) calls it, so no host
// knows Docker.
import { arch, homedir } from "node:os";
import path from "node:path";
import { z } from "zod";
import type { HostEnvironment } from "../contract/provider.js";
import { fail, type Result } from "../daemon/result.js";
import { contextEngine, type EngineAddress, engineAt, resolveEngine, tlsIn } from "./engine.js";
import { packageRoot } from "../package.js";
import { testSetting } from "../contract/setting-marks.js";
import { CREATE_STEPS, pauseAt, STATE_STEPS } from "./pause.js";
import type { DockerProviderOptions } from "./provider.js";

/** Docker's settings as a host takes them from its user (a stack's agentrun:docker, the CLI's --set). */
export const DOCKER_SETTINGS = z.strictObject({
  user: z.string().optional(),
  /** An image's tag; unset, the provider's own recipe. */
  image: z.string().optional(),
  daemonPath: z.string().optional(),
  daemonCache: z.string().optional(),
  /**
   * The engine: an address (unix:///path, tcp://host:port, ssh://user@host) or a docker context's
   * name, or { host or context, certPath (ca.pem, cert.pem, key.pem for tcp://), ssh (the ssh
   * client's argv), hostFolders (the engine host's folders a run folder may be bound from) };
   * unset, the docker CLI's choice in the host's environment.
   */
  engine: z
    .union([
      z.string(),
      z.strictObject({
        host: z.string().optional(),
        context: z.string().optional(),
        certPath: z.string().optional(),
        ssh: z.array(z.string()).min(1).optional(),
        hostFolders: z.array(z.string()).optional(),
      }),
    ])
    .optional(),
  /** An allowlist's egress proxy: the Docker host's own addresses (required in a container) and the refusals' hint. */
  egress: z.strictObject({ hostAddresses: z.array(z.string()).optional(), hint: z.string().optional() }).optional(),
  /** Desktops by default: the display, the X server's argv and how long create waits for it. */
  desktop: z
    .strictObject({ display: z.string().optional(), server: z.array(z.string()).optional(), timeoutMs: z.number().int().positive().optional() })
    .optional(),
  /** Tests only (the plugin refuses it unless its test flag is on): hold a create, a pause or a take at a step. */
  testPause: testSetting(
    z.strictObject({ at: z.enum([...CREATE_STEPS, ...STATE_STEPS]), file: z.string().min(1) }).optional(),
    "holds a create, a pause or a snapshot's take at a step (the fault tests' seam)",
  ),
  /** Tests only: the folder the container signs are read under, so a plugin in a container can be a plain host's. */
  testHostRoot: testSetting(
    z.string().min(1).optional(),
    "reads the container signs under a folder of the test's (a plugin in a container taken for one on the Docker host)",
  ),
  /**
   * Tests and the stand-in examples only: a Docker network of the caller's (its name and range),
   * which every proxy joins instead of the default bridge and reaches as if public (egress's testNetwork).
   */
  testNetwork: testSetting(
    z.strictObject({ name: z.string().min(1), range: z.string().min(1) }).optional(),
    "lets every egress proxy reach a private Docker network of the caller's as if it were public (a stand-in API's)",
  ),
});
export type DockerSettings = z.infer<typeof DOCKER_SETTINGS>;

// The daemons this package carries, by the architecture Go names.
const GOARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };

/** The daemon this package carries for this machine: a local Docker engine runs this host's arch. */
export function packagedDaemon(): string {
  return path.join(packageRoot(), "dist", `computerd-linux-${GOARCH[arch()] ?? arch()}`);
}

/** The engine the setting names: an address as it is, a context from the CLI's config (which the host's environment locates). */
function engineOf(setting: NonNullable<DockerSettings["engine"]>, host: HostEnvironment | undefined): Result<EngineAddress> {
  const named = typeof setting === "string" ? (/:\/\//.test(setting) || path.isAbsolute(setting) ? { host: setting } : { context: setting }) : setting;
  const from = "agentrun:docker's engine";
  if ((named.host === undefined) === (named.context === undefined))
    return fail("invalid", `${from} names an engine by one of host (an address) or context (a docker context's name)`, { field: "engine" });
  const ssh = named.ssh ? { ssh: named.ssh } : {};
  if (named.context !== undefined) {
    const env = host?.env ?? {};
    return contextEngine(env.DOCKER_CONFIG || path.join(host?.home ?? homedir(), ".docker"), named.context, ssh);
  }
  return engineAt(named.host!, from, { ...(named.certPath ? { tls: tlsIn(path.resolve(named.certPath)) } : {}), ...ssh });
}

/** The options; an engine that is refused (plain TCP, TLS files missing, a context not there) throws in words. */
export function optionsFromSettings(settings: DockerSettings, host?: HostEnvironment): DockerProviderOptions {
  const { image, engine, testPause, testHostRoot, testNetwork, ...rest } = settings;
  const egress = { ...rest.egress, ...(testHostRoot ? { hostRoot: testHostRoot } : {}), ...(testNetwork ? { testNetwork, testOnly: true } : {}) };
  const options: DockerProviderOptions = {
    daemonPath: packagedDaemon(),
    ...rest,
    ...(image ? { image: { image } } : {}),
    ...(testPause ? { pause: pauseAt(testPause.at, testPause.file) } : {}),
    ...(testHostRoot || testNetwork ? { egress } : {}),
  };
  if (engine === undefined && !host) return options;
  const found = engine === undefined ? resolveEngine(host!) : engineOf(engine, host);
  if (!found.ok) throw new TypeError(found.error.message, { cause: found.error });
  const folders = typeof engine === "object" && engine.hostFolders ? { hostFolders: engine.hostFolders } : {};
  return { ...options, engine: found.value, ...folders };
}
