// The daemon's upload: one root exec of the upload script (src/kits/daemon-upload/), the daemon streamed into
// its stdin in 256 KiB chunks, then closed; the sha256 the script prints must be the provider's.
import { boundedBy } from "../daemon/bound.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { printedSha256 } from "../kits/daemon-upload/scripts.js";
import type { ExecRunner } from "./connect.js";

const CHUNK = 256 * 1024;

export interface UploadOptions {
  argv: string[];
  bytes: Uint8Array;
  sha256: string;
  uploadMs: number;
  callMs: number;
  signal?: AbortSignal | undefined;
  what: string;
}

export async function uploadDaemon(run: ExecRunner, o: UploadOptions): Promise<Result<undefined>> {
  const { bound, signal } = boundedBy(o.uploadMs, o.signal);
  const started = await run(o.argv, { stdin: true, ms: Math.min(o.callMs, o.uploadMs), signal });
  if (!started.ok) return fail(started.error.code, `${o.what} could not start: ${started.error.message}`);
  const exec = started.value;
  let out = "";
  exec.stdout.on("data", (c: Buffer) => (out.length < 4096 ? (out += c.toString("utf8")) : undefined));
  const onAbort = () => exec.close();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    for (let at = 0; at < o.bytes.byteLength; at += CHUNK) {
      if (signal.aborted) break;
      await new Promise<void>((resolve, reject) => exec.stdin.write(o.bytes.subarray(at, at + CHUNK), (e) => (e ? reject(e) : resolve())));
    }
    await new Promise<void>((resolve) => exec.stdin.end(resolve));
  } catch {
    // the exit below says why
  }
  const exit = await exec.exit;
  signal.removeEventListener("abort", onAbort);
  exec.close();
  if (o.signal?.aborted) return fail("aborted", `${o.what} was aborted`);
  if (bound.aborted) return fail("timeout", `${o.what} did not finish within ${o.uploadMs / 1000} s`);
  const got = printedSha256(out);
  if (got !== undefined && got !== o.sha256)
    return fail("refused", `${o.what} read back sha256 ${got}, not the provider's ${o.sha256}: the daemon that arrived is not the one sent`);
  if (exit.code !== 0) {
    const last = exec.stderr().trim().split("\n").pop() ?? exit.message ?? "";
    return fail("failed", `${o.what} exited ${exit.code ?? "with no code"}${last ? `: ${last}` : ""}`);
  }
  if (got === undefined) return fail("failed", `${o.what} printed no sha256 line, so the daemon is not known to be the provider's`);
  return ok();
}
