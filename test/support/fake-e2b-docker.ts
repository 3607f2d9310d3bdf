// A fake of the E2BSandboxClass slice whose sandboxes are real Docker containers: each runs as root
// with every capability this engine can give and no seccomp profile (a Firecracker VM's root), on
// an internal Docker network of the run's own (nothing leaves), with a stand-in envd as its first
// process listening on 49983 (and 2280) on the loopback and on the container's address, so
// isolation.vendor-agent is tested for real. Commands run as envd runs them, under bash -l -c, as
// the user asked for, through docker exec; a background command's stream ends with its signal
// while the command keeps running (envd's start.go); a foreground one that exits non-zero throws
// CommandExitError; a command's timeout (default 60 s, 0 none) kills it. Metadata and E2B's own
// fields are container labels, and the end is a file of the run's, so every process with a fake of
// the same run reads one state (a test beside a Pulumi plugin). A sandbox past its end is killed
// when next read, as E2B kills it at its timeout. Everything carries agentrun.test.e2b-fake=<run>.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { execa } from "execa";
import type {
  E2BApiOpts,
  E2BCommandHandle,
  E2BListOpts,
  E2BPaginator,
  E2BSandbox,
  E2BSandboxClass,
  E2BSandboxInfo,
  E2BSandboxOpts,
  E2BSnapshotInfo,
  E2BPages,
} from "../../src/e2b/sdk.js";
import { packageRoot } from "../../src/package.js";
import { everyCapability } from "./fake-modal-docker.js";
import { FakeSnapshots, UNSET } from "./fake-e2b-snapshots.js";

export const FAKE_LABEL = "agentrun.test.e2b-fake";
const META = "e2b.meta.";
const STANDIN_IN = "/e2b-envd/standin";
const DOCKER_MS = 60_000;

class SdkError extends Error {
  constructor(name: string, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = name;
    Object.assign(this, extra);
  }
}
const notFound = (id: string) => new SdkError("SandboxNotFoundError", `Sandbox ${id} not found`);

export interface FakeOptions {
  /** This run's label value: every container carries it, and remove() ends them by it. */
  run: string;
  /** The key every call must carry. */
  apiKey?: string;
  /** Templates by name to Docker images; "base" is the set-up's base image unless given. */
  templates?: Record<string, string>;
  /** The stand-in agent (default dist/test/standin-linux-amd64, built by test/support/standin.ts). */
  standin?: string;
}

type Opts = E2BApiOpts & { apiUrl?: string };

interface Inspect {
  Name: string;
  State: { Running: boolean; Paused: boolean; Status: string };
  Config: { Labels: Record<string, string> | null };
  NetworkSettings: { Networks: Record<string, { IPAddress: string }> };
}

/**
 * docker exec of argv in a sandbox as envd starts a process: as the user (uid:gid), in cwd, with
 * envs, its pid (in the container) written to pidFile first, so a signal reaches it by pid.
 */
export function execArgs(
  id: string,
  user: string,
  opts: { cwd?: string | undefined; envs?: Record<string, string> | undefined },
  pidFile: string,
  argv: string[],
): string[] {
  return [
    "exec",
    "-i",
    "-u",
    user,
    ...(opts.cwd ? ["-w", opts.cwd] : []),
    ...Object.entries(opts.envs ?? {}).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
    id,
    "/bin/sh",
    "-c",
    `echo $$ > ${pidFile}; exec "$0" "$@"`,
    ...argv,
  ];
}

function baseImage(): string {
  return (JSON.parse(readFileSync(path.join(packageRoot(), "dist", "toolchain.json"), "utf8")) as { baseImage: string }).baseImage;
}

interface Running {
  child: ChildProcess;
  pidFile: string;
}

export class E2BDockerFake implements E2BSandboxClass {
  readonly run: string;
  readonly options: FakeOptions;
  readonly network: string;
  /** Its snapshots: committed images of the run's. */
  readonly snapshots: FakeSnapshots;
  readonly #commands = new Map<number, Running>();
  #nextPid = 1000;
  /** E2B answers a create this much after the sandbox runs (a create the provider gives up on). */
  createDelayMs = 0;
  /** A test's hook, awaited at each files.write before the bytes land (an agent killed mid-create). */
  onUpload: ((sandboxId: string) => Promise<void>) | undefined;

  constructor(options: FakeOptions) {
    if (!/^[\w.-]{1,64}$/.test(options.run)) throw new TypeError("the fake's run is a label value of letters, digits, _ . -");
    this.options = options;
    this.run = options.run;
    this.network = `fake-e2b-${options.run}`;
    this.snapshots = new FakeSnapshots((args) => this.docker(args), FAKE_LABEL, options.run);
  }

  async docker(args: string[], input?: string | Buffer): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const ran = await execa("docker", args, { reject: false, timeout: DOCKER_MS, ...(input === undefined ? { stdin: "ignore" as const } : { input }) });
    return { exitCode: ran.exitCode ?? 1, stdout: String(ran.stdout), stderr: String(ran.stderr) };
  }

  #dir(): string {
    return path.join(tmpdir(), `agentrun-e2b-fake-${this.run}`);
  }

  #endOf(id: string): number {
    return Number(readFileSync(path.join(this.#dir(), `${id}.end`), "utf8"));
  }

  #setEnd(id: string, at: number): void {
    mkdirSync(this.#dir(), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(this.#dir(), `${id}.end`), String(at));
  }

  /**
   * The connection options every call must carry: the key, and the provider's own domain, API URL
   * and debug. asked: false for what sends no request (the SDK's list makes its paginator), where a
   * wrong key shows only at the first page.
   */
  #auth(opts: Opts | undefined, asked = true): void {
    if (!opts?.apiKey || (asked && this.options.apiKey !== undefined && opts.apiKey !== this.options.apiKey))
      throw new SdkError("AuthenticationError", "Unauthorized, please check your credentials.");
    if (opts.debug !== false)
      throw new SdkError("InvalidArgumentError", "the fake takes debug: false, given explicitly (with debug on, the SDK fakes a create and skips a kill)");
    if (!opts.domain || opts.apiUrl !== `https://api.${opts.domain}`)
      throw new SdkError("InvalidArgumentError", "the fake takes the domain and the API URL https://api.<domain>, given explicitly");
    if (opts.signal?.aborted) throw new SdkError("TimeoutError", "The operation was aborted");
  }

  async #inspect(id: string): Promise<Inspect> {
    if (!/^[\w.-]+$/.test(id)) throw notFound(id);
    const read = await this.docker(["inspect", "--type", "container", id]);
    if (read.exitCode !== 0) throw notFound(id);
    const [inspected] = JSON.parse(read.stdout) as Inspect[];
    if (!inspected || inspected.Config.Labels?.[FAKE_LABEL] !== this.run) throw notFound(id);
    // E2B kills a sandbox at its timeout (onTimeout kill): the fake does so when it is next read.
    if (Date.now() >= this.#endOf(id)) {
      await this.docker(["rm", "--force", id]);
      throw notFound(id);
    }
    // A sandbox whose envd (its first process) ended is gone, and E2B removes it.
    if (!inspected.State.Running && !inspected.State.Paused) {
      await this.docker(["rm", "--force", id]);
      throw notFound(id);
    }
    return inspected;
  }

  #info(id: string, c: Inspect): E2BSandboxInfo {
    const labels = c.Config.Labels ?? {};
    const template = labels["e2b.template"] ?? "";
    return {
      sandboxId: id,
      templateId: `tmpl${Buffer.from(template).toString("hex").slice(0, 16)}`,
      name: template,
      metadata: Object.fromEntries(
        Object.entries(labels)
          .filter(([k, v]) => k.startsWith(META) && v !== UNSET)
          .map(([k, v]) => [k.slice(META.length), v]),
      ),
      startedAt: new Date(Number(labels["e2b.started"])),
      endAt: new Date(this.#endOf(id)),
      state: c.State.Paused ? "paused" : "running",
      cpuCount: 2,
      memoryMB: 512,
      envdVersion: "0.2.0-standin",
      allowInternetAccess: labels["e2b.internet"] === "true",
      network: { ...(labels["e2b.internet"] === "true" ? {} : { denyOut: ["0.0.0.0/0"] }), allowPublicTraffic: labels["e2b.public"] === "true" },
      lifecycle: { onTimeout: labels["e2b.onTimeout"] === "pause" ? "pause" : "kill", autoResume: labels["e2b.autoResume"] === "true" },
    };
  }

  async create(template: string, opts: E2BSandboxOpts): Promise<E2BSandbox> {
    this.#auth(opts);
    const image = (this.options.templates ?? {})[template] ?? (template === "base" ? baseImage() : await this.snapshots.image(template));
    if (!image) throw new SdkError("NotFoundError", `template '${template}' not found`);
    const standin = this.options.standin ?? path.join(packageRoot(), "dist", "test", "standin-linux-amd64");
    if (!existsSync(standin)) throw new Error(`the fake's stand-in envd is not built at ${standin} (test/support/standin.ts)`);
    const made = await this.docker(["network", "create", "--internal", "--label", `${FAKE_LABEL}=${this.run}`, this.network]);
    if (made.exitCode !== 0 && !/already exists/.test(made.stderr)) throw new Error(`the fake's network: ${made.stderr.trim()}`);
    const id = `i${randomBytes(10).toString("hex")}`;
    const now = Date.now();
    this.#setEnd(id, now + (opts.timeoutMs ?? 300_000));
    const args = [
      "run",
      "--detach",
      "--name",
      id,
      "--hostname",
      id,
      "--label",
      `${FAKE_LABEL}=${this.run}`,
      "--label",
      `e2b.template=${template}`,
      "--label",
      `e2b.started=${now}`,
      "--label",
      `e2b.internet=${opts.allowInternetAccess !== false}`,
      "--label",
      `e2b.public=${opts.network?.allowPublicTraffic !== false}`,
      "--label",
      `e2b.onTimeout=${opts.lifecycle?.onTimeout === "kill" ? "kill" : "pause"}`,
      "--label",
      `e2b.autoResume=${opts.lifecycle?.autoResume === true}`,
      ...Object.entries(opts.metadata ?? {}).flatMap(([k, v]) => ["--label", `${META}${k}=${v}`]),
      "--network",
      this.network,
      "--user",
      "0:0",
      ...everyCapability(),
      "--security-opt",
      "seccomp=unconfined",
      "--security-opt",
      "apparmor=unconfined",
      "-v",
      `${standin}:${STANDIN_IN}:ro`,
      "--entrypoint",
      STANDIN_IN,
      image,
      "agent",
      // Its own log: a sandbox made from a snapshot holds its parent's.
      `/run/envd-${id}.log`,
    ];
    const ran = await this.docker(args);
    if (ran.exitCode !== 0) {
      await this.docker(["rm", "--force", id]);
      throw new Error(`Sandbox create failed: ${ran.stderr.trim().split("\n").pop()}`);
    }
    // E2B answers once envd listens.
    for (let i = 0; i < 100; i += 1) {
      if ((await this.docker(["exec", id, "test", "-e", `/run/envd-${id}.log.ready`])).exitCode === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (this.createDelayMs) await new Promise((r) => setTimeout(r, this.createDelayMs));
    return this.#sandbox(id);
  }

  async connect(sandboxId: string, opts: E2BApiOpts & { timeoutMs?: number }): Promise<E2BSandbox> {
    this.#auth(opts);
    const c = await this.#inspect(sandboxId);
    // Connecting resumes a paused sandbox, and moves a running one's end only to a longer one.
    if (c.State.Paused) await this.docker(["unpause", sandboxId]);
    if (opts.timeoutMs !== undefined) this.#setEnd(sandboxId, Math.max(this.#endOf(sandboxId), Date.now() + opts.timeoutMs));
    return this.#sandbox(sandboxId);
  }

  list(opts: E2BListOpts): E2BPaginator {
    this.#auth({ ...opts, signal: undefined } as Opts, false);
    const fake = this;
    const limit = opts.limit ?? 100;
    let offset = 0;
    let more = true;
    return {
      get hasNext() {
        return more;
      },
      async nextItems(page?: E2BApiOpts): Promise<E2BSandboxInfo[]> {
        if (!more) throw new Error("No more items to fetch");
        fake.#auth(page as Opts);
        const filters = [`label=${FAKE_LABEL}=${fake.run}`, ...Object.entries(opts.query?.metadata ?? {}).map(([k, v]) => `label=${META}${k}=${v}`)];
        const listed = await fake.docker(["ps", "--all", "--format", "{{.Names}}", ...filters.flatMap((f) => ["--filter", f])]);
        if (listed.exitCode !== 0) throw new Error(`listing failed: ${listed.stderr.trim()}`);
        const infos: E2BSandboxInfo[] = [];
        for (const id of listed.stdout.split("\n").filter(Boolean).sort()) {
          const info = await fake.#inspect(id).then(
            (c) => fake.#info(id, c),
            () => undefined,
          );
          if (info && (!opts.query?.state || opts.query.state.includes(info.state))) infos.push(info);
        }
        const items = infos.slice(offset, offset + limit);
        offset += limit;
        more = offset < infos.length;
        return items;
      },
    };
  }

  async getInfo(sandboxId: string, opts: E2BApiOpts): Promise<E2BSandboxInfo> {
    this.#auth(opts);
    return this.#info(sandboxId, await this.#inspect(sandboxId));
  }

  async kill(sandboxId: string, opts: E2BApiOpts): Promise<boolean> {
    this.#auth(opts);
    try {
      await this.#inspect(sandboxId);
    } catch {
      return false;
    }
    await this.docker(["rm", "--force", sandboxId]);
    return true;
  }

  async setTimeout(sandboxId: string, timeoutMs: number, opts: E2BApiOpts): Promise<void> {
    this.#auth(opts);
    await this.#inspect(sandboxId);
    this.#setEnd(sandboxId, Date.now() + timeoutMs);
  }

  /** Pauses a sandbox as E2B's pause does, memory kept (the engine's freeze); false when it was paused already. */
  async pause(sandboxId: string, opts: E2BApiOpts): Promise<boolean> {
    this.#auth(opts);
    if ((await this.#inspect(sandboxId)).State.Paused) return false;
    const paused = await this.docker(["pause", sandboxId]);
    if (paused.exitCode !== 0) throw new Error(`pausing ${sandboxId} failed: ${paused.stderr.trim()}`);
    return true;
  }

  async createSnapshot(sandboxId: string, opts: E2BApiOpts & { name?: string }): Promise<E2BSnapshotInfo> {
    this.#auth(opts);
    const c = await this.#inspect(sandboxId);
    return this.snapshots.take(sandboxId, c.Config.Labels ?? {}, META, opts.name);
  }

  listSnapshots(opts: E2BApiOpts & { sandboxId?: string; name?: string; limit?: number }): E2BPages<E2BSnapshotInfo> {
    this.#auth({ ...opts, signal: undefined } as Opts);
    const pages = this.snapshots.list({ sandboxId: opts.sandboxId, name: opts.name }, opts.limit ?? 100);
    const fake = this;
    return {
      get hasNext() {
        return pages.hasNext;
      },
      nextItems: (page?: E2BApiOpts) => (fake.#auth(page as Opts), pages.nextItems()),
    };
  }

  async deleteSnapshot(snapshotId: string, opts: E2BApiOpts): Promise<boolean> {
    this.#auth(opts);
    return this.snapshots.remove(snapshotId);
  }

  /** Kills the stand-in envd, the sandbox's first process: the sandbox ends. */
  async killAgent(sandboxId: string): Promise<void> {
    await this.docker(["kill", "--signal", "KILL", sandboxId]);
  }

  /** The container's address on the fake's network. */
  async address(sandboxId: string): Promise<string> {
    const c = await this.#inspect(sandboxId);
    return c.NetworkSettings.Networks[this.network]?.IPAddress ?? "";
  }

  #sandbox(id: string): E2BSandbox {
    const fake = this;
    const uidOf = (user: string | undefined) => (user === "root" ? "0:0" : "1000:1000");
    const start = (cmd: string, opts: Parameters<E2BSandbox["commands"]["run"]>[1] = {}) => {
      const pid = (fake.#nextPid += 1);
      const pidFile = `/tmp/.e2b-fake-${pid}`;
      const child = spawn("docker", execArgs(id, uidOf(opts.user), opts, pidFile, ["/bin/bash", "-l", "-c", cmd]), { stdio: ["pipe", "pipe", "pipe"] });
      child.stdin!.on("error", () => undefined);
      if (!opts.stdin) child.stdin!.end();
      fake.#commands.set(pid, { child, pidFile });
      let stdout = "";
      let stderr = "";
      let connected = true;
      const out = new StringDecoder("utf8");
      const err = new StringDecoder("utf8");
      child.stdout!.on("data", (d: Buffer) => {
        const text = out.write(d);
        stdout += text;
        if (connected && text) void opts.onStdout?.(text);
      });
      child.stderr!.on("data", (d: Buffer) => {
        const text = err.write(d);
        stderr += text;
        if (connected && text) void opts.onStderr?.(text);
      });
      const timeoutMs = opts.timeoutMs ?? 60_000;
      let timedOut = false;
      const timer = timeoutMs > 0 ? setTimeout(() => ((timedOut = true), void kill()), timeoutMs) : undefined;
      const exited = new Promise<number>((resolve) =>
        child.once("close", (code) => {
          clearTimeout(timer);
          fake.#commands.delete(pid);
          resolve(code ?? 137);
        }),
      );
      const kill = async () => {
        if (child.exitCode !== null) return false;
        await fake.docker(["exec", id, "sh", "-c", `kill -9 $(cat ${pidFile}) 2>/dev/null; rm -f ${pidFile}`]);
        return true;
      };
      const disconnect = async () => {
        connected = false;
        child.unref();
        for (const s of [child.stdout, child.stderr]) (s as unknown as { unref?: () => void })?.unref?.();
      };
      // The SDK ties the stream to the run's signal: its abort ends the stream, and envd keeps the command.
      opts.signal?.addEventListener("abort", () => void disconnect(), { once: true });
      const wait = async () => {
        const exitCode = await exited;
        if (timedOut) throw new SdkError("TimeoutError", `the command's timeout of ${timeoutMs} ms passed`);
        const result = { exitCode, stdout, stderr, error: exitCode === 0 ? undefined : `exit status ${exitCode}` };
        if (exitCode !== 0) throw new SdkError("CommandExitError", result.error!, result);
        return result;
      };
      const handle: E2BCommandHandle = { pid, wait, kill, disconnect };
      return handle;
    };
    const commands = {
      async run(cmd: string, opts: Parameters<E2BSandbox["commands"]["run"]>[1] = {}) {
        await fake.#inspect(id).then((c) => {
          if (c.State.Paused) throw new Error("the sandbox is paused");
        });
        if (opts.signal?.aborted) throw new SdkError("TimeoutError", "The operation was aborted");
        const handle = start(cmd, opts);
        return opts.background ? handle : handle.wait();
      },
      async sendStdin(pid: number, data: string | Uint8Array) {
        const running = fake.#commands.get(pid);
        if (!running || running.child.stdin!.destroyed) throw new SdkError("NotFoundError", `process with pid ${pid} not found`);
        await new Promise<void>((resolve, reject) =>
          running.child.stdin!.write(typeof data === "string" ? data : Buffer.from(data), (e) => (e ? reject(e) : resolve())),
        );
      },
    } as unknown as E2BSandbox["commands"];
    const files: E2BSandbox["files"] = {
      async write(target, data, opts) {
        await fake.#inspect(id);
        await fake.onUpload?.(id);
        const bytes =
          data instanceof Blob ? Buffer.from(await data.arrayBuffer()) : typeof data === "string" ? Buffer.from(data) : Buffer.from(data as ArrayBuffer);
        const wrote = await fake.docker(["exec", "-i", "-u", uidOf(opts?.user), id, "sh", "-c", 'cat > "$1"', "sh", target], bytes);
        if (wrote.exitCode !== 0) throw new SdkError("SandboxError", `writing ${target} failed: ${wrote.stderr.trim()}`);
        return { name: path.basename(target), path: target, type: "file" } as Awaited<ReturnType<E2BSandbox["files"]["write"]>>;
      },
    };
    return { sandboxId: id, commands, files };
  }

  /** Every container, snapshot and the network this run made, removed by its run label, and its state files; returns the containers' names. */
  async remove(): Promise<string[]> {
    for (const { child } of this.#commands.values()) child.kill("SIGKILL");
    const listed = await this.docker(["ps", "--all", "--format", "{{.Names}}", "--filter", `label=${FAKE_LABEL}=${this.run}`]);
    const names = listed.stdout.split("\n").filter(Boolean);
    if (names.length) await this.docker(["rm", "--force", ...names]);
    await this.snapshots.removeAll();
    await this.docker(["network", "rm", this.network]);
    rmSync(this.#dir(), { recursive: true, force: true });
    return names;
  }

  /** The containers of this run still there. */
  async containers(): Promise<string[]> {
    const listed = await this.docker(["ps", "--all", "--format", "{{.Names}}", "--filter", `label=${FAKE_LABEL}=${this.run}`]);
    return listed.stdout.split("\n").filter(Boolean);
  }
}

/**
 * The fake for a Pulumi plugin told to use it (agentrun:e2b testSdk): its run label from
 * AGENTRUN_E2B_FAKE_RUN, and the one key it takes from AGENTRUN_E2B_FAKE_KEY (unset: any key).
 */
export function createSdk(): E2BSandboxClass {
  const run = process.env.AGENTRUN_E2B_FAKE_RUN;
  if (!run) throw new Error("the E2B fake needs AGENTRUN_E2B_FAKE_RUN: the run label its sandboxes carry");
  const apiKey = process.env.AGENTRUN_E2B_FAKE_KEY;
  return new E2BDockerFake({ run, ...(apiKey ? { apiKey } : {}) });
}
