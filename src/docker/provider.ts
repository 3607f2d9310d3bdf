// DockerProvider: the ComputerProvider interface mapped onto the Docker Engine API. This file
// wires the parts into the interface and holds what the provider reads once (the host, the daemon
// copy, the egress image); create is the one flow with Docker's hooks (create/), and read, list,
// release, the create request, the drift check and the container calls live in their own files.
// Only an image's build or pull goes through the docker CLI (cli.ts, image.ts). What a read does
// not need is loaded at its first use (create's flow and hooks, images, warm pools' claims, list
// and release), so a refresh's plugin loads the read-back alone (test/unit/read-loads.test.ts).
import { promises as fs } from "node:fs";
import type { CallOptions } from "../daemon/client.js";
import { daemonLiveView, type LiveView } from "../contract/watch.js";
import { cdpLiveView } from "../kits/browser/screencast.js";
import type {
  AttachBy,
  Capabilities,
  CheckedSpec,
  CheckInput,
  CheckOptions,
  ComputerInfo,
  ComputerProvider,
  ComputerRef,
  ComputerSpec,
  Connection,
  CreateOptions,
  CreateSpec,
  ImageOptions,
  NetworkPolicy,
  NetworkReadBack,
  PauseHooks,
  PoolHooks,
  ReadBack,
  ReleaseHow,
  SnapshotHooks,
  SweepOptions,
} from "../contract/provider.js";
import { sameNetwork } from "../egress/list.js";
import { hostAddresses } from "../egress/host-addresses.js";
import { attachedIf } from "../contract/attach.js";
import { checkedSpec } from "../contract/checked.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { packageVersion } from "../package.js";
import { DockerEngine } from "./api.js";
import { checkSpec } from "./check.js";
import { DockerCli } from "./cli.js";
import { proxyReadBack } from "./computer-egress.js";
import { openConnection, type Target, type Way } from "./connect.js";
import type { MachineKind } from "../daemon/protocol.js";
import { IMAGE_SETTING, kindOfLabels } from "./constants.js";
import { CAPABILITIES, capabilitiesOfKind, type DockerContext, helloGroupsOf, targetOf } from "./context.js";
import { failure, inspect, listByLabels } from "./containers.js";
import { daemonCopy } from "./daemon-cache.js";
import { ensureEgressImage, proxyImageTag } from "./egress-image.js";
import { proxyBinaryBeside } from "../egress/proxy-command.js";
import { DockerEgressProxies } from "./egress-proxy.js";
import { type Host, hostOf } from "./host.js";
import type { EnsureOptions } from "./image.js";
import type { BaseChoice } from "./default-image.js";
import { untilAborted } from "../daemon/bound.js";
import { type DockerProviderOptions, settle, type Settled } from "./options.js";
import { readComputer } from "./read.js";
import { labelsOf, nameOf, networkOf } from "./readback.js";
import { dockerPause } from "./run-state.js";
import { forkRefusal } from "./snapshot-image.js";
import { ImageEtcCache } from "./user-name.js";
import { daemonFile, elsewhereWords } from "./remote.js";
import type { TarFile } from "../kits/image/tar.js";
import { isRemote } from "./engine.js";
import { stageDaemonTree, subpathOf, type VolumeDaemon } from "./volume.js";

export { BROWSER_CAPABILITIES, CAPABILITIES, capabilitiesOfKind, DESKTOP_CAPABILITIES } from "./context.js";
export type { DockerProviderOptions, EgressOptions } from "./options.js";

/** Hooks whose module is loaded at the first call (a refresh of a computer needs neither a pool's nor snapshots'). */
function lazyHooks<T extends object>(load: () => Promise<T>, methods: ReadonlyArray<keyof T>): T {
  let loaded: Promise<T> | undefined;
  const call =
    (method: keyof T) =>
    async (...args: unknown[]) => {
      const hooks = await (loaded ??= load());
      return (hooks[method] as (...a: unknown[]) => unknown).apply(hooks, args);
    };
  return Object.fromEntries(methods.map((m) => [m, call(m)])) as T;
}

/** Docker's image options: onBase is told which base the provider's own recipe stands on, and why. */
export type DockerImageOptions = Omit<EnsureOptions, "docker"> & Pick<ImageOptions, "kind"> & { onBase?: (base: BaseChoice) => void };

export class DockerProvider implements ComputerProvider {
  readonly id = "docker";
  readonly version: string;
  readonly engine: DockerEngine;
  readonly cli: DockerCli;
  /** Warm pools: a claim is a rename (claims.ts). */
  readonly pool: PoolHooks;
  /** The engine's pause and unpause: memory and processes kept (run-state.ts). */
  readonly pause: PauseHooks;
  /** Snapshots: the engine's commit, written anew as the snapshot's own image (snapshots.ts). */
  readonly snapshots: SnapshotHooks;
  /** Shared egress proxies: one proxy a fleet of computers joins (ComputerSpec.egress). */
  readonly proxies: DockerEgressProxies;
  readonly #settled: Settled;
  /** What create's phases, read, list and release take. */
  readonly #context: DockerContext;
  #host: Host | undefined;
  #hostRead: Promise<Result<Host>> | undefined;
  #copying: Promise<string | VolumeDaemon> | undefined;
  #egressImage: Promise<Result<string>> | undefined;
  #daemonFile: Promise<TarFile> | undefined;
  #base: Promise<Result<BaseChoice>> | undefined;

  constructor(options: DockerProviderOptions) {
    const settled = settle(options);
    this.#settled = settled;
    this.engine = options.engine instanceof DockerEngine ? options.engine : new DockerEngine(options.engine);
    const remote = isRemote(this.engine.address) ? { engine: this.engine.address, hostFolders: settled.hostFolders } : undefined;
    if (remote) settled.egress.elsewhere = elsewhereWords(remote.engine);
    this.pool = lazyHooks(
      () => import("./claims.js").then(({ dockerPool }) => dockerPool(this.engine, this.id, (member, kind, o) => this.#open(member, kind, o, "stdio"))),
      ["ready", "members", "take"],
    );
    this.pause = dockerPause(this.engine, (ref, o) => this.connect(ref, o), options.pause);
    this.snapshots = lazyHooks(
      () =>
        import("./snapshots.js").then(({ dockerSnapshots }) =>
          dockerSnapshots(this.engine, remote !== undefined, (ref, o) => this.connect(ref, o), options.pause),
        ),
      ["take", "read", "remove"],
    );
    // A build or pull goes to the same engine as every other call.
    this.cli = options.docker instanceof DockerCli ? options.docker : new DockerCli(options.docker ?? "docker", undefined, this.engine.address);
    this.version = options.version ?? packageVersion();
    this.proxies = new DockerEgressProxies({
      engine: this.engine,
      host: (o) => this.#enforcingHost(o),
      image: (o) => this.#ensureEgressImage(o.signal),
      imageTag: async () => {
        const proxy = proxyBinaryBeside(settled.daemonPath);
        const tag = await proxyImageTag(proxy).catch(() => undefined);
        return tag ? ok(tag) : fail("failed", `the egress proxy at ${proxy} could not be read, so an egress proxy cannot be checked against it`);
      },
      addresses: () => hostAddresses(settled.egress),
      userDefault: settled.userText,
      hint: settled.egress.hint,
      readyMs: settled.egress.readyMs,
      ...(settled.egress.testNetwork ? { testNetwork: settled.egress.testNetwork } : {}),
    });
    this.#context = {
      ...settled,
      id: this.id,
      engine: this.engine,
      version: this.version,
      proxies: this.proxies,
      pause: options.pause,
      etc: new ImageEtcCache(),
      enforcingHost: (o) => this.#enforcingHost(o),
      egressImage: (signal) => this.#ensureEgressImage(signal),
      daemonCopy: () => this.#daemonCopy(),
      remote,
      daemonFile: () => (this.#daemonFile ??= fs.readFile(settled.daemonPath).then(daemonFile)),
      browserImage: (signal) => this.image({ kind: "browser", ...(signal ? { signal } : {}) }),
    };
  }

  /** The proxy's image, made once per provider (its tag is the daemon's hash); a failure is not kept. */
  #ensureEgressImage(signal?: AbortSignal): Promise<Result<string>> {
    this.#egressImage ??= ensureEgressImage(this.cli, proxyBinaryBeside(this.#settled.daemonPath), { signal }).then((r) => {
      if (!r.ok) this.#egressImage = undefined;
      return r;
    });
    return this.#egressImage;
  }

  /**
   * The daemon's copy, or with the volume option its tree on the volume: creates asking at the
   * same moment share one copy and its check (a fleet hashes it once).
   */
  #daemonCopy(): Promise<string | VolumeDaemon> {
    const { daemonPath, daemonCache, volume } = this.#settled;
    this.#copying ??= (
      volume
        ? stageDaemonTree(daemonPath, daemonCache).then((tree) => ({ volume: volume.name, subpath: subpathOf(volume.root, tree) ?? "" }))
        : daemonCopy(daemonPath, daemonCache)
    ).finally(() => (this.#copying = undefined));
    return this.#copying;
  }

  capabilities(): Capabilities {
    const capabilities = structuredClone(capabilitiesOfKind(this.#settled.kind));
    // The image option by name is the image a spec that names none gets; a recipe's is made at create.
    const image = this.#settled.image && "image" in this.#settled.image ? { image: this.#settled.image.image } : {};
    capabilities.defaults = { ...capabilities.defaults, user: this.#settled.userText, ...image };
    // A remote engine's computer holds the daemon in its own files, which a snapshot would take.
    if (this.#context.remote) delete capabilities.snapshot;
    return capabilities;
  }

  /** Every refusal together, with no Docker call (the host's too, once it has been read); else the checked spec. */
  check(spec: CheckInput, options: CheckOptions = {}): Result<CheckedSpec> {
    const { volume, egress } = this.#settled;
    const refusals = checkSpec(spec, {
      capabilities: this.capabilities(),
      ...(options.mountMadeFirst ? { mountMadeFirst: true } : {}),
      ...(this.#host ? { host: this.#host } : {}),
      ...(volume ? { volumeRoot: volume.root } : {}),
      ...(egress.testNetwork ? { testNetwork: egress.testNetwork.range } : {}),
      ...(this.#context.remote ? { remote: this.#context.remote, hostAddresses: (egress.hostAddresses ?? []).length > 0 } : {}),
    });
    // An allowlist's proxy refuses the Docker host's addresses: settings that cannot name them refuse it here, before anything is made.
    // (A remote engine's host is not this one: its addresses are given, and checkSpec holds them.)
    const allowlist = typeof spec?.network === "object" && spec.network !== null;
    const addresses = allowlist && !this.#context.remote ? hostAddresses(egress) : ok([]);
    if (!addresses.ok) refusals.push({ field: "host", message: addresses.error.message });
    const fork = typeof spec?.image === "string" ? forkRefusal(spec.image) : undefined;
    if (fork) refusals.push(fork);
    return checkedSpec(spec, refusals);
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

  /**
   * ensureImage of the provider's image option (a desktop's, for kind desktop), with its docker
   * CLI; with none, the provider's own recipe (Xvfb for a desktop, Chromium for a browser: the
   * browser vendors' fakes' one recipe) on the base chosen once (base()), which onBase is told.
   */
  async image(options: DockerImageOptions = {}): Promise<Result<string>> {
    const { kind = this.#settled.kind, onBase, ...rest } = options;
    const own = kind === "desktop" || kind === "browser";
    let source = kind === "browser" ? undefined : kind === "desktop" ? this.#settled.desktop.image : this.#settled.image;
    const [{ desktopRecipe, dockerRecipe, ensureImage, ofSetting }, { browserRecipe }] = await Promise.all([
      import("./image.js"),
      import("../kits/browser/recipe.js"),
    ]);
    if (!source) {
      const base = await this.base(rest);
      if (!base.ok) return own ? base : ofSetting(base, this.id, IMAGE_SETTING);
      onBase?.(base.value);
      const pinned = base.value.from === "pinned";
      const at = base.value.image;
      source = { recipe: kind === "browser" ? browserRecipe(at) : kind === "desktop" ? desktopRecipe(at) : dockerRecipe(at, pinned) };
    }
    const made = await ensureImage(source, { ...rest, docker: this.cli });
    return own ? made : ofSetting(made, this.id, IMAGE_SETTING);
  }

  /**
   * The base the provider's own recipes stand on, on its engine: the pinned base (pulled once),
   * else the set-up's local base where no registry answers (default-image.ts). Chosen once per
   * provider; a failure is not kept.
   */
  base(options: Omit<EnsureOptions, "docker" | "onStep"> = {}): Promise<Result<BaseChoice>> {
    this.#base ??= import("./default-image.js")
      .then(({ chooseBase }) => chooseBase(this.cli, { ...this.#settled.base, ...options }))
      .then((r) => {
        if (!r.ok) this.#base = undefined;
        return r;
      });
    return untilAborted(this.#base, options.signal, () => fail("aborted", "making the base image ready was aborted"));
  }

  /**
   * The one create flow (src/contract/create.ts) with Docker's hooks: check → prepare (the host,
   * the daemon copy, the egress image) → adopt → run (egress parts, then the container) → the
   * read-back → verify (the drift check), every part made undone on a failure or an abort.
   */
  async create(spec: CreateSpec, options: CreateOptions = {}): Promise<Result<ComputerRef>> {
    const [{ createWith }, { dockerHooks }] = await Promise.all([import("../contract/create.js"), import("./make/hooks.js")]);
    return createWith(
      dockerHooks(this.#context, (s) => this.check(s), this.capabilities().defaults),
      spec,
      options,
    );
  }

  /**
   * The daemon's connection, its hello held to the computer's kind: a ref's spec says it, else
   * the computer's own label. A desktop whose X server has gone is refused (it reads back linux).
   * On an engine of this machine the one inspect also gives init's pid, for its socket.
   */
  async connect(ref: ComputerRef, options: CallOptions = {}): Promise<Result<Connection>> {
    const target = targetOf(ref);
    if (!target.ok) return target;
    const said = ref.spec?.kind;
    const inspecting = said === undefined || !isRemote(this.engine.address) ? inspect(this.engine, target.value, options) : undefined;
    let kind: MachineKind;
    if (said !== undefined) kind = said;
    else {
      const found = await inspecting!;
      if (!found.ok) return found;
      kind = kindOfLabels(labelsOf(found.value));
    }
    const name = typeof ref.name === "string" ? ref.name : target.value;
    return this.#open({ id: target.value, name, ...(inspecting ? { inspected: inspecting } : {}) }, kind, options, "exec");
  }

  /**
   * A connection, its hello held to the kind's declaration: over init's socket from this machine
   * where it can be, else the way given (a pool's claim: the computer's own stdio).
   */
  async #open(container: Target, kind: MachineKind, options: CallOptions, way: Way): Promise<Result<Connection>> {
    const opened = await openConnection(this.engine, container, { version: this.version, kind, groups: helloGroupsOf(kind) }, options.signal, way);
    if (!opened.ok || kind !== "browser") return opened;
    // A browser's CDP, served on this machine's loopback through this connection for as long as it lives.
    const [{ withCdp }, { cdpSocket }] = await Promise.all([import("../kits/browser/computer.js"), import("./cdp-socket.js")]);
    return withCdp(opened.value, cdpSocket(this.engine, container.id, opened.value.client));
  }

  /**
   * The live view: frames of the computer's screen on a connection of the watch's own; a
   * browser's is CDP's screencast of its page, through its connection's CDP.
   */
  readonly watch: LiveView = (ref, handlers, options) =>
    ref?.spec?.kind === "browser" ? cdpLiveView(this)(ref, handlers, options) : daemonLiveView(this)(ref, handlers, options);

  /**
   * Finds a computer and runs the drift check, as attach does, but hands back what it read
   * whether or not it drifted: the ref with the spec read back, its state, and every mismatch.
   * A Pulumi refresh shows a drifted computer field by field from this; attach refuses it.
   */
  read(by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
    return readComputer(this.#context, by, options);
  }

  /** A computer by name, id or labels, drift-checked; one that drifted is refused and left as it is. */
  async attach(by: AttachBy, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    return attachedIf(await this.read(by, options));
  }

  /** The computers with these labels, whatever their names: one call to the engine. */
  async list(labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
    const { listComputers } = await import("./list.js");
    return listComputers(this.#context, labels, options);
  }

  async network(ref: ComputerRef, policy?: NetworkPolicy, options: CallOptions = {}): Promise<Result<NetworkReadBack>> {
    const target = targetOf(ref);
    if (!target.ok) return target;
    const inspected = await inspect(this.engine, target.value, options);
    if (!inspected.ok) return inspected;
    const proxy = await proxyReadBack(this.#context, inspected.value, options);
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
    const { releaseComputer } = await import("./release.js");
    return releaseComputer(this.#context, ref, how, options);
  }

  /**
   * The janitor's part beside the computers: egress parts whose deadline has passed, or whose
   * computer is gone and that are older than a create could take.
   */
  async sweep(options: SweepOptions = {}): Promise<Result<{ removed: string[] }>> {
    const { sweepParts } = await import("./release.js");
    return sweepParts(this.#context, options);
  }

  /** One list call: Docker answers, and how many computers this provider has there. */
  async testConnection(options: CallOptions = {}): Promise<Result<{ detail: string }>> {
    const found = await listByLabels(this.engine, {}, options);
    if (!found.ok) return found;
    return ok({ detail: `Docker answers; ${found.value.length} computer${found.value.length === 1 ? "" : "s"} of this provider` });
  }

  target(): string {
    return `the engine at ${this.engine.address.address} (${this.engine.address.from})`;
  }

  /** The engine's kept connections closed, and an ssh engine's shared login ended. */
  close(): Promise<void> {
    return this.engine.close();
  }
}
