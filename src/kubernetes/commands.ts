// What a Pod runs, exactly as sent: the start script (the kit's wait for the daemon's upload, an
// allowlist's system trust store linked to init's bundle, then init as the user; init makes HOME
// the user's) with the network's own flags after the three
// values, an open Pod's setup (the same wait, then the user's folders), the daemon's upload (the
// part file, its sha256, the rename) and each connection's bridge, all the kit's
// (src/kits/daemon-upload/).
import { BRIDGE, startScript, uploadArgv, WAIT_FOR_DAEMON } from "../kits/daemon-upload/scripts.js";
import { HOME } from "./constants.js";
import { RELINK_SCRIPT } from "../egress/trust-store.js";

/**
 * The kit's wait for the daemon, then init with the flags given after $3 (a network's:
 * initNetworkArgs); an allowlist's (--egress) first has the system trust store linked to init's
 * bundle, while the script is still root (src/egress/trust-store.ts).
 */
export const KUBE_ENTRYPOINT = startScript(HOME, [
  "dl=$1 u=$2",
  "shift 3",
  'case " $* " in *" --egress "*)',
  RELINK_SCRIPT,
  ";; esac",
  'exec "$d" init --deadline "$dl" --user "$u" "$@"',
]);

/** An open Pod's setup (unprivileged.ts): the kit's wait for the daemon ($3 the seconds), then HOME's and the socket's folders beside it, the user's alone. */
export const SETUP_SCRIPT = [...WAIT_FOR_DAEMON, 'mkdir -m 0700 "${d%/*}/home" "${d%/*}/run"'].join("\n");

/** The number of argv entries before the network's flags (sh -c script sh deadline user wait). */
export const ENTRYPOINT_FIXED = 7;

/** The container's command for a deadline, a user, the wait in seconds and the network's flags for init. */
export function entrypoint(deadline: string, user: string, waitSeconds: number, networkArgs: readonly string[]): string[] {
  return ["sh", "-c", KUBE_ENTRYPOINT, "sh", deadline, user, String(Math.ceil(waitSeconds)), ...networkArgs];
}

export { BRIDGE, uploadArgv };
