// A launched app's window on a desktop: found by its title and raised by `computerd window`, run
// inside the computer as its user (a client of the display, as the app is), waited on within a
// bound; and read back, for drift, by the same finding without the raise.
import { CallError, type CallOptions } from "../daemon/client.js";
import { fail, ok, type Result } from "../daemon/result.js";
import type { Session } from "./session.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";

/** The most a launch's window may take to show. */
export const MAX_WINDOW_SECONDS = 600;

export interface WindowWanted {
  /** A part of the window's title. */
  title: string;
  timeoutSeconds: number;
}

/** The window found: its X id and whole title. */
export interface FoundWindow {
  id: number;
  title: string;
}

// Tries the rest of argv every 0.2 s for up to $1 seconds; prints what it printed once it exits 0.
const UNTIL_FOUND = `secs=$1; shift
end=$(( $(date +%s) + secs ))
until out=$("$@" 2>/dev/null); do
  [ "$(date +%s)" -ge "$end" ] && exit 1
  sleep 0.2
done
printf '%s\\n' "$out" | head -n 1`;

async function run(session: Session, argv: string[], timeoutMs: number, options: CallOptions) {
  try {
    return ok(await session.client.call("exec.run", { argv, timeoutMs }, options));
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    return fail(error instanceof CallError ? error.kind : "failed", `${session.name}: computerd window could not run: ${cause}`);
  }
}

const parse = (b64: string): FoundWindow | undefined => {
  try {
    const w = JSON.parse(Buffer.from(b64, "base64").toString("utf8").trim().split("\n")[0] ?? "");
    return typeof w?.id === "number" && typeof w?.title === "string" ? { id: w.id, title: w.title } : undefined;
  } catch {
    return undefined;
  }
};

/** Waits until a window whose title holds the part shows, then raises it and gives it the keyboard. */
export async function raiseWindow(session: Session, wanted: WindowWanted, options: CallOptions = {}): Promise<Result<FoundWindow>> {
  const argv = ["sh", "-c", UNTIL_FOUND, "sh", String(wanted.timeoutSeconds), DAEMON_IN_COMPUTER, "window", "--title", wanted.title, "--raise"];
  const ran = await run(session, argv, (wanted.timeoutSeconds + 10) * 1000, options);
  if (!ran.ok) return ran;
  const found = ran.value.exitCode === 0 ? parse(ran.value.stdout) : undefined;
  if (found) return ok(found);
  return fail("timeout", `${session.name}: no window titled ${JSON.stringify(wanted.title)} showed within ${wanted.timeoutSeconds} s`);
}

/** Whether a window whose title holds the part is on the display now. */
export async function windowThere(session: Session, title: string, options: CallOptions = {}): Promise<Result<boolean>> {
  const ran = await run(session, [DAEMON_IN_COMPUTER, "window", "--title", title], 30_000, options);
  if (!ran.ok) return ran;
  if (ran.value.exitCode === 0) return ok(true);
  if (ran.value.exitCode === 1) return ok(false);
  const said = Buffer.from(ran.value.stderr, "base64").toString("utf8").trim().slice(-300);
  return fail("failed", `${session.name}: computerd window exited ${ran.value.exitCode ?? ran.value.signal}${said ? `: ${said}` : ""}`);
}
