// E2BSandboxClass: the slice of E2B's JS SDK (npm e2b 2.51.0, the newest the registry serves; the
// spec read 2.63.0) this provider calls, derived from the package's own types so tsc holds the
// provider and any fake to the SDK as published. Only types are imported: loading this module loads
// no SDK. A class with private fields is nominal, so each piece is a Pick<> of its class.
import type {
  CommandHandle,
  CommandRequestOpts,
  CommandResult,
  CommandStartOpts,
  CreateSnapshotOpts,
  FilesystemWriteOpts,
  Sandbox,
  SandboxApiOpts,
  SandboxConnectOpts,
  SandboxInfo,
  SandboxListOpts,
  SandboxOpts,
  SandboxPauseOpts,
  SnapshotInfo,
  SnapshotListOpts,
  WriteInfo,
} from "e2b";

export type {
  SnapshotInfo as E2BSnapshotInfo,
  SandboxInfo as E2BSandboxInfo,
  SandboxOpts as E2BSandboxOpts,
  SandboxApiOpts as E2BApiOpts,
  SandboxListOpts as E2BListOpts,
} from "e2b";

/** A background command: its pid, its end, its stdin, and kill and disconnect. */
export type E2BCommandHandle = Pick<CommandHandle, "pid" | "wait" | "kill" | "disconnect">;

/** commands.run in the background and in the foreground (whose non-zero exit throws CommandExitError), and sendStdin. */
export interface E2BCommands {
  run(cmd: string, opts: CommandStartOpts & { background: true }): Promise<E2BCommandHandle>;
  run(cmd: string, opts?: CommandStartOpts & { background?: false }): Promise<CommandResult>;
  sendStdin(pid: number, data: string | Uint8Array, opts?: CommandRequestOpts): Promise<void>;
}

/** files.write of one file. */
export interface E2BFiles {
  write(path: string, data: string | ArrayBuffer | Blob | ReadableStream, opts?: FilesystemWriteOpts): Promise<WriteInfo>;
}

/** A sandbox as the provider holds it: its id, its commands and its files. */
export interface E2BSandbox extends Pick<Sandbox, "sandboxId"> {
  readonly commands: E2BCommands;
  readonly files: E2BFiles;
}

/** A listing's paginator (Sandbox.list's, listSnapshots'): a page at a time, each taking a signal (the listing itself takes none). */
export interface E2BPages<T> {
  readonly hasNext: boolean;
  nextItems(opts?: SandboxApiOpts): Promise<T[]>;
}
export type E2BPaginator = E2BPages<SandboxInfo>;

/** The Sandbox class's statics the provider calls. */
export interface E2BSandboxClass {
  create(template: string, opts: SandboxOpts): Promise<E2BSandbox>;
  connect(sandboxId: string, opts: SandboxConnectOpts): Promise<E2BSandbox>;
  list(opts: SandboxListOpts): E2BPaginator;
  getInfo(sandboxId: string, opts: SandboxApiOpts): Promise<SandboxInfo>;
  kill(sandboxId: string, opts: SandboxApiOpts): Promise<boolean>;
  setTimeout(sandboxId: string, timeoutMs: number, opts: SandboxApiOpts): Promise<void>;
  /** False when it was paused already. */
  pause(sandboxId: string, opts: SandboxPauseOpts): Promise<boolean>;
  createSnapshot(sandboxId: string, opts: CreateSnapshotOpts): Promise<SnapshotInfo>;
  listSnapshots(opts: SnapshotListOpts): E2BPages<SnapshotInfo>;
  /** False when it was not found. */
  deleteSnapshot(snapshotId: string, opts: SandboxApiOpts): Promise<boolean>;
}

/** Compile-time proof that the real class is an E2BSandboxClass (never called). */
export function asE2BSandboxClass(cls: typeof Sandbox): E2BSandboxClass {
  return cls;
}

/** True when a thrown value is the SDK's error of that name (by name: no SDK class is loaded). */
export function isE2BError(error: unknown, ...names: string[]): boolean {
  return error instanceof Error && names.includes(error.name);
}
