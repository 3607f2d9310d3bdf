// computerd as a vendor uploads it into its computers: read once with its sha256; a failed read is
// not kept, so the next call reads again.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fail, ok, type Result } from "../daemon/result.js";

export type Daemon = { bytes: Uint8Array; sha256: string };

export class DaemonFile {
  #read: Promise<Daemon> | undefined;

  constructor(readonly path: string) {}

  /** The daemon's bytes and sha256, or an invalid daemonPath in words. */
  async bytes(): Promise<Result<Daemon>> {
    this.#read ??= readFile(this.path).then((bytes) => ({ bytes, sha256: createHash("sha256").update(bytes).digest("hex") }));
    try {
      return ok(await this.#read);
    } catch (error) {
      this.#read = undefined;
      return fail(
        "invalid",
        `the daemon at ${this.path} could not be read (${(error as NodeJS.ErrnoException).code ?? "error"}); build it with npm run setup, or give daemonPath`,
        { field: "daemonPath" },
      );
    }
  }
}
