// What a Pod runs, exactly as sent: Modal's entrypoint (wait for the daemon's upload, then exec
// init as the user with a network of its own; init makes HOME the user's), Modal's upload (the
// part file, its sha256, the rename), and each connection's bridge.
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { BRIDGE, ENTRYPOINT, UPLOAD } from "../modal/commands.js";

/** The container's command for a deadline, a user and the wait in seconds. */
export function entrypoint(deadline: string, user: string, waitSeconds: number): string[] {
  return ["sh", "-c", ENTRYPOINT, "sh", deadline, user, String(Math.ceil(waitSeconds))];
}

/** The upload's exec (root, the daemon on its stdin) for the daemon's sha256. */
export function uploadArgv(sha256: string): string[] {
  return ["sh", "-c", UPLOAD, "sh", DAEMON_IN_COMPUTER, sha256];
}

export { BRIDGE };
