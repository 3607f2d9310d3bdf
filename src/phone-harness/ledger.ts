// The phone harness keeps no labels on a session, so the provider keeps each phone's labels,
// image and deadline here: in memory by default, or a JSON file written atomically (a part file
// renamed into place), so a killed process never leaves it half-written.
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

export interface LedgerEntry {
  /** The session's id, or pending-<Idempotency-Key> while its create is under way. */
  id: string;
  labels: Record<string, string>;
  image: string;
  /** An ISO time. */
  deadline: string;
  /** The create's Idempotency-Key, which finds the session when its answer was lost. */
  requestKey: string;
  /** Released, and kept until the session's own GET is a 404. */
  released?: boolean;
}

export interface Ledger {
  put(entry: LedgerEntry): Promise<void>;
  get(id: string): Promise<LedgerEntry | undefined>;
  list(): Promise<LedgerEntry[]>;
  remove(id: string): Promise<void>;
}

export function memoryLedger(): Ledger {
  const entries = new Map<string, LedgerEntry>();
  return {
    put: async (entry) => void entries.set(entry.id, structuredClone(entry)),
    get: async (id) => structuredClone(entries.get(id)),
    list: async () => [...entries.values()].map((e) => structuredClone(e)),
    remove: async (id) => void entries.delete(id),
  };
}

/** A ledger in one JSON file: every change read, changed and written whole, one at a time in this process. */
export function fileLedger(path: string): Ledger {
  let queue: Promise<unknown> = Promise.resolve();
  const read = async (): Promise<Record<string, LedgerEntry>> => {
    try {
      return JSON.parse(await readFile(path, "utf8")) as Record<string, LedgerEntry>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw new Error(`the phone ledger ${path} could not be read: ${(error as Error).message}`);
    }
  };
  const change = <T>(edit: (all: Record<string, LedgerEntry>) => T): Promise<T> => {
    const next = queue.then(async () => {
      const all = await read();
      const value = edit(all);
      await mkdir(dirname(path), { recursive: true });
      const part = `${path}.${randomBytes(4).toString("hex")}.part`;
      await writeFile(part, JSON.stringify(all, null, 2) + "\n", { mode: 0o600 });
      await rename(part, path);
      return value;
    });
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    put: (entry) => change((all) => void (all[entry.id] = entry)),
    get: async (id) => (await read())[id],
    list: async () => Object.values(await read()),
    remove: (id) => change((all) => void delete all[id]),
  };
}
