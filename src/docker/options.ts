// The provider's options: what a caller may pass to new DockerProvider(...), and their check at
// construction (a bad option throws in words before anything is asked of Docker), settled into
// the values every part of the provider reads.
import path from "node:path";
import type { DesktopOptions } from "../daemon/desktop.js";
import type { MachineKind } from "../daemon/protocol.js";
import { checkTestNetwork, DEFAULT_HINT, hintProblem } from "../egress/list.js";
import { isUpstreamRoot } from "../egress/proxy-command.js";
import { isRootOrRootGroup, parseUser, processUser, type User, userText } from "../contract/user.js";
import { OptionError } from "../daemon/result.js";
import type { DockerCli } from "./cli.js";
import type { DockerEngine } from "./api.js";
import { DEFAULT_DAEMON_CACHE } from "./daemon-cache.js";
import { EGRESS_READY_MS } from "./egress.js";
import type { EngineAddress } from "./engine.js";
import { DOCKER_BASE } from "./default-image.js";
import { type ImageSource, sourceProblem } from "./image.js";
import { toolchainBase } from "../package.js";
import type { Step } from "./pause.js";

export interface DockerProviderOptions {
  /** computerd for the Docker host's architecture; the provider binds its own copy of it. */
  daemonPath: string;
  /** Where the copy lives (default ~/.cache/agentrun-computer): 0700, this user's. */
  daemonCache?: string;
  /** The computer's user when a spec names none: uid:gid, never root or root's group. */
  user?: string;
  /**
   * The image docker.image() makes ready; default the provider's recipe on the pinned base
   * (pulled once), or on the set-up's local base where no registry answers.
   */
  image?: ImageSource;
  /**
   * The pinned base the default recipe stands on, by name and digest (default DOCKER_BASE,
   * python:3.12-slim from Docker Hub): a registry mirror's copy of it, where Docker Hub is not the
   * registry this engine reaches.
   */
  base?: string;
  /**
   * The Docker engine: its unix socket (default unix:///var/run/docker.sock), the address
   * resolveEngine({ env, home }) found as the docker CLI does, or a DockerEngine. The provider
   * reads no environment.
   */
  engine?: string | EngineAddress | DockerEngine;
  /**
   * Folders on the engine's host (absolute paths there) a run folder may be bound from, when the
   * engine is another host's: its folders are not this machine's, so a bind elsewhere is refused.
   */
  hostFolders?: string[];
  /** The docker CLI, for an image's build or pull only: its path (default docker), or a DockerCli. */
  docker?: string | DockerCli;
  /**
   * The version the daemon must report in hello (default: this package's, which its daemon
   * carries). Only the conformance suite's drifted provider sets another.
   */
  version?: string;
  /** For a provider in a container of the Docker it drives: the named volume its files are on. */
  volume?: { name: string; root: string };
  /** An allowlist's egress proxy. */
  egress?: EgressOptions;
  /**
   * Desktops: the provider's computers are kind desktop unless a spec asks for linux (a spec may
   * ask for a desktop without it). Its image is what docker.image({ kind: "desktop" }) makes
   * ready (default: Xvfb on the base the default recipe stands on).
   */
  desktop?: DesktopOptions & { image?: ImageSource };
  /**
   * Browsers: the provider's computers are kind browser unless a spec asks for another kind. A
   * browser's image is "chromium": Debian's Chromium on the base (docker.image({ kind: "browser" })).
   */
  browser?: Record<string, never>;
  /** The fault tests' seam: called at each step of a create, a pause and a snapshot's take (pause.ts), to hold it there. */
  pause?: Pause;
}

/** The fault tests' seam (pause.ts). */
export type Pause = (step: Step, signal?: AbortSignal) => Promise<void>;

export interface EgressOptions {
  /** The Docker host's own addresses (IP addresses), refused as this-host beside this machine's; required in a container. */
  hostAddresses?: string[];
  /** The root the container signs are read under (default /), for tests and embedders. */
  hostRoot?: string;
  /** The words every refusal adds (printable ASCII; default DEFAULT_HINT). */
  hint?: string;
  /** How long create waits for the proxy's ready line (default 10 s). */
  readyMs?: number;
  /**
   * The test-only seam: the test's own Docker network, which the proxy joins instead of the
   * default bridge, and its range, which it reaches as if public; upstreamRoot, a test upstream's
   * CA (one PEM certificate) a proxy that opens TLS trusts beside the system's roots. Refused unless testOnly.
   */
  testNetwork?: { name: string; range: string; upstreamRoot?: string };
  testOnly?: boolean;
}

/** The egress option with its defaults filled in. */
export type EgressSettings = Required<Pick<EgressOptions, "hint" | "readyMs">> &
  Omit<EgressOptions, "hint" | "readyMs"> & {
    /** Why this machine is not the Docker host (a remote engine), in words: its interfaces are then not the host's. */
    elsewhere?: string;
  };

/** The options checked, with every default filled in. */
export interface Settled {
  daemonPath: string;
  daemonCache: string;
  /** The user a spec that names none gets, parsed, and as uid:gid. */
  user: User;
  userText: string;
  /** The image option; undefined is the provider's own recipe, on the base chosen at image(). */
  image: ImageSource | undefined;
  /** The pinned base, and the set-up's local one where this package's set-up made it. */
  base: { pinned: string; local: string | undefined };
  volume: { name: string; root: string } | undefined;
  egress: EgressSettings;
  desktop: DesktopOptions & { image: ImageSource | undefined };
  /** The kind a spec that names none gets. */
  kind: MachineKind;
  /** The engine host's folders a run folder may be bound from, when the engine is another host's. */
  hostFolders: string[];
}

/** Every option checked (a bad one throws a TypeError in words), and settled. */
export function settle(options: DockerProviderOptions): Settled {
  if (typeof options?.daemonPath !== "string" || options.daemonPath.length === 0) {
    throw new TypeError("DockerProvider needs daemonPath: computerd for the Docker host's architecture (dist/computerd-linux-amd64)");
  }
  const daemonCache = path.resolve(options.daemonCache ?? DEFAULT_DAEMON_CACHE);
  const user = userOf(options.user);
  if (options.image !== undefined) {
    const problem = sourceProblem(options.image);
    if (problem) throw new OptionError("image", "DockerProvider's image option", `: ${problem}`);
  }
  const pinned = options.base ?? DOCKER_BASE;
  if (typeof pinned !== "string" || sourceProblem({ image: pinned }) || !/@sha256:[a-f0-9]{64}$/.test(pinned))
    throw new OptionError("base", "DockerProvider's base option", " is an image by name pinned by its digest (name@sha256:…)");
  if (options.browser !== undefined && options.desktop !== undefined)
    throw new OptionError("browser", "DockerProvider's browser option", " makes every computer a browser; give it or desktop, not both");
  return {
    daemonPath: options.daemonPath,
    daemonCache,
    user,
    userText: userText(user),
    image: options.image,
    base: { pinned, local: toolchainBase() },
    volume: volumeOf(options.volume, daemonCache),
    egress: egressOf(options.egress ?? {}),
    desktop: desktopOf(options.desktop ?? {}),
    kind: options.browser ? "browser" : options.desktop ? "desktop" : "linux",
    hostFolders: hostFoldersOf(options.hostFolders),
  };
}

function hostFoldersOf(folders: DockerProviderOptions["hostFolders"]): string[] {
  if (folders === undefined) return [];
  if (!Array.isArray(folders) || !folders.every((f) => typeof f === "string" && path.posix.isAbsolute(f) && !f.includes("\0")))
    throw new OptionError("hostFolders", "DockerProvider's hostFolders option", " is a list of absolute paths on the Docker engine's host");
  return folders.map((f) => path.posix.normalize(f));
}

function userOf(option: string | undefined): User {
  if (option === undefined) {
    const own = parseUser(processUser());
    if (!own.ok) throw new TypeError(`this process's user: ${own.error.message}`);
    return own.value;
  }
  const user = parseUser(option);
  if (!user.ok) throw new OptionError("user", "DockerProvider's user option", `: ${user.error.message}`);
  if (isRootOrRootGroup(user.value)) {
    throw new OptionError(
      "user",
      "DockerProvider's user option",
      ` ${userText(user.value)} is root or in root's group; only a spec may ask for that (user "0", or a gid of 0)`,
    );
  }
  return user.value;
}

function volumeOf(volume: DockerProviderOptions["volume"], daemonCache: string): Settled["volume"] {
  if (volume === undefined) return undefined;
  const { name, root } = volume;
  if (typeof name !== "string" || !name || typeof root !== "string" || !path.isAbsolute(root)) {
    throw new OptionError(
      "volume",
      "DockerProvider's volume option",
      " is { name, root }: the named volume, and where this process has it mounted (an absolute path)",
    );
  }
  const rel = path.relative(root, daemonCache);
  if (rel.startsWith("..") || path.isAbsolute(rel)) {
    throw new OptionError(
      "daemonCache",
      "DockerProvider's daemonCache",
      ` ${daemonCache} is not at or below the volume's root ${root}; with the volume option the daemon must be on the volume`,
    );
  }
  return { name, root: path.resolve(root) };
}

function egressOf(egress: EgressOptions): EgressSettings {
  const hint = egress.hint ?? DEFAULT_HINT;
  const hintWords = hintProblem(hint);
  if (hintWords) throw new OptionError("egress", "DockerProvider's egress option", `: ${hintWords}`);
  if (egress.testNetwork !== undefined) {
    const words = checkTestNetwork(egress.testNetwork?.range, { testOnly: egress.testOnly === true });
    if (words) throw new OptionError("egress", "DockerProvider's egress option", `: ${words}`);
    if (typeof egress.testNetwork.name !== "string" || !egress.testNetwork.name)
      throw new OptionError("egress", "DockerProvider's egress option", ": testNetwork.name is the test's own Docker network");
    const root = egress.testNetwork.upstreamRoot;
    if (root !== undefined && !isUpstreamRoot(root))
      throw new OptionError("egress", "DockerProvider's egress option", ": testNetwork.upstreamRoot is one PEM certificate, the test upstream's CA");
  }
  const readyMs = egress.readyMs ?? EGRESS_READY_MS;
  if (!(Number.isInteger(readyMs) && readyMs > 0))
    throw new OptionError("egress", "DockerProvider's egress option", ": readyMs is a whole number of milliseconds above 0");
  return { ...egress, hint, readyMs };
}

function desktopOf(desktop: DesktopOptions & { image?: ImageSource }): Settled["desktop"] {
  if (desktop.image !== undefined) {
    const problem = sourceProblem(desktop.image);
    if (problem) throw new OptionError("desktop.image", "DockerProvider's desktop.image option", `: ${problem}`);
  }
  if (desktop.server !== undefined && !(Array.isArray(desktop.server) && desktop.server.length > 0 && desktop.server.every((a) => typeof a === "string"))) {
    throw new OptionError("desktop.server", "DockerProvider's desktop.server option", " is the X server's argv, a list of strings");
  }
  if (desktop.display !== undefined && !/^:\d{1,4}$/.test(desktop.display))
    throw new OptionError("desktop.display", "DockerProvider's desktop.display option", " is a local display, such as :0");
  return { ...desktop, image: desktop.image };
}
