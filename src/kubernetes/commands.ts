// What a Pod runs, exactly as sent: Modal's entrypoint (wait for the daemon's upload, then exec
// init as the user; init makes HOME the user's) with the network's own flags after the three
// values, an open Pod's setup (the same wait, then the user's folders), Modal's upload (the part file, its sha256, the rename), and each connection's bridge.
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { BRIDGE, ENTRYPOINT, UPLOAD } from "../modal/commands.js";

const MODAL_EXEC = 'exec "$d" init --deadline "$1" --user "$2" --own-network';
/** Modal's wait for the daemon, then init with the flags given after $3 (a network's: initNetworkArgs). */
export const KUBE_ENTRYPOINT = [
  ...ENTRYPOINT.split("\n").filter((line) => line !== MODAL_EXEC),
  "dl=$1 u=$2",
  "shift 3",
  'exec "$d" init --deadline "$dl" --user "$u" "$@"',
].join("\n");

const LINES = ENTRYPOINT.split("\n");
/** An open Pod's setup (unprivileged.ts): Modal's wait for the daemon ($3 the seconds), then HOME's and the socket's folders beside it, the user's alone. */
export const SETUP_SCRIPT = [
  ...LINES.slice(
    0,
    LINES.findIndex((line) => line.startsWith("HOME=")),
  ),
  'mkdir -m 0700 "${d%/*}/home" "${d%/*}/run"',
].join("\n");

/** The number of argv entries before the network's flags (sh -c script sh deadline user wait). */
export const ENTRYPOINT_FIXED = 7;

/** The container's command for a deadline, a user, the wait in seconds and the network's flags for init. */
export function entrypoint(deadline: string, user: string, waitSeconds: number, networkArgs: readonly string[]): string[] {
  return ["sh", "-c", KUBE_ENTRYPOINT, "sh", deadline, user, String(Math.ceil(waitSeconds)), ...networkArgs];
}

/** The upload's exec (the daemon on its stdin; root in the computer, or the user in an open Pod's setup) for the daemon's sha256. */
export function uploadArgv(sha256: string): string[] {
  return ["sh", "-c", UPLOAD, "sh", DAEMON_IN_COMPUTER, sha256];
}

export { BRIDGE };
