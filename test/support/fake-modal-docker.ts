// A fake of the ModalSdk slice whose sandboxes are real Docker containers: each runs as root
// with every capability and no seccomp profile (a Modal VM's root), its command the container's
// main process; exec is docker exec with stdin and stdout streamed in binary; tags are labels;
// poll, wait and terminate read and end the container; list filters by app and tags; a filesystem
// snapshot is the container's files as an image of the run (images.fromId and delete read and
// remove it); and the
// SDK's errors (NotFoundError, InvalidError, ConflictError) are thrown as the SDK throws them.
// Every container carries the fake's own run label, so a test removes exactly what it made.
// The wire server (modal-wire/server.ts) serves these sandboxes to the real SDK; the slice itself
// stays for the Pulumi plugin's testSdk.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Transform, Writable } from "node:stream";
import { execa } from "execa";
import { everyCapability } from "./capabilities.js";
// The E2B fake takes it from here.
export { everyCapability };
import type { ModalApp, ModalImage, ModalProcess, ModalSandbox, ModalSdk, SandboxCreateParams, SandboxListParams } from "../../src/modal/sdk.js";

/** The label every container of a fake carries: its run's id. */
export const FAKE_LABEL = "agentrun.test.modal-fake";
/** A filesystem snapshot's image: its repository, and the label with its run (images built on it inherit it). */
const SNAPSHOT_REPO = "agentrun-modal-fake-snapshot";
const SNAPSHOT_LABEL = `${FAKE_LABEL}.snapshot`;
const APP_LABEL = "modal.app";
const END_LABEL = "modal.ends";
const TAG_PREFIX = "modal.tag.";
const MAX_ARGV = 1 << 16;
const DOCKER_MS = 60_000;

class SdkError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}
export const NotFoundError = (m: string) => new SdkError("NotFoundError", m);
export const InvalidError = (m: string) => new SdkError("InvalidError", m);
export const ConflictError = (m: string) => new SdkError("ConflictError", m);

export interface FakeOptions {
  /** This run's label value: every container carries it, and remove() ends them by it. */
  run: string;
  docker?: string;
  /** Report this kernel in every probe line the daemon sends through a bridge (a gVisor stand-in). */
  kernel?: string;
  /** Kill the container once this many bytes of the upload's stdin have gone in (a sandbox killed mid-upload). */
  killAfterUploadBytes?: number;
  /** Flip one byte of the upload's stdin (a daemon that arrives other than sent). */
  corruptUpload?: boolean;
  /** Sandbox ids in the V2 shape (sb- and a 26-letter ULID), as SandboxCreateV2 answers; else V1's (sb- and 22). */
  v2Ids?: boolean;
  /** The token secret Modal takes, and the one the client was given: another is refused as Modal's server refuses it (UNAUTHENTICATED). */
  tokenCheck?: { takes: string; given: string | undefined };
}

/** A gRPC status as nice-grpc's ClientError carries it (the SDK passes UNAUTHENTICATED on so). */
class ClientError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = "ClientError";
    this.code = code;
  }
}

const ULID_LETTERS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

interface Inspect {
  State: { Running: boolean; ExitCode: number; Status: string };
  Config: { Labels: Record<string, string> | null };
}

type ReadStream = ReadableStream<Uint8Array> & { readText(): Promise<string>; readBytes(): Promise<Uint8Array> };
type WriteStream = WritableStream<Uint8Array> & { writeText(text: string): Promise<void>; writeBytes(bytes: Uint8Array): Promise<void> };

function readStream(node: Readable): ReadStream {
  const web = Readable.toWeb(node) as unknown as ReadableStream<Uint8Array>;
  const all = async () => {
    const parts: Uint8Array[] = [];
    const reader = web.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(parts);
      parts.push(value);
    }
  };
  return Object.assign(web, { readBytes: async () => new Uint8Array(await all()), readText: async () => (await all()).toString("utf8") });
}

function writeStream(node: Writable): WriteStream {
  const web = Writable.toWeb(node) as unknown as WritableStream<Uint8Array>;
  const writeBytes = async (bytes: Uint8Array) => {
    const writer = web.getWriter();
    try {
      await writer.write(bytes);
    } finally {
      writer.releaseLock();
    }
  };
  return Object.assign(web, { writeBytes, writeText: (text: string) => writeBytes(Buffer.from(text, "utf8")) });
}

/** Rewrites the kernel in every probe line an exec.run result carries back (base64 inside JSON-RPC). */
function kernelRewriter(kernel: string): Transform {
  let rest = "";
  const rewrite = (line: string) => {
    try {
      const message = JSON.parse(line) as { result?: { stdout?: string } };
      const stdout = message.result?.stdout;
      if (typeof stdout !== "string") return line;
      const text = Buffer.from(stdout, "base64").toString("utf8");
      if (!text.includes('"kernel"')) return line;
      const probe = JSON.parse(text) as { kernel: string };
      probe.kernel = kernel;
      message.result!.stdout = Buffer.from(`${JSON.stringify(probe)}\n`).toString("base64");
      return JSON.stringify(message);
    } catch {
      return line;
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      rest += chunk.toString("utf8");
      const lines = rest.split("\n");
      rest = lines.pop() ?? "";
      done(null, lines.map((l) => `${rewrite(l)}\n`).join(""));
    },
    flush(done) {
      done(null, rest);
    },
  });
}

class FakeSandbox implements ModalSandbox {
  constructor(
    readonly sandboxId: string,
    readonly fake: ModalDockerFake,
  ) {}

  async #inspect(): Promise<Inspect> {
    const read = await this.fake.docker(["inspect", "--type", "container", this.sandboxId]);
    if (read.exitCode !== 0) {
      if (/No such (object|container)/i.test(read.stderr)) throw NotFoundError(`Sandbox ${this.sandboxId} not found`);
      throw new Error(`docker inspect ${this.sandboxId}: ${read.stderr.trim()}`);
    }
    const [inspected] = JSON.parse(read.stdout) as Inspect[];
    if (!inspected || inspected.Config.Labels?.[FAKE_LABEL] !== this.fake.run) throw NotFoundError(`Sandbox ${this.sandboxId} not found`);
    return inspected;
  }

  async getTags(): Promise<Record<string, string>> {
    const labels = (await this.#inspect()).Config.Labels ?? {};
    const set = this.fake.tagsSet(this.sandboxId);
    if (set) return set;
    return Object.fromEntries(
      Object.entries(labels)
        .filter(([k]) => k.startsWith(TAG_PREFIX))
        .map(([k, v]) => [k.slice(TAG_PREFIX.length), v]),
    );
  }

  /** Modal's setTags (not in the provider's slice): replaces every tag, as the SDK does. */
  async setTags(tags: Record<string, string>): Promise<void> {
    await this.#inspect();
    this.fake.setTagsOf(this.sandboxId, tags);
  }

  async poll(): Promise<number | null> {
    const inspected = await this.#inspect();
    if (inspected.State.Running) {
      // Modal ends a sandbox at its timeout: the fake does so when it is next read.
      const ends = Number(inspected.Config.Labels?.[END_LABEL]);
      if (Number.isFinite(ends) && Date.now() >= ends) {
        await this.terminate();
        return 137;
      }
      return null;
    }
    return inspected.State.Status === "created" ? null : inspected.State.ExitCode;
  }

  async terminate(): Promise<void> {
    await this.#inspect();
    // SIGKILL, as Modal's terminate: the code reads 137. Returns once sent.
    await this.fake.docker(["kill", "--signal", "KILL", this.sandboxId]);
  }

  /** Modal's filesystem snapshot: the container's files alone (docker export and import), as an image of this run. */
  async snapshotFilesystem(): Promise<ModalImage> {
    const state = await this.#inspect();
    if (!state.State.Running) throw ConflictError(`Sandbox ${this.sandboxId} has already finished`);
    const id = randomBytes(12).toString("hex");
    const tag = `${SNAPSHOT_REPO}:${id}`;
    const script = `"$0" export "$1" | "$0" import --change "LABEL $2" - "$3"`;
    const ran = await execa("sh", ["-c", script, this.fake.dockerPath, this.sandboxId, `${SNAPSHOT_LABEL}=${this.fake.run}`, tag], {
      reject: false,
      timeout: DOCKER_MS,
    });
    if (ran.exitCode !== 0) throw new Error(`Sandbox snapshot failed: ${String(ran.stderr).trim()}`);
    return new FakeImage(tag, [], `im-${id}`);
  }

  async wait(): Promise<number> {
    for (;;) {
      const code = await this.poll();
      if (code !== null) return code;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async exec(command: string[], params: { mode: "binary" }): Promise<ModalProcess> {
    if (params?.mode !== "binary") throw InvalidError("the fake serves exec in binary mode only");
    if (command.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0) > MAX_ARGV) throw InvalidError("command arguments exceed the maximum length (ARG_MAX 65536)");
    const state = await this.#inspect();
    if (!state.State.Running) throw ConflictError(`Sandbox ${this.sandboxId} has already finished`);
    const child = spawn(this.fake.dockerPath, ["exec", "-i", this.sandboxId, ...command], { stdio: ["pipe", "pipe", "pipe"] });
    const exited = new Promise<number>((resolve) => child.once("close", (code, signal) => resolve(code ?? (signal ? 128 + 9 : 1))));
    child.stdin.on("error", () => undefined);
    let stdinNode: Writable = child.stdin;
    const isUpload = command[0] === "sh" && command[2]?.includes(".computerd.part");
    if (isUpload && (this.fake.options.killAfterUploadBytes !== undefined || this.fake.options.corruptUpload)) {
      let sent = 0;
      let flipped = false;
      const fake = this.fake;
      const id = this.sandboxId;
      stdinNode = new Writable({
        write(chunk: Buffer, _encoding, done) {
          let out = chunk;
          if (fake.options.corruptUpload && !flipped) {
            out = Buffer.from(chunk);
            out[0] = out[0]! ^ 0xff;
            flipped = true;
          }
          sent += out.length;
          if (fake.options.killAfterUploadBytes !== undefined && sent >= fake.options.killAfterUploadBytes) {
            void fake.docker(["kill", "--signal", "KILL", id]);
          }
          if (child.stdin.destroyed || child.stdin.writableEnded) return done(new Error(`Sandbox ${id}: the exec's stdin is closed`));
          if (child.stdin.write(out)) return done();
          // A sandbox killed under the write ends the exec: its stdin closes, with no drain.
          const settle = (error?: Error) => {
            child.stdin.off("drain", onDrain);
            child.stdin.off("close", onClose);
            done(error);
          };
          const onDrain = () => settle();
          const onClose = () => settle(new Error(`Sandbox ${id}: the exec ended while its stdin was written`));
          child.stdin.once("drain", onDrain);
          child.stdin.once("close", onClose);
        },
        final(done) {
          child.stdin.end(done);
        },
      });
    }
    const stdout = this.fake.options.kernel ? child.stdout.pipe(kernelRewriter(this.fake.options.kernel)) : child.stdout;
    return {
      stdin: writeStream(stdinNode),
      stdout: readStream(stdout),
      stderr: readStream(child.stderr),
      wait: () => exited,
    } as unknown as ModalProcess;
  }
}

class FakeImage implements ModalImage {
  constructor(
    readonly tag: string,
    readonly layers: string[] = [],
    /** A snapshot's own id; a registry image's is its layers' hash. */
    readonly id?: string,
  ) {}
  get imageId(): string {
    if (this.id) return this.id;
    return `im-${createHash("sha256")
      .update([this.tag, ...this.layers].join("\n"))
      .digest("hex")
      .slice(0, 24)}`;
  }
  dockerfileCommands(commands: string[]): ModalImage {
    return new FakeImage(this.tag, [...this.layers, ...commands]);
  }
}

export class ModalDockerFake implements ModalSdk {
  readonly run: string;
  readonly dockerPath: string;
  readonly options: FakeOptions;

  constructor(options: FakeOptions) {
    if (!/^[\w.-]{1,64}$/.test(options.run)) throw new TypeError("the fake's run is a label value of letters, digits, _ . -");
    this.options = options;
    this.run = options.run;
    this.dockerPath = options.docker ?? "docker";
  }

  async docker(args: string[], input?: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
    const ran = await execa(this.dockerPath, args, { reject: false, timeout: DOCKER_MS, ...(input === undefined ? { stdin: "ignore" as const } : { input }) });
    return { exitCode: ran.exitCode ?? 1, stdout: String(ran.stdout), stderr: String(ran.stderr) };
  }

  /** Every call is refused when the client's token is not the one Modal takes. */
  #authorize(): void {
    const token = this.options.tokenCheck;
    if (token && token.given !== token.takes) throw new ClientError(16, "/modal.client.ModalClient/AppGetOrCreate UNAUTHENTICATED: Invalid token");
  }

  apps = {
    fromName: async (name: string, params?: { createIfMissing?: boolean; environment?: string }): Promise<ModalApp> => {
      this.#authorize();
      if (!/^[\w.-]{1,64}$/.test(name)) throw InvalidError(`Invalid app name ${name}`);
      void params;
      return { appId: `ap-${createHash("sha256").update(name).digest("hex").slice(0, 22)}` };
    },
  };

  images = {
    fromRegistry: (tag: string): ModalImage => new FakeImage(tag),
    /** A snapshot of this run by its id, read from Docker (so another process's fake reads it too). */
    fromId: async (imageId: string): Promise<ModalImage> => {
      const tag = `${SNAPSHOT_REPO}:${imageId.slice(3)}`;
      const read = await this.docker(["image", "inspect", "--format", `{{index .Config.Labels "${SNAPSHOT_LABEL}"}}`, tag]);
      if (!/^im-[0-9a-f]{24}$/.test(imageId) || read.exitCode !== 0 || read.stdout.trim() !== this.run)
        throw NotFoundError(`Could not find image with ID ${imageId}`);
      return new FakeImage(tag, [], imageId);
    },
    delete: async (imageId: string): Promise<void> => {
      const image = await this.images.fromId(imageId);
      await this.docker(["image", "rm", "--force", (image as FakeImage).tag]);
    },
  };

  /** The image's layers built on its tag (docker build, cached by the layers' hash). */
  async #built(image: FakeImage): Promise<string> {
    if (image.layers.length === 0) return image.tag;
    const tag = `agentrun-modal-fake:${image.imageId.slice(3)}`;
    const have = await this.docker(["image", "inspect", "--format", "{{.Id}}", tag]);
    if (have.exitCode === 0) return tag;
    const dockerfile = [`FROM ${image.tag}`, ...image.layers].join("\n");
    const built = await this.docker(["build", "--quiet", "--label", `${FAKE_LABEL}.image=1`, "-t", tag, "-"], dockerfile);
    if (built.exitCode !== 0) throw new Error(`Image build failed: ${built.stderr.trim().split("\n").pop()}`);
    return tag;
  }

  sandboxes = {
    create: async (app: ModalApp, image: ModalImage, params: SandboxCreateParams): Promise<ModalSandbox> => {
      const timeoutMs = params.timeoutMs ?? 300_000;
      if (timeoutMs <= 0 || timeoutMs % 1000 !== 0) throw InvalidError(`timeoutMs must be a positive multiple of 1000ms, got ${timeoutMs}`);
      if (params.cpuLimit !== undefined && (params.cpu === undefined || params.cpuLimit < params.cpu))
        throw InvalidError("cpuLimit needs cpu and is at least it");
      if (params.memoryLimitMiB !== undefined && (params.memoryMiB === undefined || params.memoryLimitMiB < params.memoryMiB))
        throw InvalidError("memoryLimitMiB needs memoryMiB and is at least it");
      if (params.gpu !== undefined && params.runtime === "vm") throw InvalidError("GPU sandboxes need runtime gvisor");
      const tags = params.tags ?? {};
      if (Object.keys(tags).length > 10) throw InvalidError("a sandbox carries at most 10 tags");
      const from = await this.#built(image as FakeImage);
      const id = this.options.v2Ids ? `sb-${[...randomBytes(26)].map((b) => ULID_LETTERS[b % 32]).join("")}` : `sb-${randomBytes(11).toString("hex")}`;
      const args = [
        "run",
        "--detach",
        "--name",
        id,
        "--label",
        `${FAKE_LABEL}=${this.run}`,
        "--label",
        `${APP_LABEL}=${app.appId}`,
        "--label",
        `${END_LABEL}=${Date.now() + timeoutMs}`,
        ...Object.entries(tags).flatMap(([k, v]) => ["--label", `${TAG_PREFIX}${k}=${v}`]),
        // A Modal VM's root: every capability, no seccomp profile of Docker's. The command runs
        // under Docker's init, so exec joins the sandbox's namespaces (docker exec enters PID 1's),
        // never those init --own-network makes for the daemon.
        "--init",
        "--user",
        "0:0",
        ...everyCapability(),
        "--security-opt",
        "seccomp=unconfined",
        "--network",
        params.blockNetwork ? "none" : "bridge",
        ...(params.workdir ? ["--workdir", params.workdir] : []),
        ...(params.cpuLimit !== undefined ? ["--cpus", String(params.cpuLimit * 2)] : []),
        ...(params.memoryLimitMiB !== undefined ? ["--memory", `${params.memoryLimitMiB}m`] : []),
        ...Object.entries(params.env ?? {}).flatMap(([k, v]) => ["--env", `${k}=${v}`]),
        "--entrypoint",
        (params.command ?? ["sleep", "172800"])[0]!,
        from,
        ...(params.command ?? ["sleep", "172800"]).slice(1),
      ];
      const ran = await this.docker(args);
      if (ran.exitCode !== 0) {
        await this.docker(["rm", "--force", id]);
        throw new Error(
          `Sandbox create failed: ${ran.stderr
            .trim()
            .split("\n")
            .filter((l) => !/docker run --help/.test(l))
            .pop()}`,
        );
      }
      return new FakeSandbox(id, this);
    },
    fromId: async (sandboxId: string): Promise<ModalSandbox> => (this.#authorize(), new FakeSandbox(sandboxId, this)),
    list: (params: SandboxListParams): AsyncIterable<ModalSandbox> => (this.#authorize(), this.#list(params)),
  };

  async *#list(params: SandboxListParams): AsyncGenerator<ModalSandbox> {
    const filters = [
      `label=${FAKE_LABEL}=${this.run}`,
      ...(params.appId ? [`label=${APP_LABEL}=${params.appId}`] : []),
      ...Object.entries(params.tags ?? {}).map(([k, v]) => `label=${TAG_PREFIX}${k}=${v}`),
    ];
    const listed = await this.docker(["ps", "--no-trunc", "--format", "{{.Names}}", ...filters.flatMap((f) => ["--filter", f])]);
    if (listed.exitCode !== 0) throw new Error(`Sandbox list failed: ${listed.stderr.trim()}`);
    for (const name of listed.stdout.split("\n").filter(Boolean)) yield new FakeSandbox(name, this);
  }

  /**
   * Tags set after create live in a file of this run's (Docker's labels are fixed), so every
   * process with a fake of the same run reads them: a test that changes a tag by hand, and the
   * Pulumi plugin that refreshes.
   */
  #tagsFile(sandboxId: string): string {
    return path.join(tmpdir(), `agentrun-modal-fake-${this.run}`, `${sandboxId}.tags.json`);
  }

  tagsSet(sandboxId: string): Record<string, string> | undefined {
    try {
      return JSON.parse(readFileSync(this.#tagsFile(sandboxId), "utf8")) as Record<string, string>;
    } catch {
      return undefined;
    }
  }

  setTagsOf(sandboxId: string, tags: Record<string, string>): void {
    mkdirSync(path.dirname(this.#tagsFile(sandboxId)), { recursive: true, mode: 0o700 });
    writeFileSync(this.#tagsFile(sandboxId), JSON.stringify(tags));
  }

  /** Every container this fake's run made, removed by its run label, its snapshots' images, and its tags' files; returns the containers' names. */
  async remove(): Promise<string[]> {
    const listed = await this.docker(["ps", "--all", "--format", "{{.Names}}", "--filter", `label=${FAKE_LABEL}=${this.run}`]);
    const names = listed.stdout.split("\n").filter(Boolean);
    if (names.length) await this.docker(["rm", "--force", ...names]);
    // The snapshots' images, those built on them first.
    const images = await this.docker(["image", "ls", "--format", "{{.Repository}}:{{.Tag}} {{.ID}}", "--filter", `label=${SNAPSHOT_LABEL}=${this.run}`]);
    const rows = images.stdout.split("\n").filter(Boolean);
    const ids = [...rows.filter((r) => !r.startsWith(SNAPSHOT_REPO)), ...rows.filter((r) => r.startsWith(SNAPSHOT_REPO))].map((r) => r.split(" ")[1]!);
    for (const id of new Set(ids)) await this.docker(["image", "rm", "--force", id]);
    rmSync(path.join(tmpdir(), `agentrun-modal-fake-${this.run}`), { recursive: true, force: true });
    return names;
  }

  /** The containers of this run still running. */
  async running(): Promise<string[]> {
    const listed = await this.docker(["ps", "--format", "{{.Names}}", "--filter", `label=${FAKE_LABEL}=${this.run}`]);
    return listed.stdout.split("\n").filter(Boolean);
  }
}

/**
 * The fake for a Pulumi plugin told to use it (agentrun:modal testSdk): its run label from
 * AGENTRUN_MODAL_FAKE_RUN, and the one token secret it takes from AGENTRUN_MODAL_FAKE_TOKEN_SECRET
 * (unset: any), held to the one the provider was given.
 */
export function createSdk(credentials: { tokenSecret?: string } = {}): ModalSdk {
  const run = process.env.AGENTRUN_MODAL_FAKE_RUN;
  if (!run) throw new Error("the Modal fake needs AGENTRUN_MODAL_FAKE_RUN: the run label its sandboxes carry");
  const takes = process.env.AGENTRUN_MODAL_FAKE_TOKEN_SECRET;
  return new ModalDockerFake({ run, ...(takes ? { tokenCheck: { takes, given: credentials.tokenSecret } } : {}) });
}
