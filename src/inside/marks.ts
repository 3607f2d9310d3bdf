// Processes marked by a variable in their environment (NAME=value, inherited by everything they
// start): a run's folder, an app's. Ending them by that mark reaches whatever a run or service
// left behind, in any session, as long as it runs as the computer's user. The value is matched as
// a whole line of the environment, never as a pattern.
import type { CallOptions } from "../daemon/client.js";
import { ok, type Result } from "../daemon/result.js";
import { runQuietly } from "./load.js";
import type { Session } from "./session.js";

// One grep over every process's environment (NUL-separated, -z; whole entries, -x; literal, -F;
// unreadable or gone, -s), not a tr and a grep per process: ten runs staged at once in a computer
// of half a CPU each forked two per process, and that was seconds of the computer's CPU.
const END_MARKED = `mark=$1 n=0
for f in $(grep -lsxzF -- "$mark" /proc/[0-9]*/environ); do
  p=\${f#/proc/}; p=\${p%/environ}
  [ "$p" = "$$" ] && continue
  kill -9 "$p" 2>/dev/null && n=$((n + 1))
done
echo "$n"`;

const END_MS = 60_000;

/** Kills (SIGKILL) every process whose environment holds name=value; how many it ended. */
export async function endMarked(session: Session, name: string, value: string, options: CallOptions = {}): Promise<Result<number>> {
  const ended = await runQuietly(session, ["sh", "-c", END_MARKED, "sh", `${name}=${value}`], END_MS, `ending the processes marked ${name}`, options);
  if (!ended.ok) return ended;
  return ok(Number(ended.value.trim()) || 0);
}
