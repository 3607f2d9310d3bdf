// DockerProvider: the ComputerProvider interface mapped onto the Docker Engine API. The create
// request, the drift check, the read-back, the host's enforcement and the container calls live in
// their own files; this one wires them into create, connect, attach, read, list, network and
// release. Only an image's build or pull goes through the docker CLI (cli.ts, image.ts).
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { CallOptions } from "../daemon/client.js";
import { type DesktopOptions, DEFAULT_DISPLAY, DISPLAY_GROUPS, startDisplay } from "../daemon/desktop.js";
import type { Hello, MachineKind } from "../daemon/protocol.js";
import { daemonWatch } from "../daemon/screen-watch.js";
import type {
  AttachBy,
  Capabilities,
  ComputerInfo,
  ComputerProvider,
  ComputerRef,
  ComputerSpec,
  Connection,
  CreateOptions,
  NetworkPolicy,
  NetworkReadBack,
  PoolHooks,
  ReadBack,
  ReleaseHow,
  SpecReadBack,
  SweepOptions,
  WatchHandlers,
  ScreenWatch,
  ImageOptions,
  CheckedSpec,
} from "../vendor/provider.js";
import { checkTestNetwork, DEFAULT_HINT, hintProblem, sameNetwork } from "../egress/list.js";
import { hostAddresses } from "../egress/host-addresses.js";
import { checkedSpec } from "../vendor/checked.js";
import { fail, ok, OptionError, refuse, type Result } from "../vendor/result.js";
import { isRootOrRootGroup, parseUser, processUser, userText } from "../vendor/user.js";
import { labelsWithClaim } from "../vendor/labels.js";
import { adoptOrClear, removeEarlier } from "./adopt.js";
import { DockerEngine } from "./api.js";
import { bindWritableProblem } from "./bind.js";
import { checkSpec } from "./check.js";
import { dockerPool, removeClaim, sweepClaims, withClaims } from "./claims.js";
import { POOL_LABEL } from "../fleet/pool.js";
import { DockerCli } from "./cli.js";
import { openConnection } from "./connect.js";
import {
  COMPUTER_LABEL,
  DEADLINE_LABEL,
  DEFAULT_CPUS,
  DEFAULT_MEMORY_MB,
  DEFAULT_PIDS,
  HOME,
  ID_PATTERN,
  IMAGE_SETTING,
  KIND_LABEL,
  MAX_LIFETIME_MS,
  NAME_PATTERN,
} from "./constants.js";
import { create as createContainer, failure, inspect, lastWords, listByLabels, remove, removeLate, start, stop } from "./containers.js";
import { createRequest } from "./create-request.js";
import { DaemonCacheError, daemonCopy, daemonCopyPath, DEFAULT_DAEMON_CACHE } from "./daemon-cache.js";
import { drift, type DriftExpected, readBackDrift } from "./drift.js";
import { EGRESS_READY_MS, inspectEgress, inspectEgressOf, makeEgress, makeEgressVolume, removeEgress, sweepEgress } from "./egress.js";
import { egressImageTag, ensureEgressImage } from "./egress-image.js";
import { type EgressExpected, proxyReadBack } from "./egress-readback.js";
import { type EgressPlan, PROXY_PATTERN } from "./egress-request.js";
import { DockerEgressProxies } from "./egress-proxy.js";
import { homeDrift } from "./home.js";
import { type Host, hostOf } from "./host.js";
import type { EngineAddress } from "./engine.js";
import { desktopRecipe, dockerRecipe, ensureImage, type EnsureOptions, type ImageSource, ofSetting, sourceProblem, toolchainBase } from "./image.js";
import { packageVersion } from "../package.js";
import type { CreateStep } from "./pause.js";
import { type Plan, planOf } from "./plan.js";
import { deadlineOf, egressKey, hasEgress, type Inspected, labelsOf, mountOf, nameOf, networkOf, sharedProxyOf, specOf, stateOf } from "./readback.js";
import { attachedIf } from "../vendor/attach.js";

export interface DockerProviderOptions {
  /** computerd for the Docker host's architecture; the provider binds its own copy of it. */
  daemonPath: string;
  /** Where the copy lives (default ~/.cache/agentrun-computer): 0700, this user's. */
  daemonCache?: string;
  /** The computer's user when a spec names none: uid:gid, never root or root's group. */
  user?: string;
  /** The image docker.image() makes ready; default the provider's recipe on the set-up's base. */
  image?: ImageSource;
  /**
   * The Docker engine: its unix socket (default unix:///var/run/docker.sock), the address
   * resolveEngine({ env, home }) found as the docker CLI does, or a DockerEngine. The provider
   * reads no environment.
   */
  engine?: string | EngineAddress | DockerEngine;
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
   * ready (default: Xvfb on the set-up's base).
   */
  desktop?: DesktopOptions & { image?: ImageSource };
  /** The fault tests' seam: called at each step of a create (pause.ts), to hold it there. */
  pause?: (step: CreateStep, signal?: AbortSignal) => Promise<void>;
}

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
   * default bridge, and its range, which it reaches as if public. Refused unless testOnly.
   */
  testNetwork?: { name: string; range: string };
  testOnly?: boolean;
}

export const CAPABILITIES: Capabilities = {
  kind: "linux",
  os: "linux",
  daemon: "pid1",
  groups: ["exec", "files", "processes"],
  lifetime: "janitor",
  maxLifetimeMs: MAX_LIFETIME_MS,
  network: ["none", "open", "allow"],
  networkReadBack: true,
  release: ["stop", "delete"],
  stopDeletes: false,
  user: ["root", "uid"],
  mount: ["bind"],
  defaults: { cpus: DEFAULT_CPUS, memoryMb: DEFAULT_MEMORY_MB, pids: DEFAULT_PIDS, workdir: HOME },
};

/** A desktop: linux's, and the display's groups, which hello declares once the X server answers. */
export const DESKTOP_CAPABILITIES: Capabilities = {
  ...CAPABILITIES,
  kind: "desktop",
  groups: [...CAPABILITIES.groups, ...DISPLAY_GROUPS],
};

/** What a computer of a kind is held to: its kind and groups. */
export function capabilitiesOfKind(kind: MachineKind): Capabilities {
  return kind === "desktop" ? DESKTOP_CAPABILITIES : CAPABILITIES;
}

/** 45000 is "45 s", 101234 is "101.2 s"; exact when asked (a lifetime), else to a tenth. */
function seconds(ms: number, exact = false): string {
  return `${exact ? ms / 1000 : Math.round(ms / 100) / 10} s`;
}

export class DockerProvider implements ComputerProvider {
  readonly id = "docker";
  readonly version: string;
  readonly engine: DockerEngine;
  readonly cli: DockerCli;
  /** Warm pools: a claim is a rename (claims.ts). */
  readonly pool: PoolHooks;
  /** Shared egress proxies: one proxy a fleet of computers joins (ComputerSpec.egress). */
  readonly proxies: DockerEgressProxies;
  readonly #daemonPath: string;
  readonly #daemonCache: string;
  readonly #user: string;
  readonly #image: ImageSource | undefined;
  readonly #volume: { name: string; root: string } | undefined;
  readonly #pause: ((step: CreateStep, signal?: AbortSignal) => Promise<void>) | undefined;
  #host: Host | undefined;
  #hostRead: Promise<Result<Host>> | undefined;
  #copying: Promise<string> | undefined;
  #egressImage: Promise<Result<string>> | undefined;
  readonly #egress: Required<Pick<EgressOptions, "hint" | "readyMs">> & Omit<EgressOptions, "hint" | "readyMs">;
  readonly #desktop: DesktopOptions & { image: ImageSource | undefined };
  /** The kind a spec that names none gets. */
  readonly #kind: MachineKind;

  constructor(options: DockerProviderOptions) {
    if (typeof options?.daemonPath !== "string" || options.daemonPath.length === 0) {
      throw new TypeError("DockerProvider needs daemonPath: computerd for the Docker host's architecture (dist/computerd-linux-amd64)");
    }
    this.#daemonPath = options.daemonPath;
    this.#daemonCache = path.resolve(options.daemonCache ?? DEFAULT_DAEMON_CACHE);
    if (options.user !== undefined) {
      const user = parseUser(options.user);
      if (!user.ok) throw new OptionError("user", "DockerProvider's user option", `: ${user.error.message}`);
      if (isRootOrRootGroup(user.value)) {
        throw new OptionError(
          "user",
          "DockerProvider's user option",
          ` ${userText(user.value)} is root or in root's group; only a spec may ask for that (user "0", or a gid of 0)`,
        );
      }
      this.#user = userText(user.value);
    } else this.#user = processUser();
    if (options.image !== undefined) {
      const problem = sourceProblem(options.image);
      if (problem) throw new OptionError("image", "DockerProvider's image option", `: ${problem}`);
      this.#image = options.image;
    } else {
      const base = toolchainBase();
      this.#image = base ? { recipe: dockerRecipe(base) } : undefined;
    }
    if (options.volume !== undefined) {
      const { name, root } = options.volume;
      if (typeof name !== "string" || !name || typeof root !== "string" || !path.isAbsolute(root)) {
        throw new OptionError(
          "volume",
          "DockerProvider's volume option",
          " is { name, root }: the named volume, and where this process has it mounted (an absolute path)",
        );
      }
      const rel = path.relative(root, this.#daemonCache);
      if (rel.startsWith("..") || path.isAbsolute(rel)) {
        throw new OptionError(
          "daemonCache",
          "DockerProvider's daemonCache",
          ` ${this.#daemonCache} is not at or below the volume's root ${root}; with the volume option the daemon must be on the volume`,
        );
      }
      this.#volume = { name, root: path.resolve(root) };
    }
    const egress = options.egress ?? {};
    const hint = egress.hint ?? DEFAULT_HINT;
    const hintWords = hintProblem(hint);
    if (hintWords) throw new OptionError("egress", "DockerProvider's egress option", `: ${hintWords}`);
    if (egress.testNetwork !== undefined) {
      const words = checkTestNetwork(egress.testNetwork?.range, { testOnly: egress.testOnly === true });
      if (words) throw new OptionError("egress", "DockerProvider's egress option", `: ${words}`);
      if (typeof egress.testNetwork.name !== "string" || !egress.testNetwork.name)
        throw new OptionError("egress", "DockerProvider's egress option", ": testNetwork.name is the test's own Docker network");
    }
    const readyMs = egress.readyMs ?? EGRESS_READY_MS;
    if (!(Number.isInteger(readyMs) && readyMs > 0))
      throw new OptionError("egress", "DockerProvider's egress option", ": readyMs is a whole number of milliseconds above 0");
    this.#egress = { ...egress, hint, readyMs };
    const desktop = options.desktop ?? {};
    if (desktop.image !== undefined) {
      const problem = sourceProblem(desktop.image);
      if (problem) throw new OptionError("desktop.image", "DockerProvider's desktop.image option", `: ${problem}`);
    }
    if (desktop.server !== undefined && !(Array.isArray(desktop.server) && desktop.server.length > 0 && desktop.server.every((a) => typeof a === "string"))) {
      throw new OptionError("desktop.server", "DockerProvider's desktop.server option", " is the X server's argv, a list of strings");
    }
    if (desktop.display !== undefined && !/^:\d{1,4}$/.test(desktop.display))
      throw new OptionError("desktop.display", "DockerProvider's desktop.display option", " is a local display, such as :0");
    const base = toolchainBase();
    this.#desktop = { ...desktop, image: desktop.image ?? (base ? { recipe: desktopRecipe(base) } : undefined) };
    this.#kind = options.desktop ? "desktop" : "linux";
    this.engine = options.engine instanceof DockerEngine ? options.engine : new DockerEngine(options.engine);
    this.pool = dockerPool(this.engine, this.id);
    // A build or pull goes to the same engine as every other call.
    this.cli = options.docker instanceof DockerCli ? options.docker : new DockerCli(options.docker ?? "docker", undefined, this.engine.address.address);
    this.version = options.version ?? packageVersion();
    this.proxies = new DockerEgressProxies({
      engine: this.engine,
      host: (o) => this.#enforcingHost(o),
      image: (o) => this.#ensureEgressImage(o.signal),
      imageTag: async () => {
        const bytes = await fs.readFile(this.#daemonPath).catch(() => undefined);
        return bytes
          ? ok(egressImageTag(bytes))
          : fail("failed", `the daemon at ${this.#daemonPath} could not be read, so an egress proxy cannot be checked against it`);
      },
      addresses: () => hostAddresses(this.#egress),
      userDefault: this.#user,
      hint: this.#egress.hint,
      readyMs: this.#egress.readyMs,
      ...(this.#egress.testNetwork ? { testNetwork: this.#egress.testNetwork } : {}),
    });
    this.#pause = options.pause;
  }

  /** The proxy's image, made once per provider (its tag is the daemon's hash); a failure is not kept. */
  #ensureEgressImage(signal?: AbortSignal): Promise<Result<string>> {
    this.#egressImage ??= ensureEgressImage(this.cli, this.#daemonPath, { signal }).then((r) => {
      if (!r.ok) this.#egressImage = undefined;
      return r;
    });
    return this.#egressImage;
  }

  capabilities(): Capabilities {
    const capabilities = structuredClone(capabilitiesOfKind(this.#kind));
    // The image option by name is the image a spec that names none gets; a recipe's is made at create.
    const image = this.#image && "image" in this.#image ? { image: this.#image.image } : {};
    capabilities.defaults = { ...capabilities.defaults, user: this.#user, ...image };
    return capabilities;
  }

  check(spec: ComputerSpec): Result<CheckedSpec> {
    return checkedSpec(
      spec,
      checkSpec(spec, {
        capabilities: CAPABILITIES,
        ...(this.#host ? { host: this.#host } : {}),
        ...(this.#volume ? { volumeRoot: this.#volume.root } : {}),
        ...(this.#egress.testNetwork ? { testNetwork: this.#egress.testNetwork.range } : {}),
      }),
    );
  }

  /** The host's enforcement, from GET /info once per provider; a failed read is not kept. */
  async host(options: CallOptions = {}): Promise<Result<Host>> {
    if (this.#host) return ok(this.#host);
    if (options.signal?.aborted) return fail("aborted", "reading the Docker host was aborted before it was asked");
    // One read for every caller at once; a caller's abort ends its own wait, not the others'.
    this.#hostRead ??= (async () => {
      const read = await this.engine.call<Record<string, unknown>>("GET", "/info", { timeoutMs: 30_000 });
      if (!read.ok || typeof read.value !== "object" || read.value === null) return failure(this.engine, "reading the Docker host (GET /info)", read);
      this.#host = hostOf(read.value);
      return ok(this.#host);
    })().finally(() => (this.#hostRead = undefined));
    const signal = options.signal;
    if (!signal) return this.#hostRead;
    const read = this.#hostRead;
    return new Promise((resolve) => {
      const onAbort = () => resolve(fail("aborted", "reading the Docker host (GET /info) was aborted; nothing was made"));
      signal.addEventListener("abort", onAbort, { once: true });
      void read.then((result) => {
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      });
    });
  }

  /** The host read, then refused in words when it lacks any enforcement. */
  async #enforcingHost(options: CallOptions): Promise<Result<Host>> {
    const host = await this.host(options);
    if (!host.ok) return host;
    if (host.value.lacks.length > 0) {
      return fail("refused", `${host.value.lacks.join("; ")}. Nothing was made: run computers on a Docker host that enforces every limit and has seccomp`, {
        field: "host",
      });
    }
    return host;
  }

  /** ensureImage of the provider's image option (a desktop's, for kind desktop), with its docker CLI. */
  image(options: Omit<EnsureOptions, "docker"> & Pick<ImageOptions, "kind"> = {}): Promise<Result<string>> {
    const { kind = this.#kind, ...rest } = options;
    const source = kind === "desktop" ? this.#desktop.image : this.#image;
    if (!source) {
      return Promise.resolve(
        fail("invalid", "no image to make: dist/toolchain.json names no base image (run bash scripts/setup.sh, which makes it), and no image option was given"),
      );
    }
    return ensureImage(source, { ...rest, docker: this.cli }).then((made) => (kind === "desktop" ? made : ofSetting(made, this.id, IMAGE_SETTING)));
  }

  /** The kind a spec asks for, or the provider's. */
  #kindOf(spec: Pick<ComputerSpec, "kind">): MachineKind {
    return spec.kind ?? this.#kind;
  }

  #display(): string {
    return this.#desktop.display ?? DEFAULT_DISPLAY;
  }

  async create(spec: ComputerSpec, options: CreateOptions = {}): Promise<Result<ComputerRef>> {
    const { signal } = options;
    const checked = this.check(spec);
    if (!checked.ok) return checked;
    if (signal?.aborted) return fail("aborted", "create was aborted before anything was made");
    const host = await this.#enforcingHost(options);
    if (!host.ok) return host;
    const withHost = this.check(spec); // now with the host: a remap with a bind, an old engine with the volume option
    if (!withHost.ok) return fail("refused", `${withHost.error.message}. Nothing was made`, { field: withHost.error.field ?? "host" });
    // A computer an interrupted create of the same owner and spec left: adopted when whole, else removed.
    if (options.owner !== undefined) {
      const adopted = await adoptOrClear(this, spec, options.owner, this.capabilities().defaults, options);
      if (!adopted.ok) return adopted;
      if (adopted.value) return ok(adopted.value);
    }

    const name = `computer-${randomBytes(6).toString("hex")}`;
    // An allowlist: the host's addresses and the proxy's image first, so a refusal makes nothing.
    let egress: { hostAddresses: string[]; image: string } | undefined;
    if (typeof spec.network === "object" && "allow" in spec.network) {
      const addresses = hostAddresses(this.#egress);
      if (!addresses.ok) return fail(addresses.error.code, `${addresses.error.message}. Nothing was made`, { field: addresses.error.field ?? "network" });
      const image = await this.#ensureEgressImage(signal);
      if (!image.ok) return fail(image.error.code, `${image.error.message}. Nothing was made`, { field: "network" });
      egress = { hostAddresses: addresses.value, image: image.value };
    }
    let daemon: string;
    try {
      // Creates asking at the same moment share one copy and its check (a fleet hashes it once).
      this.#copying ??= daemonCopy(this.#daemonPath, this.#daemonCache).finally(() => (this.#copying = undefined));
      daemon = await this.#copying;
    } catch (error) {
      if (error instanceof DaemonCacheError) return fail("invalid", error.message, { field: "daemonCache" });
      return fail("failed", `the daemon at ${this.#daemonPath} could not be copied into ${this.#daemonCache}: ${(error as Error).message}`);
    }
    // The lifetime counts from here, just before the container is made.
    const started = Date.now();
    const deadline = new Date(started + spec.lifetimeMs).toISOString();
    const kind = this.#kindOf(spec);
    // The owner's labels are in the create request itself: no moment exists when the container is unlabelled.
    const labelled = options.owner === undefined ? spec : { ...spec, labels: labelsWithClaim(spec, options.owner) };
    const plan = planOf(labelled, {
      name,
      deadline,
      daemon,
      userDefault: this.#user,
      ...(this.#egress.testNetwork ? { testNetwork: this.#egress.testNetwork.range } : {}),
      ...(kind === "desktop" ? { display: this.#display() } : {}),
    });
    if (plan.mount) {
      const problem = await bindWritableProblem(plan.mount.path, plan.uid, plan.gid);
      if (problem) return fail("refused", problem, { field: "mount" });
    }
    if (signal?.aborted) return fail("aborted", "create was aborted before the container was made; nothing was made");
    const egressPlan = egress && plan.allow && plan.egress === undefined ? this.#egressPlan(plan, egress) : undefined;
    // A shared proxy is joined only when it reads back as an allowlist for this computer, and
    // before the container is made: Docker would make a plain volume for a name not there.
    const joined = plan.egress === undefined ? undefined : await this.#joinable(plan, spec, { signal });
    if (joined && !joined.ok) return joined;
    if (egressPlan) {
      const volume = await makeEgressVolume(this.engine, egressPlan, { signal });
      if (!volume.ok) return volume;
    }
    const dropEgress = async () => {
      if (egressPlan) await removeEgress(this.engine, name);
    };

    await this.#pause?.("before-run", signal);
    // The proxy is made, started and ready before the computer starts, so a failure runs
    // nothing; the computer's container is made (not started) meanwhile.
    const [proxyMade, made] = await Promise.all([
      egressPlan ? makeEgress(this.engine, egressPlan, { signal, readyMs: this.#egress.readyMs }) : Promise.resolve(ok()),
      createContainer(this.engine, createRequest(plan), { signal }),
    ]);
    if (!proxyMade.ok) {
      if (made.ok && made.value?.Id) await remove(this.engine, made.value.Id);
      else await removeLate(this.engine, name);
      // The volume again: the computer's container held it while the proxy's removal ran.
      await dropEgress();
      return proxyMade;
    }
    if (!made.ok || !made.value?.Id) {
      // A request cut off may leave the engine making the container still; one answered has said all.
      if (made.aborted || made.timedOut || made.unreachable) await removeLate(this.engine, name);
      await dropEgress();
      if (made.aborted) return fail("aborted", `create was aborted while the container was made; ${name} was removed`);
      if (made.status === 404 && /No such image/i.test(made.message)) {
        return fail(
          "not_found",
          `the image ${spec.image} is not on this Docker host, and create pulls nothing: make it ready first (docker.image(), or ensureImage({ image }) on a host with a registry); nothing was made`,
          { field: "image", detail: { kind: "image-missing", tag: spec.image, provider: this.id, setting: IMAGE_SETTING } },
        );
      }
      const failed = failure(this.engine, `making the container ${name}`, made);
      return fail(failed.error.code, `${failed.error.message}; nothing was left`);
    }
    const id = made.value.Id;
    const refused = async (code: "refused" | "aborted" | "timeout" | "failed" | "unreachable" | "gone", words: string) => {
      await remove(this.engine, id);
      await dropEgress();
      return fail(code, words);
    };
    const begun = await start(this.engine, id, { signal });
    if (!begun.ok) {
      if (begun.aborted) return refused("aborted", `create was aborted while ${name} started; it was removed`);
      const failed = failure(this.engine, `starting ${name}`, begun);
      return refused(
        failed.error.code === "timeout" || failed.error.code === "unreachable" ? failed.error.code : "failed",
        `${failed.error.message}; it was removed`,
      );
    }
    // The spec's words: the container's create and start are its docker run.
    if (Date.now() >= Date.parse(deadline)) {
      return refused(
        "timeout",
        `${name}: its lifetime of ${seconds(spec.lifetimeMs, true)} ended before docker run finished (it took ${seconds(Date.now() - started)}); ask for a longer lifetime; it was removed`,
      );
    }
    if (signal?.aborted) return refused("aborted", `create was aborted after ${name} started; it was deleted`);
    await this.#pause?.("after-run", signal);

    // The report and the daemon's hello are read side by side: the drift check needs both.
    const [inspected, connection, proxyFound, joinedNow] = await Promise.all([
      inspect(this.engine, id, { signal }),
      openConnection(this.engine, { id, name }, undefined, signal),
      egressPlan ? inspectEgress(this.engine, name, { signal }) : Promise.resolve(ok(undefined)),
      plan.egress === undefined ? Promise.resolve(ok(undefined)) : this.proxies.joined(plan.egress, { uid: plan.uid, gid: plan.gid, deadline }, { signal }),
    ]);
    const closed = async () => {
      if (connection.ok) await connection.value.close();
    };
    if (!inspected.ok) {
      await closed();
      return refused(signal?.aborted ? "aborted" : inspected.error.code === "not_found" ? "gone" : "failed", `${inspected.error.message}; ${name} was deleted`);
    }
    const state = inspected.value.State;
    if (!state?.Running) {
      await closed();
      const took = Date.now() - started;
      if (state?.ExitCode === 0 && Date.now() >= Date.parse(deadline)) {
        return refused(
          "timeout",
          `${name}: its lifetime of ${seconds(spec.lifetimeMs, true)} ended before docker run finished (it took ${seconds(took)}); ask for a longer lifetime`,
        );
      }
      const words = await lastWords(this.engine, id);
      return refused("failed", `${name} was not running after its start (exit code ${state?.ExitCode ?? "?"}${words ? `: ${words}` : ""}); it was removed`);
    }
    if (!connection.ok) {
      if (signal?.aborted) return refused("aborted", `create was aborted while saying hello; ${name} was deleted`);
      return refused(connection.error.code === "timeout" ? "timeout" : "refused", `${connection.error.message}; ${name} was deleted`);
    }
    let hello = connection.value.hello;
    await this.#pause?.("hello", signal);
    if (kind === "desktop") {
      // The X server through the daemon, as the computer's user; create waits for the display.
      const shown = await startDisplay(connection.value.client, {
        display: this.#display(),
        ...(this.#desktop.server ? { server: this.#desktop.server } : {}),
        ...(this.#desktop.timeoutMs !== undefined ? { timeoutMs: this.#desktop.timeoutMs } : {}),
        ...(signal ? { signal } : {}),
      });
      if (!shown.ok) {
        await connection.value.close();
        return refused(
          shown.error.code === "aborted" || shown.error.code === "timeout" ? shown.error.code : "failed",
          `${name}'s desktop: ${shown.error.message}; ${name} was deleted`,
        );
      }
      hello = shown.value;
    }
    const home = await homeDrift(connection.value.client, signal).catch((error: Error) => `${HOME} could not be read from inside: ${error.message}`);
    await connection.value.close();
    if (signal?.aborted) return refused("aborted", `create was aborted while reading the computer; ${name} was deleted`);
    if (!proxyFound.ok) return refused(signal?.aborted ? "aborted" : "failed", `${proxyFound.error.message}; ${name} was deleted`);
    if (!joinedNow.ok) return refused(signal?.aborted ? "aborted" : "failed", `${joinedNow.error.message}; ${name} was deleted`);
    // The proxy held to what it must be, as every later read-back holds it.
    const proxy = egressPlan
      ? proxyReadBack(proxyFound.value, this.#proxyExpected(name, plan.uid, plan.gid, deadline, egressPlan.image, egressPlan.hostAddresses))
      : joinedNow.value;
    const mismatches = drift(spec, inspected.value, hello, {
      ...this.#expected(host.value, plan.uid, plan.gid, deadline, daemon, kind),
      ...(proxy ? { proxy } : {}),
    });
    if (home) mismatches.push(home);
    if (mismatches.length > 0) {
      return refused("refused", `${name} is not what was declared, so it was deleted: ${mismatches.join("; ")}`);
    }
    if (signal?.aborted) return refused("aborted", `create was aborted after its checks; ${name} was deleted`);
    return ok(this.#refOf(inspected.value, hello, proxy));
  }

  /**
   * A shared proxy a computer may join: there, running and hardened, owned by the computer's
   * user, ending no sooner than the computer, and holding the list the spec names (if any).
   */
  async #joinable(plan: Plan, spec: ComputerSpec, options: CallOptions): Promise<Result<undefined>> {
    const key = plan.egress!;
    const read = await this.proxies.joined(key, { uid: plan.uid, gid: plan.gid, deadline: plan.deadline }, options);
    if (!read.ok) return read;
    const network = read.value;
    if (typeof network === "object" && "other" in network) {
      return fail("refused", `${network.other.replace(/^network allow, but its /, "the ")}; ${plan.name} was not made`, { field: "egress" });
    }
    const asked = typeof spec.network === "object" && "allow" in spec.network ? spec.network.allow : [];
    if (asked.length > 0 && !sameNetwork(network, { allow: asked })) {
      return fail(
        "refused",
        `the egress proxy ${key} holds ${typeof network === "object" && "allow" in network ? network.allow.join(", ") : String(network)}, not the list asked for: ask for { allow: [] } to take the proxy's list; ${plan.name} was not made`,
        { field: "network" },
      );
    }
    return ok();
  }

  #proxyExpected(computer: string, uid: number, gid: number, deadline: string, image: string, addresses: readonly string[]): EgressExpected {
    return {
      key: computer,
      uid,
      gid,
      deadline,
      image,
      hostAddresses: addresses,
      ...(this.#egress.testNetwork ? { testNetwork: this.#egress.testNetwork } : {}),
    };
  }

  /** The proxy's part of an allowlisted computer's plan. */
  #egressPlan(plan: Plan, egress: { hostAddresses: string[]; image: string }): EgressPlan {
    return {
      key: plan.name,
      uid: plan.uid,
      gid: plan.gid,
      deadline: plan.deadline,
      allow: plan.allow ?? [],
      hostAddresses: egress.hostAddresses,
      hint: this.#egress.hint,
      labels: plan.labels,
      image: egress.image,
      ...(this.#egress.testNetwork ? { testNetwork: this.#egress.testNetwork } : {}),
    };
  }

  /**
   * An allowlisted computer's proxy read back and held to what it must be now: hardened and
   * bounded, its volume, the provider's proxy image, and today's host addresses. A computer with
   * no egress part reads undefined.
   */
  async #proxyReadBack(inspected: Inspected, options: CallOptions = {}, read?: { proxy: Inspected | undefined }): Promise<Result<NetworkReadBack | undefined>> {
    if (!hasEgress(inspected)) return ok(undefined);
    const name = nameOf(inspected);
    const user = parseUser(String(inspected.Config?.User ?? ""));
    // A computer that joined a shared proxy reads that proxy, held to its user and deadline.
    const shared = sharedProxyOf(inspected);
    if (shared !== undefined) {
      return this.proxies.joined(
        shared,
        { uid: user.ok ? user.value.uid : NaN, gid: user.ok ? user.value.gid : NaN, deadline: labelsOf(inspected)[DEADLINE_LABEL] ?? "" },
        options,
        read,
      );
    }
    const found = read ? ok(read.proxy) : await inspectEgress(this.engine, name, options);
    if (!found.ok) return found;
    const addresses = hostAddresses(this.#egress);
    if (!addresses.ok) return ok({ other: `network allow, but its egress proxy cannot be held to the Docker host's addresses: ${addresses.error.message}` });
    const bytes = await fs.readFile(this.#daemonPath).catch(() => undefined);
    if (!bytes) return fail("failed", `the daemon at ${this.#daemonPath} could not be read, so ${name}'s egress proxy cannot be checked against it`);
    const [uid, gid] = user.ok ? [user.value.uid, user.value.gid] : [NaN, NaN];
    return ok(
      proxyReadBack(found.value, this.#proxyExpected(name, uid, gid, labelsOf(inspected)[DEADLINE_LABEL] ?? "", egressImageTag(bytes), addresses.value)),
    );
  }

  /**
   * The proxy as a computer's read holds it. A shared proxy stopped or removed by hand is its
   * EgressProxy's drift (that read names it), not each joined computer's: the computer, as
   * declared, reads as an allowlist that reaches nothing until the proxy is made again. Its own
   * side (network mode, networks, the proxy volume's mount) is still held by networkOf.
   */
  async #heldProxyReadBack(inspected: Inspected, options: CallOptions): Promise<Result<NetworkReadBack | undefined>> {
    const shared = hasEgress(inspected) ? sharedProxyOf(inspected) : undefined;
    if (shared === undefined) return this.#proxyReadBack(inspected, options);
    const found = await inspectEgress(this.engine, shared, options);
    if (!found.ok) return found;
    const proxy = await this.#proxyReadBack(inspected, options, { proxy: found.value });
    if (proxy.ok && typeof proxy.value === "object" && "other" in proxy.value && found.value?.State?.Running !== true) return ok({ allow: [] });
    return proxy;
  }

  #expected(host: Host, uid: number, gid: number, deadline: string, daemon: string, kind: MachineKind): DriftExpected {
    const declared = capabilitiesOfKind(kind);
    return {
      user: `${uid}:${gid}`,
      daemon,
      deadline,
      version: this.version,
      groups: declared.groups,
      kind: declared.kind,
      arch: host.arch,
      host: { apparmor: host.apparmor, selinux: host.selinux },
      ...(kind === "desktop" ? { display: this.#display() } : {}),
    };
  }

  #refOf(inspected: Inspected, hello?: Hello, proxy?: NetworkReadBack): ComputerRef {
    const spec: SpecReadBack = specOf(inspected, proxy);
    if (hello) spec.kind = hello.kind;
    return { id: inspected.Id, name: nameOf(inspected), provider: this.id, spec, ...(hello ? { hello } : {}) };
  }

  /** The container a ref names: its id when it has one (a computer renamed by hand keeps it), else its name. */
  #target(ref: ComputerRef): Result<string> {
    if (typeof ref?.id === "string" && ID_PATTERN.test(ref.id)) return ok(ref.id);
    if (typeof ref?.name === "string" && NAME_PATTERN.test(ref.name)) return ok(ref.name);
    return fail("invalid", "a Docker computer's ref has its container id (12 to 64 hex digits) or its name, computer-<12 hex digits>", { field: "id" });
  }

  /**
   * The daemon's connection, its hello held to the computer's kind: a ref's spec says it, else
   * the computer's own label. A desktop whose X server has gone is refused (it reads back linux).
   */
  async connect(ref: ComputerRef, options: CallOptions = {}): Promise<Result<Connection>> {
    const target = this.#target(ref);
    if (!target.ok) return target;
    let kind = ref.spec?.kind;
    if (kind === undefined) {
      const found = await inspect(this.engine, target.value, options);
      if (!found.ok) return found;
      kind = labelsOf(found.value)[KIND_LABEL] === "desktop" ? "desktop" : "linux";
    }
    const declared = capabilitiesOfKind(kind);
    return openConnection(
      this.engine,
      { id: target.value, name: typeof ref.name === "string" ? ref.name : target.value },
      { version: this.version, kind: declared.kind, groups: declared.groups },
      options.signal,
    );
  }

  /** The live view: frames of the computer's screen on a connection of the watch's own. */
  watch(ref: ComputerRef, handlers: WatchHandlers, options: CallOptions & { maxWidth?: number; quality?: number } = {}): Promise<Result<ScreenWatch>> {
    return daemonWatch((signal) => this.connect(ref, signal ? { signal } : {}), handlers, options);
  }

  /**
   * Finds a computer and runs the drift check, as attach does, but hands back what it read
   * whether or not it drifted: the ref with the spec read back, its state, and every mismatch.
   * A Pulumi refresh shows a drifted computer field by field from this; attach refuses it.
   */
  async read(by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
    const byId = by && "id" in by;
    const byLabels = by && "labels" in by && typeof by.labels === "object" && by.labels !== null && Object.keys(by.labels).length > 0;
    if (byId && (typeof by.id !== "string" || !(NAME_PATTERN.test(by.id) || ID_PATTERN.test(by.id)))) {
      return fail("invalid", "attach and read by id take a computer's name (computer-<12 hex digits>) or its container id (12 to 64 hex digits)", {
        field: "id",
      });
    }
    if (!byId && !byLabels) return fail("invalid", "attach and read take { id } or { labels } with at least one label", { field: "by" });
    // The host's enforcement first: a host that lacks any is refused before any other Docker call.
    const host = await this.#enforcingHost(options);
    if (!host.ok) return host;
    let target: string;
    if (byId) {
      target = by.id;
    } else {
      const labels = (by as { labels: Record<string, string> }).labels;
      const found = await listByLabels(this.engine, labels, options);
      if (!found.ok) return found;
      const shown = Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ");
      if (found.value.length === 0) return fail("not_found", `no computer matches the labels ${shown}`);
      if (found.value.length > 1)
        return fail(
          "invalid",
          `${found.value.length} computers match the labels ${shown} (${found.value.map(nameOf).join(", ")}); attach and read take labels that match one`,
        );
      target = found.value[0]!.Id;
    }
    const inspected = await inspect(this.engine, target, options);
    if (!inspected.ok) return inspected;
    const id = inspected.value.Id;
    const name = nameOf(inspected.value);
    const proxy = await this.#heldProxyReadBack(inspected.value, options);
    if (!proxy.ok) return proxy;
    const held = readBackDrift(inspected.value, capabilitiesOfKind("linux"), proxy.value, this.#egress.testNetwork?.range);
    const mismatches = [...held.mismatches];

    let hello: Hello | undefined;
    if (stateOf(inspected.value) === "running") {
      const connection = await openConnection(this.engine, { id, name }, undefined, options.signal);
      if (!connection.ok) {
        if (connection.error.code === "aborted") return connection;
        mismatches.push(connection.error.message);
      } else {
        hello = connection.value.hello;
        const home = await homeDrift(connection.value.client, options.signal).catch(
          (error: Error) => `${HOME} could not be read from inside: ${error.message}`,
        );
        if (home) mismatches.push(home);
        await connection.value.close();
      }
    }
    const bytes = await fs.readFile(this.#daemonPath).catch(() => undefined);
    if (!bytes) return fail("failed", `the daemon at ${this.#daemonPath} could not be read, so ${name}'s daemon cannot be checked against it`);
    const daemon = daemonCopyPath(this.#daemonCache, bytes);
    mismatches.push(
      ...drift(held.spec, inspected.value, hello, {
        ...this.#expected(host.value, held.uid, held.gid, held.deadline, daemon, held.kind),
        ...(proxy.value ? { proxy: proxy.value } : {}),
      }),
    );
    return ok({
      ref: this.#refOf(inspected.value, hello, proxy.value),
      state: stateOf(inspected.value),
      labels: labelsOf(inspected.value),
      ...(hello ? { hello } : {}),
      drift: mismatches,
    });
  }

  /** A computer by name, id or labels, drift-checked; one that drifted is refused and left as it is. */
  async attach(by: AttachBy, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    return attachedIf(await this.read(by, options));
  }

  /** The computers with these labels, whatever their names: one call to the engine. */
  async list(labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
    for (const [key, value] of Object.entries(labels)) {
      if (!key || key.includes("=") || key.includes("\0") || typeof value !== "string" || value.includes("\0")) {
        return fail("invalid", "list takes labels whose keys have no = or NUL and whose values are strings with no NUL", { field: "labels" });
      }
    }
    const byOwnLabels = await listByLabels(this.engine, labels, options);
    if (!byOwnLabels.ok) return byOwnLabels;
    // A claimed pool computer's run labels are in its claim record.
    const found = await withClaims(this.engine, labels, byOwnLabels.value, options);
    if (!found.ok) return found;
    // An allowlisted computer's network is its proxy's: an inspect of each such computer beside
    // one list of every proxy, then one inspect of each proxy they mount, all at once.
    const wholes = await Promise.all(found.value.filter(hasEgress).map((c) => inspect(this.engine, c.Id, options)));
    const whole = new Map<string, Inspected>();
    for (const w of wholes) {
      if (!w.ok && w.error.code !== "not_found") return w;
      if (w.ok) whole.set(w.value.Id, w.value); // else removed meanwhile
    }
    const proxies = await inspectEgressOf(
      this.engine,
      [...whole.values()].map((w) => egressKey(w) ?? nameOf(w)),
      options,
    );
    if (!proxies.ok) return proxies;
    const networks = new Map<string, NetworkReadBack>();
    const read = await Promise.all(
      [...whole.values()].map(async (w) => ({ w, proxy: await this.#proxyReadBack(w, options, { proxy: proxies.value.get(egressKey(w) ?? nameOf(w)) }) })),
    );
    for (const { w, proxy } of read) {
      if (!proxy.ok) return proxy;
      networks.set(w.Id, networkOf(w, proxy.value));
    }
    const infos: ComputerInfo[] = [];
    for (const listed of found.value) {
      if (hasEgress(listed) && !whole.has(listed.Id)) continue; // removed meanwhile
      const network = networks.get(listed.Id) ?? networkOf(listed);
      const labelsRead = labelsOf(listed);
      const info: ComputerInfo = {
        ref: { id: listed.Id, name: nameOf(listed), provider: this.id },
        labels: labelsRead,
        deadline: deadlineOf(labelsRead[DEADLINE_LABEL]),
        state: stateOf(listed),
        network,
      };
      const mount = mountOf(listed);
      if (mount) info.mount = mount;
      infos.push(info);
    }
    return ok(infos);
  }

  async network(ref: ComputerRef, policy?: NetworkPolicy, options: CallOptions = {}): Promise<Result<NetworkReadBack>> {
    const target = this.#target(ref);
    if (!target.ok) return target;
    const inspected = await inspect(this.engine, target.value, options);
    if (!inspected.ok) return inspected;
    const proxy = await this.#proxyReadBack(inspected.value, options);
    if (!proxy.ok) return proxy;
    const now = networkOf(inspected.value, proxy.value);
    if (policy === undefined || sameNetwork(now, policy)) return ok(now);
    return fail(
      "unsupported",
      `a Docker computer's network is fixed at create (Docker cannot move a container with no network onto one); ${nameOf(inspected.value)} stays ${typeof now === "string" ? now : `other (${"other" in now ? now.other : "an allowlist"})`}: make a new computer with the network you want`,
      { field: "network" },
    );
  }

  /** Stopped or removed by its container id; only a computer (the provider's label), whatever its name. */
  async release(ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
    const target = this.#target(ref);
    if (!target.ok) return target;
    if (how !== "stop" && how !== "delete") return fail("invalid", 'release takes "stop" or "delete"', { field: "how" });
    if (options.signal?.aborted) return fail("aborted", `release of ${target.value} was aborted before Docker was asked`);
    // Only a computer is released: a container of another's that took a computer's name is not one.
    const found = await this.engine.call<Inspected>("GET", `/containers/${encodeURIComponent(target.value)}/json`, {
      signal: options.signal,
      timeoutMs: 30_000,
    });
    // A computer already gone may have left its egress parts: they go too, by its label.
    if (found.status === 404) return NAME_PATTERN.test(String(ref.name)) ? removeEgress(this.engine, ref.name, how) : ok();
    if (!found.ok || !found.value) return failure(this.engine, `inspecting ${target.value}`, found);
    if (labelsOf(found.value)[COMPUTER_LABEL] !== "1")
      return fail("not_found", `${target.value} is not a computer (it has no ${COMPUTER_LABEL}=1 label), so it was not released`);
    const id = found.value.Id;
    const released = how === "stop" ? await stop(this.engine, id, options) : await remove(this.engine, id, options);
    if (!released.ok) return released;
    if (how === "delete") {
      const earlier = await removeEarlier(this, found.value);
      if (!earlier.ok) return earlier;
    }
    if (how === "delete" && labelsOf(found.value)[POOL_LABEL] !== undefined) {
      const record = await removeClaim(this.engine, id);
      if (!record.ok) return record;
    }
    // After the computer: its proxy stopped, or the proxy and its volume removed, found by the egress label.
    return removeEgress(this.engine, nameOf(found.value), how);
  }

  /**
   * The janitor's part beside the computers: egress parts whose deadline has passed, or whose
   * computer is gone and that are older than a create could take.
   */
  async sweep(options: SweepOptions = {}): Promise<Result<{ removed: string[] }>> {
    const swept = await sweepEgress(
      this.engine,
      async (computer) => {
        // A shared proxy is its own: it goes at its deadline, not with a computer.
        if (PROXY_PATTERN.test(computer)) return true;
        const there = await this.engine.call("GET", `/containers/${encodeURIComponent(computer)}/json`, { timeoutMs: 30_000 });
        return there.status !== 404;
      },
      { ...(options.now ? { now: options.now.getTime() } : {}), ...(options.labels ? { labels: options.labels } : {}), readyMs: this.#egress.readyMs },
    );
    if (!swept.ok) return swept;
    const claims = await sweepClaims(this.engine, options);
    return claims.ok ? ok({ removed: [...swept.value, ...claims.value] }) : claims;
  }

  /** One list call: Docker answers, and how many computers this provider has there. */
  async testConnection(options: CallOptions = {}): Promise<Result<{ detail: string }>> {
    const found = await listByLabels(this.engine, {}, options);
    if (!found.ok) return found;
    return ok({ detail: `Docker answers; ${found.value.length} computer${found.value.length === 1 ? "" : "s"} of this provider` });
  }
}
