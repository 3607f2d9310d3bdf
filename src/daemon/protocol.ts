// The computer protocol: every method computerd (or a provider's in-process client) answers,
// its params and its result as zod schemas. These schemas are the one source of the protocol's
// TypeScript types; test/unit/protocol-vectors.test.ts holds them to the Go daemon's method table.
import { z } from "zod";

// --- Bounds (the spec's numbers; the daemon enforces the same) ---

/** No JSON-RPC line, either way, passes 1 MiB; a longer request is refused before it is sent. */
export const MAX_LINE_BYTES = 1 << 20;
/** The most bytes one files.read, tar.pull.read, process.read or screen chunk carries. */
export const MAX_CHUNK_BYTES = 512 * 1024;
/** exec.run keeps at most this much of stdout and of stderr (maxOutput's default and most). */
export const MAX_OUTPUT_BYTES = 360 * 1024;
/** process.read's waitMs is at most 30 s. */
export const MAX_READ_WAIT_MS = 30_000;
/** process.wait's timeoutMs is at most a day. */
export const MAX_PROCESS_WAIT_MS = 86_400_000;
/** files.list depth: 1 (default) to 16. */
export const MAX_LIST_DEPTH = 16;
/** files.list returns at most 1000 entries a reply. */
export const MAX_LIST_ENTRIES = 1000;
/** files.list and process.list replies hold at most 768 KiB. */
export const MAX_LIST_REPLY_BYTES = 768 * 1024;
/** A connection holds at most 8 pulls and 8 pushes open. */
export const MAX_OPEN_TARS = 8;
/** Each process stream keeps its last 8 MiB. */
export const PROCESS_RING_BYTES = 8 << 20;
/** The process table holds at most 256 processes. */
export const MAX_PROCESSES = 256;
/** A process log file holds the first 16 MiB of the output. */
export const MAX_LOG_BYTES = 16 << 20;
/** A listed argv holds at most 64 KiB, in JSON. */
export const MAX_LISTED_ARGV_BYTES = 64 * 1024;
/** screen.watch's waitMs: default 2 s, at most 10 s. */
export const MAX_WATCH_WAIT_MS = 10_000;
/** A typed text holds at most 65,536 characters. */
export const MAX_TYPE_CHARS = 65_536;
/** apps.ui_tree holds at most 5000 nodes. */
export const MAX_UI_NODES = 5000;

// --- Errors ---

/** The kinds a daemon error carries in data.kind. */
export const ERROR_KINDS = ["not_found", "invalid", "timeout", "aborted", "denied", "limit", "unsupported", "exists", "not_dir", "is_dir"] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * What a client adds on its own side: the connection ended before the reply (closed), or the
 * reply broke the protocol (protocol: not JSON-RPC, or not the method's result).
 */
export const CLIENT_ERROR_KINDS = [...ERROR_KINDS, "closed", "protocol"] as const;
export type ClientErrorKind = (typeof CLIENT_ERROR_KINDS)[number];

export const ErrorData = z.object({ kind: z.enum(ERROR_KINDS) });
export const RpcErrorObject = z.object({
  code: z.number().int(),
  message: z.string(),
  data: ErrorData.partial().nullish(),
});
export type RpcErrorObject = z.infer<typeof RpcErrorObject>;

// --- Shared shapes ---

export const MACHINE_KINDS = ["linux", "desktop", "android", "ios", "browser"] as const;
export type MachineKind = (typeof MACHINE_KINDS)[number];

/** The groups a daemon declares in hello. */
export const DAEMON_GROUPS = [
  "exec",
  "files",
  "processes",
  "screen",
  "input.pointer",
  "input.keys",
  "input.touch",
  "apps",
  "apps.install",
  "apps.ui_tree",
] as const;
/** The provider's own groups: a computerd hello never lists them. */
export const PROVIDER_GROUPS = ["cdp", "stream", "downloads"] as const;
export const GROUPS = [...DAEMON_GROUPS, ...PROVIDER_GROUPS] as const;
export type Group = (typeof GROUPS)[number];

const Int = z.number().int();
const Count = z.number().int().min(0);

/**
 * A bound the daemon answers as limit, not invalid: the most bytes one call carries. The
 * client's own check of it says limit too (isLimitIssue), so a caller sees one kind either way.
 */
function atMostChunk(schema: z.ZodNumber, field: string) {
  return schema.refine((n) => n <= MAX_CHUNK_BYTES, {
    params: { kind: "limit" },
    message: `${field} is past the most one call carries, ${MAX_CHUNK_BYTES} bytes (512 KiB): read in chunks`,
  });
}

/** An issue of a bound the daemon answers as limit (atMostChunk's). */
export function isLimitIssue(issue: z.core.$ZodIssue): boolean {
  return issue.code === "custom" && (issue.params as { kind?: unknown } | undefined)?.kind === "limit";
}
/** Base64 bytes, as every data field carries them. */
const Base64 = z.string().describe("base64");
/** An absolute path; the daemon cleans it. */
const AbsPath = z
  .string()
  .min(1)
  .refine((p) => p.startsWith("/"), "a path must be absolute");
/** A signal named without SIG ("TERM"), or its number when it has no name ("63"). */
const SignalName = z.string();
const Env = z.record(z.string(), z.string());
const Argv = z.array(z.string()).min(1);
export const Point = z.tuple([z.number(), z.number()]);
export type Point = z.infer<typeof Point>;
const Empty = z.object({});

// --- hello, ping, deadline ---

/** Past the spec's wire: frames is the newest frame format a client reads, asked for in hello. */
export const HelloParams = z.object({ client: z.string().optional(), frames: Int.min(1).optional() });
export const HelloResult = z.object({
  version: z.string(),
  os: z.string(),
  kind: z.enum(MACHINE_KINDS),
  arch: z.string(),
  groups: z.array(z.string()),
  /** The frame format the daemon took up, only for a client that asked. */
  frames: Int.optional(),
});
export type Hello = z.infer<typeof HelloResult>;

export const DeadlineExtendParams = z.object({ at: z.string().min(1) });
export const DeadlineExtendResult = z.object({ at: z.string() });

// --- exec ---

export const ExecRunParams = z.object({
  argv: Argv,
  cwd: z.string().optional(),
  env: Env.optional(),
  user: z.string().optional(),
  /** Base64 bytes given to the program's stdin, then closed. */
  stdin: Base64.optional(),
  timeoutMs: Int.min(0).optional(),
  maxOutput: Int.min(0).max(MAX_OUTPUT_BYTES).optional(),
});
export const ExecRunResult = z.object({
  exitCode: Int.nullable(),
  signal: SignalName.nullable(),
  stdout: Base64,
  stderr: Base64,
  timedOut: z.boolean(),
  truncated: z.boolean(),
});
export type ExecRunResult = z.infer<typeof ExecRunResult>;

// --- files ---

export const FILE_TYPES = ["file", "dir", "symlink", "other"] as const;
export const FileStat = z.object({
  type: z.enum(FILE_TYPES),
  size: Count,
  mode: Count,
  mtimeMs: z.number(),
  uid: Count,
  gid: Count,
  target: z.string().optional(),
});
export type FileStat = z.infer<typeof FileStat>;

export const FilesReadParams = z.object({
  path: AbsPath,
  offset: Count.optional(),
  length: atMostChunk(Count, "length").optional(),
});
export const FilesReadResult = z.object({ data: Base64, eof: z.boolean(), size: Count });

export const FilesWriteParams = z.object({
  path: AbsPath,
  data: Base64,
  offset: Count.optional(),
  append: z.boolean().optional(),
  mode: Int.min(0).max(0o7777).optional(),
  parents: z.boolean().optional(),
});
export const FilesWriteResult = z.object({ size: Count });

export const FilesStatParams = z.object({ path: AbsPath, follow: z.boolean().optional() });
export const FilesStatResult = FileStat;

export const FilesListParams = z.object({
  path: AbsPath,
  depth: Int.min(1).max(MAX_LIST_DEPTH).optional(),
  offset: Count.optional(),
});
export const FileEntry = FileStat.extend({ path: z.string() });
export type FileEntry = z.infer<typeof FileEntry>;
export const FilesListResult = z.object({ entries: z.array(FileEntry), truncated: z.boolean() });

export const FilesMkdirParams = z.object({
  path: AbsPath,
  parents: z.boolean().optional(),
  mode: Int.min(0).max(0o7777).optional(),
});
export const FilesMoveParams = z.object({ from: AbsPath, to: AbsPath, overwrite: z.boolean().optional() });
export const FilesRemoveParams = z.object({ path: AbsPath, recursive: z.boolean().optional() });

// --- tar ---

const TarId = z.string();
export const TarBeginParams = z.object({ path: AbsPath });
export const TarBeginResult = z.object({ id: TarId });
export const TarPullReadParams = z.object({ id: TarId, maxBytes: atMostChunk(Int.min(1), "maxBytes").optional() });
export const TarPullReadResult = z.object({ data: Base64, eof: z.boolean() });
export const TarIdParams = z.object({ id: TarId });
export const TarPushWriteParams = z.object({ id: TarId, data: Base64 });
export const TarPushEndResult = z.object({ entries: Count });

// --- processes ---

export const PROCESS_STREAMS = ["stdout", "stderr", "pty", "log"] as const;
export type ProcessStream = (typeof PROCESS_STREAMS)[number];
export const PROCESS_SIGNALS = ["TERM", "INT", "KILL", "HUP"] as const;

export const ProcessStartParams = z.object({
  argv: Argv,
  cwd: z.string().optional(),
  env: Env.optional(),
  user: z.string().optional(),
  pty: z.object({ cols: Int.min(1), rows: Int.min(1) }).optional(),
  /** Give the program a stdin pipe for process.write; without it stdin is /dev/null. */
  stdin: z.boolean().optional(),
  log: AbsPath.optional(),
  waitGroup: z.boolean().optional(),
  orphans: z.literal("keep").optional(),
});
export const ProcessStartResult = z.object({ id: z.string(), pid: Int });

export const ProcessReadParams = z.object({
  id: z.string(),
  stream: z.enum(PROCESS_STREAMS),
  offset: Count,
  maxBytes: atMostChunk(Int.min(1), "maxBytes").optional(),
  waitMs: Int.min(0).max(MAX_READ_WAIT_MS).optional(),
});
export const ProcessReadResult = z.object({
  data: Base64,
  nextOffset: Count,
  dropped: Count,
  exited: z.boolean(),
  size: Count,
  capped: z.boolean().optional(),
  logError: z.string().optional(),
});
export type ProcessReadResult = z.infer<typeof ProcessReadResult>;

export const ProcessWriteParams = z.object({ id: z.string(), data: Base64.optional(), close: z.boolean().optional() });
export const ProcessSignalParams = z.object({ id: z.string(), signal: z.enum(PROCESS_SIGNALS) });
export const ProcessSignalResult = z.object({ note: z.string().optional() });
export const ProcessResizeParams = z.object({ id: z.string(), cols: Int.min(1), rows: Int.min(1) });

/** Where the next page of process.list starts. */
const ListCursor = z.string();
export const ProcessListParams = z.object({ from: ListCursor.optional() });
export const ProcessInfo = z.object({
  id: z.string(),
  pid: Int,
  argv: z.array(z.string()),
  argvClipped: z.boolean(),
  pty: z.boolean(),
  running: z.boolean(),
  exitCode: Int.nullable(),
  signal: SignalName.nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
});
export type ProcessInfo = z.infer<typeof ProcessInfo>;
export const ProcessListResult = z.object({
  processes: z.array(ProcessInfo),
  truncated: z.boolean(),
  next: ListCursor.optional(),
});

export const ProcessWaitParams = z.object({ id: z.string(), timeoutMs: Int.min(0).max(MAX_PROCESS_WAIT_MS) });
export const ProcessWaitResult = z.object({
  running: z.boolean(),
  exitCode: Int.nullable(),
  signal: SignalName.nullable(),
});

// --- screen (the extension) ---

export const Region = z.object({ x: Count, y: Count, width: Int.min(1), height: Int.min(1) });
export const ScreenShotParams = z.object({ region: Region.optional() });
export const ScreenShotResult = z.object({
  data: Base64,
  id: z.string().nullish(),
  eof: z.boolean(),
  width: Int.min(1),
  height: Int.min(1),
  scale: z.number().positive(),
  cursor: Point.nullish(),
});
export const ScreenReadParams = z.object({ id: z.string(), offset: Count });
export const ScreenReadResult = z.object({ data: Base64, eof: z.boolean() });
export const ScreenWatchParams = z.object({
  after: Int.min(0),
  waitMs: Int.min(0).max(MAX_WATCH_WAIT_MS).optional(),
  maxWidth: Int.min(1).optional(),
  quality: Int.min(1).max(100).optional(),
});
export const ScreenWatchResult = z.object({
  seq: Count,
  changed: z.boolean(),
  format: z.enum(["jpeg", "png"]).nullish(),
  frameWidth: Int.nullish(),
  frameHeight: Int.nullish(),
  width: Int.nullish(),
  height: Int.nullish(),
  cursor: Point.nullish(),
  data: Base64.nullish(),
  id: z.string().nullish(),
  eof: z.boolean().nullish(),
});

// --- input (the extension); the batch rules are src/daemon/actions.ts ---

export const BUTTONS = ["left", "middle", "right"] as const;
export const PHONE_BUTTONS = ["back", "home", "app_switch"] as const;
const Keys = z.array(z.string()).min(1);
const Ms = Int.min(0);

export const Action = z.discriminatedUnion("type", [
  z.object({ type: z.literal("move"), point: Point }),
  z.object({ type: z.literal("down"), point: Point.optional(), button: z.enum(BUTTONS).optional() }),
  z.object({ type: z.literal("up"), point: Point.optional(), button: z.enum(BUTTONS).optional() }),
  z.object({
    type: z.literal("click"),
    point: Point.optional(),
    button: z.enum(BUTTONS).optional(),
    count: Int.min(1).max(3).optional(),
    keys: z.array(z.string()).optional(),
  }),
  z.object({ type: z.literal("drag"), path: z.array(Point).min(2), button: z.enum(BUTTONS).optional() }),
  z.object({
    type: z.literal("scroll"),
    point: Point.optional(),
    dx: Int.optional(),
    dy: Int.optional(),
    unit: z.enum(["click", "px"]).optional(),
  }),
  z.object({ type: z.literal("key"), keys: Keys, repeat: Int.min(1).optional() }),
  z.object({ type: z.literal("hold"), keys: Keys, ms: Ms }),
  z.object({ type: z.literal("type"), text: z.string() }),
  z.object({ type: z.literal("wait"), ms: Ms }),
  z.object({ type: z.literal("tap"), point: Point }),
  z.object({ type: z.literal("long_press"), point: Point, ms: Ms.optional() }),
  z.object({ type: z.literal("swipe"), from: Point, to: Point, ms: Ms.optional() }),
  z.object({ type: z.literal("pinch"), point: Point, scale: z.number().positive() }),
  z.object({ type: z.literal("button"), button: z.enum(PHONE_BUTTONS) }),
]);
export type Action = z.infer<typeof Action>;
export type ActionType = Action["type"];

export const InputActionsParams = z.object({ actions: z.array(z.unknown()) });
export const ActionFailure = z.object({ index: Count, kind: z.enum(ERROR_KINDS), message: z.string() });
export type ActionFailure = z.infer<typeof ActionFailure>;
export const InputActionsResult = z.object({ done: Count, failed: ActionFailure.nullish() });
export type InputActionsResult = z.infer<typeof InputActionsResult>;

// --- apps (the extension) ---

export const AppInfo = z.object({ id: z.string(), label: z.string().nullish() });
export const AppsListResult = z.object({ apps: z.array(AppInfo), foreground: z.string().nullish() });
export const AppIdParams = z.object({ id: z.string().min(1) });
export const AppsInstallParams = z.object({ path: AbsPath });
export const AppsInstallResult = z.object({ id: z.string().nullish() });
export const Bounds = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });
export interface UiNode {
  role: string;
  id?: string | null;
  text?: string | null;
  label?: string | null;
  bounds: z.infer<typeof Bounds>;
  enabled: boolean;
  focused?: boolean | null;
  selected?: boolean | null;
  checked?: boolean | null;
  scrollable?: boolean | null;
  children: UiNode[];
}
export const UiNode: z.ZodType<UiNode> = z.lazy(() =>
  z.object({
    role: z.string(),
    id: z.string().nullish(),
    text: z.string().nullish(),
    label: z.string().nullish(),
    bounds: Bounds,
    enabled: z.boolean(),
    focused: z.boolean().nullish(),
    selected: z.boolean().nullish(),
    checked: z.boolean().nullish(),
    scrollable: z.boolean().nullish(),
    children: z.array(UiNode),
  }),
);
export const AppsUiTreeResult = z.object({ root: UiNode, nodes: Count.max(MAX_UI_NODES), truncated: z.boolean() });

// --- The method table ---

/** Every method: its params and its result. The daemon's table (test/vectors/) is held to it. */
export const METHODS = {
  hello: { params: HelloParams, result: HelloResult },
  ping: { params: Empty, result: Empty },
  "deadline.extend": { params: DeadlineExtendParams, result: DeadlineExtendResult },
  "exec.run": { params: ExecRunParams, result: ExecRunResult },
  "files.read": { params: FilesReadParams, result: FilesReadResult },
  "files.write": { params: FilesWriteParams, result: FilesWriteResult },
  "files.stat": { params: FilesStatParams, result: FilesStatResult },
  "files.list": { params: FilesListParams, result: FilesListResult },
  "files.mkdir": { params: FilesMkdirParams, result: Empty },
  "files.move": { params: FilesMoveParams, result: Empty },
  "files.remove": { params: FilesRemoveParams, result: Empty },
  "tar.pull.begin": { params: TarBeginParams, result: TarBeginResult },
  "tar.pull.read": { params: TarPullReadParams, result: TarPullReadResult },
  "tar.pull.end": { params: TarIdParams, result: Empty },
  "tar.push.begin": { params: TarBeginParams, result: TarBeginResult },
  "tar.push.write": { params: TarPushWriteParams, result: Empty },
  "tar.push.end": { params: TarIdParams, result: TarPushEndResult },
  "process.start": { params: ProcessStartParams, result: ProcessStartResult },
  "process.read": { params: ProcessReadParams, result: ProcessReadResult },
  "process.write": { params: ProcessWriteParams, result: Empty },
  "process.signal": { params: ProcessSignalParams, result: ProcessSignalResult },
  "process.resize": { params: ProcessResizeParams, result: Empty },
  "process.list": { params: ProcessListParams, result: ProcessListResult },
  "process.wait": { params: ProcessWaitParams, result: ProcessWaitResult },
  "screen.shot": { params: ScreenShotParams, result: ScreenShotResult },
  "screen.read": { params: ScreenReadParams, result: ScreenReadResult },
  "screen.watch": { params: ScreenWatchParams, result: ScreenWatchResult },
  "input.actions": { params: InputActionsParams, result: InputActionsResult },
  "apps.list": { params: Empty, result: AppsListResult },
  "apps.launch": { params: AppIdParams, result: Empty },
  "apps.terminate": { params: AppIdParams, result: Empty },
  "apps.install": { params: AppsInstallParams, result: AppsInstallResult },
  "apps.ui_tree": { params: Empty, result: AppsUiTreeResult },
} as const;

export type Method = keyof typeof METHODS;
export type ParamsOf<M extends Method> = z.input<(typeof METHODS)[M]["params"]>;
export type ResultOf<M extends Method> = z.output<(typeof METHODS)[M]["result"]>;
export const METHOD_NAMES = Object.keys(METHODS) as Method[];

/** The notification that cancels a request in flight. */
export const CANCEL_METHOD = "$/cancelRequest";

/** The group each method belongs to (hello, ping and deadline.extend need none). */
export const METHOD_GROUP: Record<Method, Group | null> = {
  hello: null,
  ping: null,
  "deadline.extend": null,
  "exec.run": "exec",
  "files.read": "files",
  "files.write": "files",
  "files.stat": "files",
  "files.list": "files",
  "files.mkdir": "files",
  "files.move": "files",
  "files.remove": "files",
  "tar.pull.begin": "files",
  "tar.pull.read": "files",
  "tar.pull.end": "files",
  "tar.push.begin": "files",
  "tar.push.write": "files",
  "tar.push.end": "files",
  "process.start": "processes",
  "process.read": "processes",
  "process.write": "processes",
  "process.signal": "processes",
  "process.resize": "processes",
  "process.list": "processes",
  "process.wait": "processes",
  "screen.shot": "screen",
  "screen.read": "screen",
  "screen.watch": "screen",
  "input.actions": null,
  "apps.list": "apps",
  "apps.launch": "apps",
  "apps.terminate": "apps",
  "apps.install": "apps.install",
  "apps.ui_tree": "apps.ui_tree",
};
