// Docker's conformance module: the run's settings from its own COMPUTER_DOCKER_* names, the
// provider and its drifted twin built through create() on the engine the docker CLI resolves
// here, a bind run folder, and the image to run.
import { promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { create, driftedProvider } from "../create.js";
import { packageRoot, toolchainBase } from "../../package.js";
import type { DockerProvider, DockerProviderOptions } from "../provider.js";
import { type DockerSettings, optionsFromSettings } from "../settings.js";
import type { MountKind } from "../../contract/mount.js";
import { hostEnvironment } from "../../contract/host.js";
import type { HostEnvironment } from "../../contract/provider.js";
import { processUser } from "../../contract/user.js";
import { BROWSER_IMAGE } from "../../kits/browser/labels.js";
import { packagedFixture, type RunFolder, type RunShape, settingKindOf } from "../../kits/conformance/module.js";

/** Every name this module reads. */
export const ENV = ["COMPUTER_DOCKER_DAEMON", "COMPUTER_DOCKER_DAEMON_CACHE", "COMPUTER_DOCKER_USER"] as const;

/** How long docker version may take before it is killed and the run fails. */
export const DOCKER_VERSION_MS = 30_000;

/** The run's settings from this module's own names; an image named in the environment is ignored. */
export function settingsFromEnv(env: Record<string, string | undefined>): DockerSettings {
  const settings: DockerSettings = {};
  if (env.COMPUTER_DOCKER_DAEMON) settings.daemonPath = env.COMPUTER_DOCKER_DAEMON;
  if (env.COMPUTER_DOCKER_DAEMON_CACHE) settings.daemonCache = env.COMPUTER_DOCKER_DAEMON_CACHE;
  if (env.COMPUTER_DOCKER_USER) settings.user = env.COMPUTER_DOCKER_USER;
  return settings;
}

const ARCHES: Record<string, "amd64" | "arm64"> = { amd64: "amd64", x86_64: "amd64", arm64: "arm64", aarch64: "arm64" };

/** The Docker server's architecture, from docker version (killed past 30 s). */
export async function dockerArch(docker = "docker"): Promise<"amd64" | "arm64"> {
  const ran = await execa(docker, ["version", "--format", "{{.Server.Arch}}"], {
    reject: false,
    timeout: DOCKER_VERSION_MS,
    forceKillAfterDelay: 2_000,
    stdin: "ignore",
  });
  if (ran.timedOut)
    throw new Error(`docker version did not answer within ${DOCKER_VERSION_MS / 1000} s and was killed; is Docker running, and may this user reach it?`);
  const reported = String(ran.stdout).trim();
  if (ran.failed)
    throw new Error(
      `docker version failed (${String(ran.stderr).trim().split("\n").pop() || `exit code ${ran.exitCode}`}); is Docker running, and may this user reach it?`,
    );
  const arch = ARCHES[reported];
  if (!arch)
    throw new Error(
      `docker version reports the architecture ${JSON.stringify(reported.slice(0, 40))}; this package carries computerd for amd64 and arm64 only`,
    );
  return arch;
}

/** This package's daemon for the Docker server's architecture. */
export async function daemonForDocker(docker = "docker"): Promise<string> {
  return path.join(packageRoot(), "dist", `computerd-linux-${await dockerArch(docker)}`);
}

let asked: Promise<"amd64" | "arm64"> | undefined;
/** Docker's architecture, asked of docker version once per process. */
const serverArch = () => (asked ??= dockerArch());

/** A run of --kind desktop: the provider's computers are desktops. */
const isDesktop = (run: RunShape) => run.kind !== undefined && settingKindOf(run.kind) === "desktop";
/** A run of --kind browser: the provider's computers are browsers. */
const isBrowser = (run: RunShape) => run.kind !== undefined && settingKindOf(run.kind) === "browser";

/**
 * The provider's options from the settings, on the engine the docker CLI would use in host's
 * environment (as docker version, which names the daemon's architecture, does); the daemon asked
 * of docker version once per process when unset.
 */
async function options(settings: DockerSettings, run: RunShape, host: HostEnvironment): Promise<DockerProviderOptions> {
  const { image: _ignored, ...rest } = settings;
  const made = optionsFromSettings({ ...rest, daemonPath: rest.daemonPath ?? path.join(packageRoot(), "dist", `computerd-linux-${await serverArch()}`) }, host);
  return isDesktop(run) ? { ...made, desktop: {} } : isBrowser(run) ? { ...made, browser: {} } : made;
}

export async function createProvider(
  settings: DockerSettings = settingsFromEnv(process.env),
  run: RunShape = {},
  host: HostEnvironment = hostEnvironment(),
): Promise<DockerProvider> {
  return create(await options(settings, run, host));
}

/** The same provider holding its daemon to another version, so none of its computers is handed out. */
export async function createDriftedProvider(
  settings: DockerSettings = settingsFromEnv(process.env),
  run: RunShape = {},
  host: HostEnvironment = hostEnvironment(),
): Promise<DockerProvider> {
  return driftedProvider(await options(settings, run, host));
}

/** A fresh folder under the temp directory, owned by the provider's user, mode 0700, for a bind. */
export async function mountFor(kind: MountKind, settings: DockerSettings = settingsFromEnv(process.env)): Promise<RunFolder | undefined> {
  if (kind !== "bind") return undefined;
  const user = settings.user ? (settings.user.includes(":") ? settings.user : `${settings.user}:${settings.user}`) : processUser();
  const [uid, gid] = user.split(":").map(Number) as [number, number];
  const folder = realpathSync(await fs.mkdtemp(path.join(tmpdir(), "agentrun-conformance-")));
  await fs.chmod(folder, 0o700);
  if (process.getuid?.() === 0) await fs.chown(folder, uid, gid);
  const inside = (name: string) => {
    const full = path.join(folder, name);
    if (path.dirname(full) !== folder) throw new TypeError(`a run folder's file is a name in it, not ${JSON.stringify(name)}`);
    return full;
  };
  return {
    mount: { kind: "bind", path: folder },
    read: async (name) => new Uint8Array(await fs.readFile(inside(name))),
    write: async (name, data) => fs.writeFile(inside(name), data),
    close: () => fs.rm(folder, { recursive: true, force: true }),
  };
}

/**
 * The set-up's base image (dist/toolchain.json): on this host already, with sh and coreutils. A
 * desktop's is the provider's own (Xvfb on that base), which the CLI makes ready; a browser's is
 * "chromium", which the provider makes ready at create.
 */
export function conformanceImage(run: RunShape = {}): string | undefined {
  return isBrowser(run) ? BROWSER_IMAGE : isDesktop(run) ? undefined : toolchainBase();
}

/** A desktop run's input fixture when the CLI is given none: the package's own, for Docker's architecture. */
export async function conformanceFixture(run: RunShape = {}, arch: () => Promise<"amd64" | "arm64"> = serverArch): Promise<string | undefined> {
  return isDesktop(run) ? packagedFixture(await arch()) : undefined;
}

export const conformanceNotes: string[] = [];
