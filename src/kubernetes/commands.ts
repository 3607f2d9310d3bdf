// What a Pod runs, exactly as sent: the container's command, which waits for the daemon's upload,
// makes the computer's home its user's, and execs init with a network of its own; the upload
// (Modal's script: the part file, its sha256, the rename); and each connection's bridge.
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { BRIDGE, UPLOAD } from "../modal/commands.js";
import { HOME } from "./constants.js";

/**
 * POSIX sh: wait for the daemon to be there and executable, make HOME the user's, then exec
 * init as the user with its own network. Past the wait it says so on stderr and exits 3, which
 * ends the Pod. $1 the deadline, $2 uid:gid, $3 the wait in whole seconds.
 */
export const ENTRYPOINT = [
  `d=${DAEMON_IN_COMPUTER}`,
  "n=$(($3 * 5))",
  'while [ ! -x "$d" ]; do',
  '  [ "$n" -gt 0 ] || { echo "agentrun: no daemon at $d after $3 s, so the computer ends" >&2; exit 3; }',
  "  n=$((n - 1))",
  "  sleep 0.2",
  "done",
  `HOME=${HOME}`,
  "export HOME",
  'mkdir -p "$HOME" && chown "$2" "$HOME" && chmod 0755 "$HOME"',
  'exec "$d" init --deadline "$1" --user "$2" --own-network',
].join("\n");

/** The container's command for a deadline, a user and the wait in seconds. */
export function entrypoint(deadline: string, user: string, waitSeconds: number): string[] {
  return ["sh", "-c", ENTRYPOINT, "sh", deadline, user, String(Math.ceil(waitSeconds))];
}

/** The upload's exec (root, the daemon on its stdin) for the daemon's sha256. */
export function uploadArgv(sha256: string): string[] {
  return ["sh", "-c", UPLOAD, "sh", DAEMON_IN_COMPUTER, sha256];
}

export { BRIDGE };
