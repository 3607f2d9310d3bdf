// Files loaded into a computer's home in batches of at most 64 MiB (a bigger file goes alone),
// each batch one tar push. The daemon writes every file of a push beside its name and renames it
// into place (a .computerd-push-* part), so a connection cut mid-batch leaves no half file and a
// retry writes every file whole. Each batch is read back from inside: one exec.run over its paths
// (`computerd sums`, the daemon's own binary, which every computer has: Go's sha256 on the CPU's
// SHA instructions, as the computer's user), so what is there is known by its bytes, not by what
// was sent; it runs while the next batch is pushed.
import { createHash } from "node:crypto";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { CallError, type CallOptions } from "../daemon/client.js";
import { pushTar } from "../daemon/files.js";
import { MAX_OUTPUT_BYTES } from "../daemon/protocol.js";
import { fail, ok, type Result } from "../daemon/result.js";
import type { Session } from "./session.js";
import { tarStream, type StreamEntry } from "./tar-stream.js";

/** The most one batch carries (the seed's bound: the daemon holds what a call carries). */
export const MAX_BATCH_BYTES = 64 * 1024 * 1024;
/** Paths per read-back run: one line each, far under exec.run's 360 KiB of output. */
const READ_BACK_PATHS = 1000;
const READ_BACK_MS = 120_000;

/** A file to load: its home-relative path, mode, size and bytes, and its sha256 when asked. */
export interface FileToLoad extends StreamEntry {
  sha256(): Promise<string>;
}

/**
 * A file to load from a source read again at each ask (lent or not, as StreamEntry.bytes says).
 * Its sha256 is that of its bytes as first read whole: by the push that sends them (hashed as they
 * go, so a new file is read once) or, asked before any push, by a read of its own (a file already
 * inside is compared before it is sent).
 */
export function fileToLoad(name: string, mode: number, size: number, source: (lent: boolean) => AsyncIterable<Uint8Array>): FileToLoad {
  /** The sha256, once a read has gone through every byte; a read cut short gives none. */
  let hex: string | undefined;
  let asked: Promise<string> | undefined;
  // The one hashing read: a send's, or the sha256's own when it is asked for first.
  async function* hashing(lent: boolean): AsyncGenerator<Uint8Array, void> {
    const hash = createHash("sha256");
    for await (const chunk of source(lent)) {
      hash.update(chunk);
      yield chunk;
    }
    hex ??= hash.digest("hex");
  }
  // Each chunk is hashed before the next is asked for: lent.
  const drained = async () => {
    for await (const chunk of hashing(true)) void chunk;
    return hex!;
  };
  return {
    name,
    mode,
    size,
    sha256: () => (asked ??= hex !== undefined ? Promise.resolve(hex) : drained()),
    bytes: (lent = false) => (hex !== undefined || asked ? source(lent) : hashing(lent)),
  };
}

/** A file as read back from inside: its sha256 and mode (octal text, "644"). */
export interface FileReadBack {
  sha256: string;
  mode: string;
}

/** A mode's permission bits as the read-back gives them (octal text, "644"). */
const modeText = (mode: number) => (mode & 0o7777).toString(8);

/** The files in batches of at most maxBytes, in order; a file bigger than that is a batch alone. */
export function batchesOf<T extends { size: number }>(files: readonly T[], maxBytes = MAX_BATCH_BYTES): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const file of files) {
    if (current.length > 0 && bytes + file.size > maxBytes) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += file.size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export interface LoadOptions extends CallOptions {
  /** Told as each batch starts (1-based), with how many there are. */
  onBatch?: (batch: number, of: number, bytes: number) => void;
}

/**
 * Loads the files into the home, batch by batch, and reads each batch back: every sha256 and mode
 * must be what was sent. A batch's read-back (the sha256 inside) runs while the next batch is
 * pushed, on the same connection; the first failure in batch order is the result.
 */
export async function loadFiles(session: Session, files: readonly FileToLoad[], options: LoadOptions = {}): Promise<Result<Record<string, FileReadBack>>> {
  const batches = batchesOf(files);
  const checks: Array<Promise<Result<Record<string, FileReadBack>>>> = [];
  let refused = false;
  const checked = async (): Promise<Result<Record<string, FileReadBack>>> => {
    const read: Record<string, FileReadBack> = {};
    for (const check of checks) {
      const back = await check;
      if (!back.ok) return back;
      Object.assign(read, back.value);
    }
    return ok(read);
  };
  for (const [i, batch] of batches.entries()) {
    // A batch that read back otherwise already: no more is sent.
    if (refused) return checked();
    const bytes = batch.reduce((n, f) => n + f.size, 0);
    options.onBatch?.(i + 1, batches.length, bytes);
    // Lent: the push copies each file's chunks into its own writes, so reads reuse two buffers.
    const pushed = await pushTar(session.client, session.home, tarStream(batch, true), { signal: options.signal, lent: true });
    if (!pushed.ok) {
      // A batch before it that does not read back as sent is the first failure.
      const before = await checked();
      if (!before.ok) return before;
      const where = `batch ${i + 1} of ${batches.length} (${batch.length} files, ${bytes} bytes)`;
      if (pushed.error.code === "closed") {
        return fail(
          "closed",
          `${session.name}: the connection to its daemon broke during tar.push of ${where} (${pushed.error.message}); each file is written whole or not at all, and a retry writes every file whole`,
        );
      }
      return fail(pushed.error.code, `${session.name}: tar.push of ${where} failed: ${pushed.error.message}`);
    }
    checks.push(
      checkBatch(session, batch, options).then((back) => {
        refused ||= !back.ok;
        return back;
      }),
    );
  }
  return checked();
}

/** A pushed batch read back from inside: each file's sha256 and mode as sent, or the first that is not. */
async function checkBatch(session: Session, batch: readonly FileToLoad[], options: CallOptions): Promise<Result<Record<string, FileReadBack>>> {
  const back = await readBack(
    session,
    batch.map((f) => f.name),
    options,
  );
  if (!back.ok) return back;
  const read: Record<string, FileReadBack> = {};
  for (const file of batch) {
    const got = back.value[file.name];
    const want = modeText(file.mode);
    const sent = await file.sha256();
    if (!got) return fail("failed", `${session.name}: ${file.name} was sent but is not there when read back`);
    if (got.sha256 !== sent)
      return fail("failed", `${session.name}: ${file.name} reads back with sha256 ${got.sha256}, not the ${sent} sent (changed inside while it was written?)`);
    if (got.mode !== want) return fail("failed", `${session.name}: ${file.name} reads back with mode ${got.mode}, not the ${want} sent`);
    read[file.name] = got;
  }
  return ok(read);
}

/** One sentence per file that is not, inside, what was written. */
export function driftOf(written: Record<string, FileReadBack>, read: Record<string, FileReadBack>): string[] {
  return Object.entries(written).flatMap(([path, want]) => {
    const got = read[path];
    if (!got) return [`${path} was removed inside the computer`];
    if (got.sha256 !== want.sha256) return [`${path} was changed inside the computer (sha256 ${got.sha256.slice(0, 12)}…, not ${want.sha256.slice(0, 12)}…)`];
    if (got.mode !== want.mode) return [`${path} has mode ${got.mode} inside the computer, not ${want.mode}`];
    return [];
  });
}

/**
 * The files made as wanted: each read back first, only those not there as wanted loaded (in
 * batches), and each of remove no longer wanted removed. Every wanted file as read back.
 */
export async function syncFiles(
  session: Session,
  files: readonly FileToLoad[],
  remove: readonly string[],
  options: LoadOptions = {},
): Promise<Result<Record<string, FileReadBack>>> {
  const there = await readBack(
    session,
    files.map((f) => f.name),
    options,
  );
  if (!there.ok) return there;
  // Only a file already there is hashed before it is sent: one that is not is hashed as it goes.
  const wanted = await Promise.all(
    files.map(async (f) => {
      const got = there.value[f.name];
      return got !== undefined && got.mode === modeText(f.mode) && got.sha256 === (await f.sha256());
    }),
  );
  const stale = files.filter((_, i) => !wanted[i]);
  const loaded = await loadFiles(session, stale, options);
  if (!loaded.ok) return loaded;
  const names = new Set(files.map((f) => f.name));
  const gone = remove.filter((p) => !names.has(p));
  if (gone.length) {
    const removed = await removeFiles(session, gone, options);
    if (!removed.ok) return removed;
  }
  return ok({ ...there.value, ...loaded.value });
}

/** Each path's sha256 and mode as read from inside, one exec.run per thousand paths; a path not there (or not a file) is left out. */
export async function readBack(session: Session, paths: readonly string[], options: CallOptions = {}): Promise<Result<Record<string, FileReadBack>>> {
  const found: Record<string, FileReadBack> = {};
  for (let at = 0; at < paths.length; at += READ_BACK_PATHS) {
    const some = paths.slice(at, at + READ_BACK_PATHS);
    const run = await runQuietly(session, [DAEMON_IN_COMPUTER, "sums", ...some], READ_BACK_MS, "the read-back (computerd sums)", options, session.home);
    if (!run.ok) return run;
    const lines = run.value.split("\n").filter((l) => l !== "");
    if (lines.length !== some.length) return fail("protocol", `${session.name}: the read-back printed ${lines.length} lines for ${some.length} paths`);
    some.forEach((path, i) => {
      const m = /^([0-7]+) ([0-9a-f]{64})$/.exec(lines[i]!);
      if (m) found[path] = { mode: m[1]!, sha256: m[2]! };
    });
  }
  return ok(found);
}

/** Removes the files (home-relative) and nothing else; one already gone is fine. */
export async function removeFiles(session: Session, paths: readonly string[], options: CallOptions = {}): Promise<Result<undefined>> {
  for (let at = 0; at < paths.length; at += READ_BACK_PATHS) {
    const some = paths.slice(at, at + READ_BACK_PATHS);
    const run = await runQuietly(session, ["sh", "-c", 'cd "$HOME" && rm -f -- "$@"', "sh", ...some], READ_BACK_MS, "rm", options);
    if (!run.ok) return run;
  }
  return ok();
}

/** An exec.run that must exit 0: its stdout, or a failure naming the computer, what ran and why. */
export async function runQuietly(
  session: Session,
  argv: string[],
  timeoutMs: number,
  what: string,
  options: CallOptions,
  cwd?: string,
): Promise<Result<string>> {
  try {
    const run = await session.client.call("exec.run", { argv, timeoutMs, maxOutput: MAX_OUTPUT_BYTES, ...(cwd ? { cwd } : {}) }, options);
    const stderr = Buffer.from(run.stderr, "base64").toString("utf8").trim().split("\n").slice(-3).join("; ");
    if (run.timedOut) return fail("timeout", `${session.name}: ${what} did not finish within ${timeoutMs / 1000} s`);
    if (run.exitCode !== 0)
      return fail("failed", `${session.name}: ${what} exited ${run.exitCode ?? `on ${run.signal}`}${stderr ? `: ${stderr}` : ""}`, {
        detail: { kind: "exited", code: run.exitCode, ...(run.signal ? { signal: run.signal } : {}) },
      });
    return ok(Buffer.from(run.stdout, "base64").toString("utf8"));
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    return fail(error instanceof CallError ? error.kind : "failed", `${session.name}: exec.run of ${what} failed: ${cause}`);
  }
}
