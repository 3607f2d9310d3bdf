// What a Modal sandbox runs, exactly as sent: the start script that waits for the daemon and execs
// init with its own network, the daemon's upload and the bridge (the kit's, src/kits/daemon-upload/),
// or with daemonImage the image's own daemon.
import { HOME } from "./constants.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { BRIDGE, startScript, UPLOAD, uploadArgv } from "../kits/daemon-upload/scripts.js";

export { BRIDGE, UPLOAD };

/** The sandbox's start script: the kit's wait, then init as the user with its own network. $1 the deadline, $2 uid:gid, $3 the wait in whole seconds. */
export const ENTRYPOINT = startScript(HOME, ['exec "$d" init --deadline "$1" --user "$2" --own-network']);

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
    upload: uploadArgv(options.sha256),
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
