// The daemon's upload: one root exec of the upload script (src/kits/daemon-upload/), the daemon streamed into
// its stdin in 256 KiB chunks, then closed; the sha256 the script prints must be the provider's.
import { boundedBy } from "../daemon/bound.js";
import { fail, type Result } from "../daemon/result.js";
import { uploadVerdict, type UploadOptions } from "../kits/daemon-upload/scripts.js";
import type { ExecRunner } from "./connect.js";

const CHUNK = 256 * 1024;

export async function uploadDaemon(run: ExecRunner, o: UploadOptions & { what: string }): Promise<Result<undefined>> {
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
  return uploadVerdict(o.what, o.sha256, { stdout: out, code: exit.code, last: exec.stderr().trim().split("\n").pop() ?? exit.message ?? "" });
}
