// The in-memory vendor's state: each computer's files (its own, and /workspace from its run
// folder), a counting process whose count follows the computer's running time, pause and resume,
// and snapshots a fork starts from. Each promise of the conformance suite's state cases has a
// StateBreak that breaks it, so a test shows the case fails on a vendor that does not keep it.
import { CallError } from "../../src/daemon/client.js";
import type { ComputerRef, PauseHooks, SnapshotHooks } from "../../src/contract/provider.js";
import { WORKSPACE } from "../../src/contract/mount.js";
import { parseSnapshotImage, type PauseKeeps, type Snapshot, snapshotImage } from "../../src/contract/state.js";
import { COUNTER_ARGV, COUNTER_STEP_MS } from "../../src/conformance/cases/state.js";
import { fail, ok, type Result } from "../../src/daemon/result.js";
import type { RunFolder } from "../../src/conformance/case.js";

/** A promise the vendor breaks. */
export type StateBreak =
  | "pause-counts-on" // a pause that leaves the processes running
  | "pause-ends-processes" // a resume that starts the computer again, its processes gone, while it claims memory
  | "pause-loses-files" // a resume with the computer's files gone
  | "pause-reads-running" // list and read say running while it is paused
  | "fork-loses-owner" // a fork's files owned by root, mode 0644
  | "forks-share" // forks of one snapshot share their files
  | "snapshot-keeps-mount" // a snapshot that holds the run folder's files
  | "snapshot-stays"; // a removal that answers ok and keeps the snapshot

export interface MemFile {
  data: Buffer;
  mode: number;
  uid: number;
  gid: number;
}
export type Files = Map<string, MemFile>;

/** What the vendor keeps of one computer's state. */
export class MemoryState {
  files: Files = new Map();
  /** The run folder at /workspace, by its host path. */
  mount: string | undefined;
  /** Each process by id: the running time at its start. */
  processes = new Map<string, number>();
  paused = false;
  #ran = 0;
  #since = Date.now();

  constructor(
    readonly breaks: ReadonlySet<StateBreak>,
    readonly folders: Map<string, Files>,
  ) {}

  /** How long it has run, paused time left out (unless its pause counts on). */
  runningMs(): number {
    return this.#ran + (this.paused && !this.breaks.has("pause-counts-on") ? 0 : Date.now() - this.#since);
  }

  pause(): void {
    if (this.paused) return;
    this.#ran = this.runningMs();
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (this.breaks.has("pause-counts-on")) this.#ran = this.runningMs();
    this.#since = Date.now();
    if (this.breaks.has("pause-ends-processes")) this.processes.clear();
    if (this.breaks.has("pause-loses-files")) this.files.clear();
  }

  /** The files a path names: the run folder's under /workspace, else the computer's own. */
  #where(path: string): { files: Files; key: string } {
    const folder = this.mount === undefined ? undefined : this.folders.get(this.mount);
    if (folder && path.startsWith(`${WORKSPACE}/`)) return { files: folder, key: path.slice(WORKSPACE.length + 1) };
    return { files: this.files, key: path };
  }

  #file(path: string, method: string): MemFile {
    const { files, key } = this.#where(path);
    const file = files.get(key);
    if (!file) throw new CallError("not_found", `${path} does not exist`, method);
    return file;
  }

  /** A daemon method on the state's files and processes; undefined for a method it does not answer. */
  answer(method: string, params: Record<string, unknown>): unknown {
    switch (method) {
      case "files.write": {
        const { files, key } = this.#where(params.path as string);
        files.set(key, { data: Buffer.from(params.data as string, "base64"), mode: (params.mode as number | undefined) ?? 0o644, uid: 1000, gid: 1000 });
        return { size: files.get(key)!.data.length };
      }
      case "files.read": {
        const file = this.#file(params.path as string, method);
        return { data: file.data.toString("base64"), eof: true, size: file.data.length };
      }
      case "files.stat": {
        const file = this.#file(params.path as string, method);
        return { type: "file", size: file.data.length, mode: 0o100000 | file.mode, mtimeMs: 0, uid: file.uid, gid: file.gid };
      }
      case "process.start": {
        if (JSON.stringify(params.argv) !== JSON.stringify(COUNTER_ARGV)) throw new CallError("unsupported", "this vendor runs the counter alone", method);
        const id = `p${this.processes.size + 1}`;
        this.processes.set(id, this.runningMs());
        return { id, pid: 100 + this.processes.size };
      }
      case "process.read": {
        const started = this.processes.get(params.id as string);
        if (started === undefined) throw new CallError("not_found", `no process ${String(params.id)}`, method);
        const count = Math.floor((this.runningMs() - started) / COUNTER_STEP_MS);
        const data = Buffer.from(Array.from({ length: count }, (_, i) => `${i + 1}\n`).join(""));
        return { data: data.toString("base64"), nextOffset: data.length, dropped: 0, exited: false, size: data.length };
      }
      default:
        return undefined;
    }
  }

  /** exec.run of cat of a file it holds and the secret case's grep over every file; undefined for another argv. */
  exec(argv: string[]): { exitCode: number; stdout?: string; stderr?: string } | undefined {
    if (argv[0] === "cat" && argv.length === 2) {
      const { files, key } = this.#where(argv[1]!);
      const file = files.get(key);
      if (file) return { exitCode: 0, stdout: file.data.toString() };
    }
    if (argv[0] === "grep" && argv[1] === "-rlsF") {
      const needle = argv.at(-2)!;
      const found = [...this.files].filter(([, f]) => f.data.includes(needle)).map(([path]) => path);
      return { exitCode: found.length > 0 ? 0 : 1, stdout: found.map((p) => `${p}\n`).join("") };
    }
    return undefined;
  }
}

interface Taken {
  snapshot: Snapshot;
  files: Files;
}

/** The vendor's pause and snapshot hooks over its computers' states. */
export class MemoryStateHooks {
  readonly snapshots = new Map<string, Taken>();
  #next = 1;

  constructor(
    private readonly provider: string,
    private readonly keeps: PauseKeeps | undefined,
    private readonly breaks: ReadonlySet<StateBreak>,
    private readonly stateOf: (ref: ComputerRef) => MemoryState | undefined,
  ) {}

  pauseHooks(): PauseHooks | undefined {
    if (!this.keeps) return undefined;
    const gone = (ref: ComputerRef) => fail("not_found", `no computer ${ref.name}`);
    return {
      keeps: this.keeps,
      pause: async (ref) => {
        const state = this.stateOf(ref);
        if (!state) return gone(ref);
        state.pause();
        return ok();
      },
      resume: async (ref) => {
        const state = this.stateOf(ref);
        if (!state) return gone(ref);
        state.resume();
        return ok(ref);
      },
    };
  }

  snapshotHooks(): SnapshotHooks {
    return {
      take: async (ref, options = {}) => {
        const state = this.stateOf(ref);
        if (!state) return fail("not_found", `no computer ${ref.name}`);
        const files: Files = new Map([...state.files].map(([path, f]) => [path, { ...f }]));
        const folder = state.mount === undefined ? undefined : state.folders.get(state.mount);
        if (folder && this.breaks.has("snapshot-keeps-mount")) for (const [key, f] of folder) files.set(`${WORKSPACE}/${key}`, { ...f });
        const image = snapshotImage(this.provider, `snap-${this.#next++}`);
        const sizeBytes = [...files.values()].reduce((n, f) => n + f.data.length, 0);
        const snapshot: Snapshot = {
          image,
          computer: ref.name,
          sizeBytes,
          takenAt: new Date().toISOString(),
          holds: "the computer's files, less its run folder",
          labels: { ...options.labels, "agentrun.snapshot": "1" },
        };
        this.snapshots.set(image, { snapshot, files });
        return ok(snapshot);
      },
      read: async (image) => {
        const taken = this.snapshots.get(image);
        return taken ? ok(taken.snapshot) : fail("not_found", `no snapshot ${image}`);
      },
      remove: async (image) => {
        if (!this.breaks.has("snapshot-stays")) this.snapshots.delete(image);
        return ok();
      },
    };
  }

  /** A fork's files from its image, when the image is a snapshot of this vendor; not_found when it is gone. */
  filesOf(image: string): Result<Files | undefined> {
    const parsed = parseSnapshotImage(image);
    if (!parsed || parsed.provider !== this.provider) return ok(undefined);
    const taken = this.snapshots.get(image);
    if (!taken) return fail("not_found", `no snapshot ${image}`, { field: "image" });
    if (this.breaks.has("forks-share")) return ok(taken.files);
    const owned = (f: MemFile): MemFile => (this.breaks.has("fork-loses-owner") ? { ...f, mode: 0o644, uid: 0, gid: 0 } : { ...f });
    return ok(new Map([...taken.files].map(([path, f]) => [path, owned(f)])));
  }
}

/** A run folder of the vendor's host: files by name, at /workspace in a computer made with it. */
export function memoryRunFolder(folders: Map<string, Files>, path: string): RunFolder {
  const files: Files = new Map();
  folders.set(path, files);
  return {
    mount: { kind: "bind", path },
    read: async (name) => {
      const file = files.get(name);
      if (!file) throw new Error(`${name} is not in ${path}`);
      return file.data;
    },
    write: async (name, data) => void files.set(name, { data: Buffer.from(data), mode: 0o644, uid: 1000, gid: 1000 }),
    close: async () => void folders.delete(path),
  };
}
