// DockerProvider: the ComputerProvider interface mapped onto the docker CLI. The run flags, the
// drift check, the host's enforcement and the read-back live in their own files; this one wires
// them into create, connect, attach, list, network and release.
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { CallOptions } from "../client.js";
import type { Hello } from "../protocol.js";
import type {
  AttachBy,
  Capabilities,
  ComputerInfo,
  ComputerProvider,
  ComputerRef,
  ComputerSpec,
  Connection,
  NetworkPolicy,
  NetworkReadBack,
  ReadBack,
  ReleaseHow,
  SpecReadBack,
} from "../provider.js";
import { fail, ok, refuse, type Result } from "../result.js";
import { isRootOrRootGroup, parseUser, processUser, userText } from "../user.js";
import { bindWritableProblem } from "./bind.js";
import { checkSpec } from "./check.js";
import { DockerCli, failureOf } from "./cli.js";
import {
  COMPUTER_LABEL, DEADLINE_LABEL, DEFAULT_CPUS, DEFAULT_MEMORY_MB, DEFAULT_PIDS, HOME, ID_PATTERN, INSPECT_BATCH, MAX_LIFETIME_MS, NAME_PATTERN,
} from "./constants.js";
import { DaemonCacheError, daemonCopy, daemonCopyPath, DEFAULT_DAEMON_CACHE } from "./daemon-cache.js";
import { drift, type DriftExpected } from "./drift.js";
import { homeDrift } from "./home.js";
import { type Host, hostOf } from "./host.js";
import { dockerRecipe, ensureImage, type EnsureOptions, type ImageSource, sourceProblem, toolchainBase } from "./image.js";
import { openConnection } from "./connect.js";
import { packageVersion } from "./package.js";
import { planOf } from "./plan.js";
import { deadlineOf, type Inspected, isComputer, labelsOf, mountOf, nameOf, networkOf, specOf, stateOf } from "./readback.js";
import { runArgs } from "./run-args.js";

export interface DockerProviderOptions {
  /** computerd for the Docker host's architecture; the provider binds its own copy of it. */
  daemonPath: string;
  /** Where the copy lives (default ~/.cache/agentrun-computer): 0700, this user's. */
  daemonCache?: string;
  /** The computer's user when a spec names none: uid:gid, never root or root's group. */
  user?: string;
  /** The image docker.image() makes ready; default the provider's recipe on the set-up's base. */
  image?: ImageSource;
  /** The docker CLI: its path (default docker), or a DockerCli. */
  docker?: string | DockerCli;
  /**
   * The version the daemon must report in hello (default: this package's, which its daemon
   * carries). Only the conformance suite's drifted provider sets another.
   */
  version?: string;
  /** For a provider in a container of the Docker it drives: the named volume its files are on. */
  volume?: { name: string; root: string };
}

export const CAPABILITIES: Capabilities = {
  kind: "linux",
  os: "linux",
  daemon: "pid1",
  groups: ["exec", "files", "processes"],
  lifetime: "janitor",
  maxLifetimeMs: MAX_LIFETIME_MS,
  network: ["none", "open"],
  networkReadBack: true,
  release: ["stop", "delete"],
  stopDeletes: false,
  user: ["root", "uid"],
  mount: ["bind"],
  defaults: { cpus: DEFAULT_CPUS, memoryMb: DEFAULT_MEMORY_MB, pids: DEFAULT_PIDS, workdir: HOME },
};

/** docker inspect's fields that list reads, and no more. */
const LIST_FORMAT =
  '{"Id":{{json .Id}},"Name":{{json .Name}},"State":{"Running":{{json .State.Running}}},"Config":{"Labels":{{json .Config.Labels}}},' +
  '"HostConfig":{"NetworkMode":{{json .HostConfig.NetworkMode}}},"NetworkSettings":{"Networks":{{json .NetworkSettings.Networks}}},"Mounts":{{json .Mounts}}}';

const RELEASE_MS = 60_000;
const RUN_MS = 120_000;

/** Docker's JSON, or undefined for anything else (a CLI that is not Docker's). */
function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** 45000 is "45 s", 101234 is "101.2 s"; exact when asked (a lifetime), else to a tenth. */
function seconds(ms: number, exact = false): string {
  return `${exact ? ms / 1000 : Math.round(ms / 100) / 10} s`;
}

export class DockerProvider implements ComputerProvider {
  readonly id = "docker";
  readonly version: string;
  readonly cli: DockerCli;
  readonly #daemonPath: string;
  readonly #daemonCache: string;
  readonly #user: string;
  readonly #image: ImageSource | undefined;
  readonly #volume: { name: string; root: string } | undefined;
  #host: Host | undefined;
  #hostRead: Promise<Result<Host>> | undefined;

  constructor(options: DockerProviderOptions) {
    if (typeof options?.daemonPath !== "string" || options.daemonPath.length === 0) {
      throw new TypeError("DockerProvider needs daemonPath: computerd for the Docker host's architecture (dist/computerd-linux-amd64)");
    }
    this.#daemonPath = options.daemonPath;
    this.#daemonCache = path.resolve(options.daemonCache ?? DEFAULT_DAEMON_CACHE);
    if (options.user !== undefined) {
      const user = parseUser(options.user);
      if (!user.ok) throw new TypeError(`DockerProvider's user option: ${user.error.message}`);
      if (isRootOrRootGroup(user.value)) {
        throw new TypeError(`DockerProvider's user option ${userText(user.value)} is root or in root's group; only a spec may ask for that (user "0", or a gid of 0)`);
      }
      this.#user = userText(user.value);
    } else this.#user = processUser();
    if (options.image !== undefined) {
      const problem = sourceProblem(options.image);
      if (problem) throw new TypeError(`DockerProvider's image option: ${problem}`);
      this.#image = options.image;
    } else {
      const base = toolchainBase();
      this.#image = base ? { recipe: dockerRecipe(base) } : undefined;
    }
    if (options.volume !== undefined) {
      const { name, root } = options.volume;
      if (typeof name !== "string" || !name || typeof root !== "string" || !path.isAbsolute(root)) {
        throw new TypeError("DockerProvider's volume option is { name, root }: the named volume, and where this process has it mounted (an absolute path)");
      }
      const rel = path.relative(root, this.#daemonCache);
      if (rel.startsWith("..") || path.isAbsolute(rel)) {
        throw new TypeError(`DockerProvider's daemonCache ${this.#daemonCache} is not at or below the volume's root ${root}; with the volume option the daemon must be on the volume`);
      }
      this.#volume = { name, root: path.resolve(root) };
    }
    this.cli = options.docker instanceof DockerCli ? options.docker : new DockerCli(options.docker ?? "docker");
    this.version = options.version ?? packageVersion();
  }

  capabilities(): Capabilities {
    const capabilities = structuredClone(CAPABILITIES);
    // The image option by name is the image a spec that names none gets; a recipe's is made at create.
    const image = this.#image && "image" in this.#image ? { image: this.#image.image } : {};
    capabilities.defaults = { ...capabilities.defaults, user: this.#user, ...image };
    return capabilities;
  }

  check(spec: ComputerSpec): Result<undefined> {
    return refuse(checkSpec(spec, { capabilities: CAPABILITIES, ...(this.#host ? { host: this.#host } : {}), ...(this.#volume ? { volumeRoot: this.#volume.root } : {}) }));
  }

  /** The host's enforcement, from docker info once per provider; a failed read is not kept. */
  async host(options: CallOptions = {}): Promise<Result<Host>> {
    if (this.#host) return ok(this.#host);
    if (options.signal?.aborted) return fail("aborted", "reading the Docker host was aborted before docker info");
    // One read for every caller at once; a caller's abort ends its own wait, not the others'.
    this.#hostRead ??= (async () => {
      const read = await this.cli.run(["info", "--format", "{{json .}}"], { timeoutMs: 30_000 });
      if (!read.ok) {
        const failure = failureOf("docker info", read, this.cli.path);
        return fail(failure.code, failure.message);
      }
      try {
        this.#host = hostOf(JSON.parse(read.stdout));
        return ok(this.#host);
      } catch {
        return fail("failed", "docker info did not answer JSON; is the docker CLI at its path Docker's?");
      }
    })().finally(() => (this.#hostRead = undefined));
    const signal = options.signal;
    if (!signal) return this.#hostRead;
    const read = this.#hostRead;
    return new Promise((resolve) => {
      const onAbort = () => resolve(fail("aborted", "reading the Docker host (docker info) was aborted; nothing was made"));
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
      return fail("refused", `${host.value.lacks.join("; ")}. Nothing was made: run computers on a Docker host that enforces every limit and has seccomp`, { field: "host" });
    }
    return host;
  }

  /** ensureImage of the provider's image option, with its docker CLI. */
  image(options: Omit<EnsureOptions, "docker"> = {}): Promise<Result<string>> {
    if (!this.#image) {
      return Promise.resolve(fail("invalid", "no image to make: dist/toolchain.json names no base image (run bash scripts/setup.sh, which makes it), and no image option was given"));
    }
    return ensureImage(this.#image, { ...options, docker: this.cli });
  }

  async create(spec: ComputerSpec, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    const { signal } = options;
    const checked = this.check(spec);
    if (!checked.ok) return checked;
    if (signal?.aborted) return fail("aborted", "create was aborted before anything was made");
    const host = await this.#enforcingHost(options);
    if (!host.ok) return host;
    const withHost = this.check(spec); // now with the host: a remap with a bind, an old engine with the volume option
    if (!withHost.ok) return fail("refused", `${withHost.error.message}. Nothing was made`, { field: withHost.error.field ?? "host" });

    const name = `computer-${randomBytes(6).toString("hex")}`;
    let daemon: string;
    try {
      daemon = await daemonCopy(this.#daemonPath, this.#daemonCache);
    } catch (error) {
      if (error instanceof DaemonCacheError) return fail("invalid", error.message, { field: "daemonCache" });
      return fail("failed", `the daemon at ${this.#daemonPath} could not be copied into ${this.#daemonCache}: ${(error as Error).message}`);
    }
    // The lifetime counts from here, just before docker run.
    const started = Date.now();
    const deadline = new Date(started + spec.lifetimeMs).toISOString();
    const plan = planOf(spec, { name, deadline, daemon, userDefault: this.#user });
    if (plan.mount) {
      const problem = await bindWritableProblem(plan.mount.path, plan.uid, plan.gid);
      if (problem) return fail("refused", problem, { field: "mount" });
    }
    if (signal?.aborted) return fail("aborted", "create was aborted before docker run; nothing was made");

    const ran = await this.cli.run(runArgs(plan), { signal, timeoutMs: RUN_MS });
    if (!ran.ok) {
      // A killed CLI may leave Docker making the container still; one that exited has said all.
      if (ran.aborted || ran.timedOut) await this.#removeLate(name);
      else await this.#remove(name);
      if (ran.aborted) return fail("aborted", `create was aborted during docker run; ${name} was removed`);
      if (/No such image/i.test(ran.stderr)) {
        return fail("not_found", `the image ${spec.image} is not on this Docker host, and create pulls nothing: make it ready first (docker.image(), or ensureImage({ image }) on a host with a registry); nothing was made`, { field: "image" });
      }
      const failure = failureOf(`docker run of ${name}`, ran, this.cli.path);
      return fail(failure.code, `${failure.message}; nothing was left`);
    }
    if (Date.now() >= Date.parse(deadline)) {
      await this.#remove(name);
      return fail("timeout", `${name}: its lifetime of ${seconds(spec.lifetimeMs, true)} ended before docker run finished (it took ${seconds(Date.now() - started)}); ask for a longer lifetime; it was removed`);
    }
    const refused = async (code: "refused" | "aborted" | "timeout" | "failed" | "unreachable" | "gone", words: string) => {
      await this.#remove(name);
      return fail(code, words);
    };
    if (signal?.aborted) return refused("aborted", `create was aborted after docker run; ${name} was deleted`);

    const inspected = await this.#inspect(name, { signal });
    if (!inspected.ok) {
      return refused(signal?.aborted ? "aborted" : inspected.error.code === "not_found" ? "gone" : "failed", `${inspected.error.message}; ${name} was deleted`);
    }
    const state = inspected.value.State;
    if (!state?.Running) {
      const took = Date.now() - started;
      if (state?.ExitCode === 0 && Date.now() >= Date.parse(deadline)) {
        return refused("timeout", `${name}: its lifetime of ${seconds(spec.lifetimeMs, true)} ended before docker run finished (it took ${seconds(took)}); ask for a longer lifetime`);
      }
      const logs = await this.cli.run(["logs", "--tail", "5", name], { timeoutMs: 10_000 });
      const words = `${logs.stdout}\n${logs.stderr}`.trim().split("\n").filter(Boolean).pop();
      return refused("failed", `${name} was not running after its start (exit code ${state?.ExitCode ?? "?"}${words ? `: ${words}` : ""}); it was removed`);
    }

    const connection = await openConnection(this.cli, name, undefined, signal);
    if (!connection.ok) {
      if (signal?.aborted) return refused("aborted", `create was aborted while saying hello; ${name} was deleted`);
      return refused(connection.error.code === "timeout" ? "timeout" : "refused", `${connection.error.message}; ${name} was deleted`);
    }
    const hello = connection.value.hello;
    const home = await homeDrift(connection.value.client, signal).catch((error: Error) => `${HOME} could not be read from inside: ${error.message}`);
    await connection.value.close();
    if (signal?.aborted) return refused("aborted", `create was aborted while reading the computer; ${name} was deleted`);
    const mismatches = drift(spec, inspected.value, hello, this.#expected(host.value, plan.uid, plan.gid, deadline, daemon));
    if (home) mismatches.push(home);
    if (mismatches.length > 0) {
      return refused("refused", `${name} is not what was declared, so it was deleted: ${mismatches.join("; ")}`);
    }
    if (signal?.aborted) return refused("aborted", `create was aborted after its checks; ${name} was deleted`);
    return ok(this.#refOf(inspected.value, hello));
  }

  #expected(host: Host, uid: number, gid: number, deadline: string, daemon: string): DriftExpected {
    return {
      user: `${uid}:${gid}`,
      daemon,
      deadline,
      version: this.version,
      groups: CAPABILITIES.groups,
      kind: CAPABILITIES.kind,
      arch: host.arch,
      host: { apparmor: host.apparmor, selinux: host.selinux },
    };
  }

  #refOf(inspected: Inspected, hello?: Hello): ComputerRef {
    const spec: SpecReadBack = specOf(inspected);
    if (hello) spec.kind = hello.kind;
    return { id: inspected.Id, name: nameOf(inspected), provider: this.id, spec, ...(hello ? { hello } : {}) };
  }

  /** docker rm --force --volumes by exact name, bounded, ignoring the caller's signal. */
  async #remove(name: string): Promise<Result<undefined>> {
    const removed = await this.cli.run(["rm", "--force", "--volumes", name], { timeoutMs: RELEASE_MS });
    if (removed.ok || /No such container/i.test(removed.stderr)) return ok();
    const failure = failureOf(`docker rm of ${name}`, removed, this.cli.path);
    return fail(failure.code, failure.message);
  }

  /**
   * After a docker run that was killed: the Docker daemon may still make the container after the
   * CLI is gone, so it is removed, then looked for again for a while and removed if it came.
   */
  async #removeLate(name: string): Promise<void> {
    await this.#remove(name);
    for (let i = 0; i < 6; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const seen = await this.cli.run(["ps", "--all", "--quiet", "--filter", `name=^/${name}$`], { timeoutMs: 10_000 });
      if (seen.ok && seen.stdout.trim()) await this.#remove(name);
    }
  }

  /** One container, whole; not_found when Docker has none or it is not a computer. */
  async #inspect(target: string, options: CallOptions): Promise<Result<Inspected>> {
    const read = await this.cli.run(["inspect", "--type", "container", target], { signal: options.signal, timeoutMs: 30_000 });
    if (!read.ok) {
      if (/No such (object|container)/i.test(read.stderr)) return fail("not_found", `no computer ${target} on this Docker host`);
      const failure = failureOf(`docker inspect ${target}`, read, this.cli.path);
      return fail(failure.code, failure.message);
    }
    const [inspected] = parseJson<Inspected[]>(read.stdout) ?? [];
    if (!inspected || !isComputer(inspected)) return fail("not_found", `no computer ${target} on this Docker host (a container that is not a computer does not count)`);
    return ok(inspected);
  }

  #target(ref: ComputerRef): Result<string> {
    if (typeof ref?.name === "string" && NAME_PATTERN.test(ref.name)) return ok(ref.name);
    return fail("invalid", "a Docker computer's ref has its name, computer-<12 hex digits>", { field: "name" });
  }

  async connect(ref: ComputerRef, options: CallOptions = {}): Promise<Result<Connection>> {
    const target = this.#target(ref);
    if (!target.ok) return target;
    return openConnection(this.cli, target.value, { version: this.version, kind: CAPABILITIES.kind, groups: CAPABILITIES.groups }, options.signal);
  }

  /**
   * Finds a computer and runs the drift check, as attach does, but hands back what it read
   * whether or not it drifted: the ref with the spec read back, its state, and every mismatch.
   * A Pulumi refresh shows a drifted computer field by field from this; attach refuses it.
   */
  async read(by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
    let target: string;
    if (by && "id" in by) {
      if (typeof by.id !== "string" || !(NAME_PATTERN.test(by.id) || ID_PATTERN.test(by.id))) {
        return fail("invalid", "attach and read by id take a computer's name (computer-<12 hex digits>) or its container id (12 to 64 hex digits)", { field: "id" });
      }
      target = by.id;
    } else if (by && "labels" in by && typeof by.labels === "object" && by.labels !== null && Object.keys(by.labels).length > 0) {
      const found = await this.#names(by.labels, options);
      if (!found.ok) return found;
      const shown = Object.entries(by.labels).map(([k, v]) => `${k}=${v}`).join(", ");
      if (found.value.length === 0) return fail("not_found", `no computer matches the labels ${shown}`);
      if (found.value.length > 1) return fail("invalid", `${found.value.length} computers match the labels ${shown} (${found.value.map((f) => f.name).join(", ")}); attach and read take labels that match one`);
      target = found.value[0]!.name;
    } else {
      return fail("invalid", "attach and read take { id } or { labels } with at least one label", { field: "by" });
    }
    const host = await this.#enforcingHost(options);
    if (!host.ok) return host;
    const inspected = await this.#inspect(target, options);
    if (!inspected.ok) return inspected;
    const name = nameOf(inspected.value);
    const readBack = specOf(inspected.value);
    const mismatches: string[] = [];

    // The spec as read back, held to what check allows.
    const asSpec: ComputerSpec = {
      image: readBack.image,
      lifetimeMs: 1,
      network: typeof readBack.network === "string" ? readBack.network : "none",
      labels: Object.fromEntries(Object.entries(labelsOf(inspected.value)).filter(([k]) => k !== COMPUTER_LABEL && !k.startsWith(`${COMPUTER_LABEL}.`))),
      cpus: readBack.cpus,
      memoryMb: readBack.memoryMb,
      pids: readBack.pids,
      user: readBack.user,
      workdir: readBack.workdir,
    };
    if (readBack.mount && "kind" in readBack.mount && readBack.mount.kind === "bind") asSpec.mount = { kind: "bind", path: readBack.mount.path };
    else if (readBack.mount && "other" in readBack.mount) mismatches.push(`the run folder reads back as other: ${readBack.mount.other}`);
    for (const refusal of checkSpec({ ...asSpec, labels: {} }, { capabilities: CAPABILITIES })) {
      if (refusal.field !== "mount.path" && refusal.field !== "mount") mismatches.push(`read back, ${refusal.message}`);
    }
    const deadline = readBack.deadline;
    if (deadlineOf(deadline) === undefined) {
      mismatches.push(`the ${DEADLINE_LABEL} label ${deadline === undefined ? "is missing" : `reads ${JSON.stringify(deadline)}`}, not the ISO time create writes, at most 30 days away`);
    }
    const user = parseUser(readBack.user);
    if (!user.ok || userText(user.value) !== readBack.user) mismatches.push(`Config.User is ${JSON.stringify(readBack.user)}, not uid:gid as create writes it`);
    const { uid, gid } = user.ok ? user.value : { uid: NaN, gid: NaN };

    let hello: Hello | undefined;
    if (stateOf(inspected.value) === "running") {
      const connection = await openConnection(this.cli, name, undefined, options.signal);
      if (!connection.ok) {
        if (connection.error.code === "aborted") return connection;
        mismatches.push(connection.error.message);
      } else {
        hello = connection.value.hello;
        const home = await homeDrift(connection.value.client, options.signal).catch((error: Error) => `${HOME} could not be read from inside: ${error.message}`);
        if (home) mismatches.push(home);
        await connection.value.close();
      }
    }
    const bytes = await fs.readFile(this.#daemonPath).catch(() => undefined);
    if (!bytes) return fail("failed", `the daemon at ${this.#daemonPath} could not be read, so ${name}'s daemon cannot be checked against it`);
    const daemon = daemonCopyPath(this.#daemonCache, bytes);
    mismatches.push(...drift(asSpec, inspected.value, hello, this.#expected(host.value, uid, gid, deadline ?? "", daemon)));
    return ok({
      ref: this.#refOf(inspected.value, hello),
      state: stateOf(inspected.value),
      labels: labelsOf(inspected.value),
      ...(hello ? { hello } : {}),
      drift: mismatches,
    });
  }

  /** A computer by name, id or labels, drift-checked; one that drifted is refused and left as it is. */
  async attach(by: AttachBy, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    const read = await this.read(by, options);
    if (!read.ok) return read;
    const { ref, drift: mismatches } = read.value;
    if (mismatches.length > 0) return fail("refused", `${ref.name} is not what was declared (left as it is): ${mismatches.join("; ")}`);
    return ok(ref);
  }

  /** The computers docker ps lists with these labels: ids and names, one call. */
  async #names(labels: Record<string, string>, options: CallOptions): Promise<Result<Array<{ id: string; name: string }>>> {
    const filters = [`label=${COMPUTER_LABEL}=1`, ...Object.entries(labels).map(([k, v]) => `label=${k}=${v}`)].flatMap((f) => ["--filter", f]);
    const listed = await this.cli.run(["ps", "--all", "--no-trunc", ...filters, "--format", "{{.ID}}\t{{.Names}}"], { signal: options.signal, timeoutMs: 30_000 });
    if (!listed.ok) {
      const failure = failureOf("docker ps", listed, this.cli.path);
      return fail(failure.code, failure.message);
    }
    return ok(
      listed.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const [id = "", name = ""] = line.split("\t");
          return { id, name };
        })
        .filter((c) => NAME_PATTERN.test(c.name)),
    );
  }

  async list(labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
    for (const [key, value] of Object.entries(labels)) {
      if (!key || key.includes("=") || key.includes("\0") || typeof value !== "string" || value.includes("\0")) {
        return fail("invalid", "list takes labels whose keys have no = or NUL and whose values are strings with no NUL", { field: "labels" });
      }
    }
    const found = await this.#names(labels, options);
    if (!found.ok) return found;
    const out: ComputerInfo[] = [];
    for (let i = 0; i < found.value.length; i += INSPECT_BATCH) {
      const ids = found.value.slice(i, i + INSPECT_BATCH).map((c) => c.id);
      const read = await this.cli.run(["inspect", "--type", "container", "--format", LIST_FORMAT, ...ids], { signal: options.signal, timeoutMs: 60_000 });
      // A computer gone between ps and inspect is left out: Docker says so and lists the rest.
      const onlyGone = read.stderr.split("\n").filter(Boolean).every((l) => /No such (object|container)/i.test(l));
      if (!read.ok && !(read.exitCode === 1 && onlyGone)) {
        const failure = failureOf("docker inspect", read, this.cli.path);
        return fail(failure.code, failure.message);
      }
      for (const line of read.stdout.split("\n").filter(Boolean)) {
        const inspected = parseJson<Inspected>(line);
        if (!inspected || !isComputer(inspected)) continue;
        const labelsRead = labelsOf(inspected);
        const info: ComputerInfo = {
          ref: { id: inspected.Id, name: nameOf(inspected), provider: this.id },
          labels: labelsRead,
          deadline: deadlineOf(labelsRead[DEADLINE_LABEL]),
          state: stateOf(inspected),
          network: networkOf(inspected),
        };
        const mount = mountOf(inspected);
        if (mount) info.mount = mount;
        out.push(info);
      }
    }
    return ok(out);
  }

  async network(ref: ComputerRef, policy?: NetworkPolicy, options: CallOptions = {}): Promise<Result<NetworkReadBack>> {
    const target = this.#target(ref);
    if (!target.ok) return target;
    const inspected = await this.#inspect(target.value, options);
    if (!inspected.ok) return inspected;
    const now = networkOf(inspected.value);
    if (policy === undefined || (typeof policy === "string" && policy === now)) return ok(now);
    return fail("unsupported", `a Docker computer's network is fixed at create (Docker cannot move a container with no network onto one); ${target.value} stays ${typeof now === "string" ? now : `other (${"other" in now ? now.other : "an allowlist"})`}: make a new computer with the network you want`, { field: "network" });
  }

  async release(ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
    const target = this.#target(ref);
    if (!target.ok) return target;
    if (how !== "stop" && how !== "delete") return fail("invalid", 'release takes "stop" or "delete"', { field: "how" });
    if (options.signal?.aborted) return fail("aborted", `release of ${target.value} was aborted before Docker was asked`);
    // Only a computer is released: a container of another's that took a computer's name is not one.
    const label = await this.cli.run(["inspect", "--type", "container", "--format", `{{index .Config.Labels "${COMPUTER_LABEL}"}}`, target.value], { signal: options.signal, timeoutMs: 30_000 });
    if (!label.ok && /No such (object|container)/i.test(label.stderr)) return ok();
    if (!label.ok) {
      const failure = failureOf(`docker inspect ${target.value}`, label, this.cli.path);
      return fail(failure.code, failure.message);
    }
    if (label.stdout.trim() !== "1") return fail("not_found", `${target.value} is not a computer (it has no ${COMPUTER_LABEL}=1 label), so it was not released`);
    const args = how === "stop" ? ["stop", "--time", "10", target.value] : ["rm", "--force", "--volumes", target.value];
    const done = await this.cli.run(args, { signal: options.signal, timeoutMs: RELEASE_MS });
    if (done.ok || /No such container/i.test(done.stderr)) return ok();
    const failure = failureOf(`docker ${args[0]} of ${target.value}`, done, this.cli.path);
    return fail(failure.code, failure.message);
  }

  /** One docker ps: Docker answers, and how many computers this provider has there. */
  async testConnection(options: CallOptions = {}): Promise<Result<{ detail: string }>> {
    const found = await this.#names({}, options);
    if (!found.ok) return found;
    return ok({ detail: `Docker answers; ${found.value.length} computer${found.value.length === 1 ? "" : "s"} of this provider` });
  }
}
