// The daemon's upload: one root exec of the upload script, the daemon streamed into its stdin in
// the SDK's 256 KiB chunks, then closed; the sha256 the script prints must be the provider's.
import { fail, type Result } from "../daemon/result.js";
import { bounded, codeOf, wordsOf } from "./calls.js";
import { UPLOAD_CHUNK } from "./constants.js";
import { uploadVerdict, type UploadOptions } from "../kits/daemon-upload/scripts.js";
import type { ModalSandbox } from "./sdk.js";
import { boundedBy } from "../daemon/bound.js";

/** All of a stream's bytes (stdout, stderr), up to a cap; the rest is read and dropped. */
export async function readAll(stream: ReadableStream<Uint8Array>, cap = 64 * 1024): Promise<Uint8Array> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size < cap) parts.push(value.subarray(0, cap - size));
    size += value.byteLength;
  }
  return Buffer.concat(parts);
}

export async function upload(sandbox: ModalSandbox, options: UploadOptions): Promise<Result<undefined>> {
  const { signal } = boundedBy(options.uploadMs, options.signal);
  const what = `the daemon's upload into ${sandbox.sandboxId}`;
  const started = await bounded(() => sandbox.exec(options.argv, { mode: "binary" }), {
    what: `${what} (its exec)`,
    ms: Math.min(options.callMs, options.uploadMs),
    signal,
    // An exec that lands after is given an empty stdin, so the script fails its sha256 and ends.
    late: (process) => void process.stdin.close().catch(() => undefined),
  });
  if (!started.ok) return started;
  const process = started.value;
  const stdout = readAll(process.stdout);
  const stderr = readAll(process.stderr);
  const ended = (async () => {
    const writer = process.stdin.getWriter();
    try {
      for (let at = 0; at < options.bytes.byteLength; at += UPLOAD_CHUNK) {
        if (signal.aborted) throw signal.reason;
        await writer.write(options.bytes.subarray(at, at + UPLOAD_CHUNK));
      }
      await writer.close();
    } catch (error) {
      await writer.abort(error).catch(() => undefined);
      throw error;
    }
    const [code, out, err] = await Promise.all([process.wait(), stdout, stderr]);
    return { code, out: Buffer.from(out).toString("utf8"), err: Buffer.from(err).toString("utf8") };
  })();
  ended.catch(() => undefined);
  const stopped = new Promise<"stopped">((resolve) => {
    if (signal.aborted) resolve("stopped");
    signal.addEventListener("abort", () => resolve("stopped"), { once: true });
  });
  let outcome;
  try {
    outcome = await Promise.race([ended, stopped]);
  } catch (error) {
    return fail(codeOf(error) === "failed" ? "failed" : codeOf(error), `${what} failed while streaming the daemon: ${wordsOf(error)}`);
  }
  if (outcome === "stopped") {
    void process.stdin.abort().catch(() => undefined);
    if (options.signal?.aborted) return fail("aborted", `${what} was aborted`);
    return fail("timeout", `${what} did not finish within ${options.uploadMs / 1000} s`);
  }
  const last = outcome.err.trim().split("\n").pop() ?? "";
  return uploadVerdict(what, options.sha256, { stdout: outcome.out, code: outcome.code, last: last ? wordsOf(last) : "" });
}
