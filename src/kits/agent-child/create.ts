// The create steps every vendor shares whose own agent runs computerd as its child (Daytona's
// toolbox, E2B's envd): the daemon uploaded and installed (install.ts's commands, the vendor's
// upload and run), init's words when the first connection fails, the daemon's drift refused, and
// the words of a create aborted after its checks or at its end.
import { type CreateStep, abortedWords } from "../../contract/create.js";
import { fail, type Result } from "../../daemon/result.js";
import { installCommand, readInstall, refusalIn, uploadPath } from "./install.js";

/** How a vendor moves the daemon's bytes in and runs the install, each bounded and signalled. */
export interface InstallIo {
  upload(path: string, bytes: Uint8Array, signal: AbortSignal | undefined): Promise<Result<unknown>>;
  /** The command run as the vendor's user: its exit code and everything it printed. */
  run(command: string, what: string, signal: AbortSignal | undefined): Promise<Result<{ exitCode: number; output: string }>>;
}

/** The daemon uploaded to a fresh path and installed root-owned at /opt/agentrun/computerd, its sha256 read back. */
export async function installDaemon(
  io: InstallIo,
  daemon: { bytes: Uint8Array; sha256: string },
  signal: AbortSignal | undefined,
): Promise<Result<{ sha256: string }>> {
  const uploaded = uploadPath();
  const up = await io.upload(uploaded, daemon.bytes, signal);
  if (!up.ok) return up;
  const install = await io.run(installCommand(uploaded), "installing the daemon", signal);
  if (!install.ok) return install;
  return readInstall(install.value.exitCode, install.value.output, daemon.sha256);
}

/** The first connection's failure, with init's own words on why it did not start (no CAP_SYS_ADMIN, another process with its uid). */
export function connectFailed(error: { code: string; message: string }, initOutput: string | undefined, lastLine: (text: string) => string | undefined) {
  const words = initOutput === undefined ? undefined : (refusalIn(initOutput) ?? lastLine(initOutput));
  return fail(error.code === "aborted" ? "aborted" : "refused", `${error.message}${words ? `; init said: ${words}` : ""}`);
}

/** The daemon's drift as create refuses it; undefined when there is none. */
export function daemonRefused(name: string, drift: string[]) {
  return drift.length ? fail("refused", `${name}'s daemon is not what was declared: ${drift.join("; ")}`) : undefined;
}

/** A create aborted after its checks, or at its end (after the listing's wait). */
export function childAborted(step: CreateStep): string {
  if (step === "verify") return "create was aborted after its checks";
  if (step === "listed") return "create was aborted at its end";
  return abortedWords(step);
}
