// What a Modal sandbox runs, exactly as sent: the entrypoint that waits for the daemon and execs
// init, the upload that writes it in place only when its sha256 is right, and the bridge.
import { DAEMON_PART, HOME } from "./constants.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";

/**
 * POSIX sh (BusyBox and dash alike): wait for the daemon to be there and executable, then exec
 * init as the user with its own network. Past the wait it says so on stderr and exits 3, which
 * ends the sandbox. $1 the deadline, $2 uid:gid, $3 the wait in whole seconds.
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
  'exec "$d" init --deadline "$1" --user "$2" --own-network',
].join("\n");

/**
 * Run as root through exec, the daemon on stdin: the part file, 0755, its sha256 printed, and the
 * rename into place only when that is the sha256 given. $1 the target, $2 the sha256.
 */
export const UPLOAD = [
  "set -e",
  `part=${DAEMON_PART}`,
  'mkdir -p "${1%/*}"',
  'cat > "$part"',
  'chmod 0755 "$part"',
  'got=$(sha256sum "$part" | cut -d " " -f 1)',
  'echo "sha256 $got"',
  'if [ "$got" != "$2" ]; then rm -f "$part"; echo "agentrun: the upload\'s sha256 is $got, not $2" >&2; exit 4; fi',
  'mv -f "$part" "$1"',
].join("\n");

/** Each connection's exec: the bridge to init's socket. */
export const BRIDGE: readonly string[] = [DAEMON_IN_COMPUTER, "stdio"];

export interface ModalCommands {
  /** The sandbox's command. */
  entrypoint: string[];
  /** The upload's exec, the daemon on its stdin. */
  upload: string[];
  /** Each connection's exec. */
  bridge: string[];
}

/** The entrypoint (with the daemon's upload) for a deadline, a user and the wait in seconds. */
export function modalCommands(options: { deadline: string; user: string; waitSeconds: number; sha256: string }): ModalCommands {
  return {
    entrypoint: ["sh", "-c", ENTRYPOINT, "sh", options.deadline, options.user, String(Math.ceil(options.waitSeconds))],
    upload: ["sh", "-c", UPLOAD, "sh", DAEMON_IN_COMPUTER, options.sha256],
    bridge: [...BRIDGE],
  };
}

/** With daemonImage the daemon is in the image: the command is init itself. */
export function imageEntrypoint(deadline: string, user: string): string[] {
  return [DAEMON_IN_COMPUTER, "init", "--deadline", deadline, "--user", user, "--own-network"];
}

/** The layer on the spec's image: HOME and the workdir, and with daemonImage the daemon copied from it. */
export function imageLayer(workdir: string, daemonImage?: string): string[] {
  return [...(daemonImage ? [`COPY --from=${daemonImage} /computerd ${DAEMON_IN_COMPUTER}`] : []), `ENV HOME=${HOME}`, `WORKDIR ${workdir}`];
}
