// The install and start every vendor shares whose own agent is the sandbox's first process and
// runs computerd as its child (Daytona's toolbox, E2B's envd). The vendor moves the bytes and runs
// the commands; this file holds the commands and reads what they print, so both vendors install
// and start the daemon the same way:
//   - install: the uploaded binary moved to /opt/agentrun/computerd, root-owned, mode 755, the
//     whole path held to one rule (root's, writable by no group or other user), its sha256 read back;
//   - start: computerd init --deadline --user --own-network --max-deadline, as root, in a clean
//     environment, from /work;
//   - bridge: computerd stdio, as root, after the same path rule.
import { createHash, randomBytes } from "node:crypto";
import { fail, ok, type Result } from "../../daemon/result.js";
import { DAEMON_IN_COMPUTER } from "../../contract/daemon-path.js";

/** The daemon's home and working directory. */
export const CHILD_HOME = "/work";
/** The socket's directory, which init gives the daemon's user. */
export const CHILD_RUN_DIR = "/run/agentrun";
/** The daemon's user when the provider names none. */
export const CHILD_USER = "2510:2510";
/** The line the install prints before the installed binary's sha256. */
const SHA_MARK = "agentrun-installed-sha256";
/** The words a refusal of the script starts with. */
const REFUSED_MARK = "agentrun-refused:";

/** A fresh upload path under /tmp: the vendor's upload lands there, the install moves it. */
export function uploadPath(): string {
  return `/tmp/agentrun-computerd-${randomBytes(8).toString("hex")}`;
}

export function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** One word for sh, single-quoted. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

// The path rule, as sh: each path owned by uid 0, of its type (a symbolic link fails), and
// writable by no group and no other user; a tenth mode character (an ACL, +) fails it too.
const PATH_RULE = [
  "held() {",
  '  for p in "$@"; do',
  '    set -- $(ls -ldn "$p" 2>/dev/null) && [ "${3:-x}" = 0 ] || { echo "' + REFUSED_MARK + ' $p is not owned by root" >&2; return 1; }',
  '    case "$1" in [-d]????-??-?) ;; *) echo "' + REFUSED_MARK + ' $p reads $1: a link, an ACL, or writable by a group or another user" >&2; return 1 ;; esac',
  "  done",
  "}",
].join("\n");
const DAEMON_PATH = [DAEMON_IN_COMPUTER, "/opt/agentrun", "/opt", "/"].map(shellQuote).join(" ");

// Runs a script as root: at once when the shell is root's, else through passwordless sudo; a
// sandbox with neither is refused in the script's words.
function asRoot(script: string, args: string[] = []): string {
  const rest = [shellQuote(script), "sh", ...args.map(shellQuote)].join(" ");
  return [
    `if [ "$(id -u)" = 0 ]; then exec sh -c ${rest}`,
    `elif sudo -n true 2>/dev/null; then exec sudo -n sh -c ${rest}`,
    `else echo "${REFUSED_MARK} the sandbox's shell is not root and has no passwordless sudo, so the daemon cannot be installed or started" >&2; exit 3; fi`,
  ].join("\n");
}

/**
 * The install, as one sh command run as the vendor's user: moves the upload to DAEMON_IN_COMPUTER,
 * root-owned, mode 755, makes the home and the socket's directory, holds the whole path to the
 * rule (removing the binary when it fails), and prints the installed binary's sha256.
 */
export function installCommand(uploaded: string): string {
  const script = [
    "set -u",
    PATH_RULE,
    "src=$1; dst=" + shellQuote(DAEMON_IN_COMPUTER),
    "mkdir -p /opt/agentrun && chown 0:0 /opt/agentrun && chmod 755 /opt/agentrun || exit 4",
    'rm -rf "$dst"',
    'cp "$src" "$dst" && chown 0:0 "$dst" && chmod 755 "$dst" || { rm -f "$src" "$dst"; exit 4; }',
    'rm -f "$src"',
    `held ${DAEMON_PATH} || { rm -f "$dst"; exit 5; }`,
    `mkdir -p ${shellQuote(CHILD_HOME)} ${shellQuote(CHILD_RUN_DIR)} || exit 4`,
    `set -- $(sha256sum "$dst") && echo "${SHA_MARK} $1"`,
  ].join("\n");
  return asRoot(script, [uploaded]);
}

/** The installed binary's sha256 from the install's output, or the refusal in the script's words. */
export function readInstall(exitCode: number, output: string, uploadedSha: string): Result<{ sha256: string }> {
  const refused = output.split("\n").find((line) => line.startsWith(REFUSED_MARK));
  if (refused) return fail("refused", `the daemon was not installed: ${refused.slice(REFUSED_MARK.length).trim()}`);
  if (exitCode !== 0) return fail("failed", `the daemon's install exited ${exitCode}: ${clip(output)}`);
  const line = output.split("\n").find((l) => l.startsWith(`${SHA_MARK} `));
  const sha256 = line?.slice(SHA_MARK.length + 1).trim();
  if (!sha256 || !/^[0-9a-f]{64}$/.test(sha256)) return fail("failed", `the daemon's install printed no sha256: ${clip(output)}`);
  if (sha256 !== uploadedSha) return fail("refused", `the installed daemon's sha256 is ${sha256}, not the uploaded one's ${uploadedSha}`);
  return ok({ sha256 });
}

export interface StartOptions {
  /** init's deadline, an ISO time. */
  deadline: string;
  /** The most deadline.extend may reach, an ISO time (the deadline itself when extend is not offered). */
  maxDeadline: string;
  /** The daemon's user, uid:gid. */
  user: string;
  /** Variables beside PATH and HOME (E2B's DISPLAY). */
  env?: Record<string, string>;
}

const CLEAN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

function rootRun(argv: string[], env: Record<string, string> = {}): string {
  const vars = Object.entries({ PATH: CLEAN_PATH, HOME: CHILD_HOME, ...env }).map(([k, v]) => shellQuote(`${k}=${v}`));
  const script = [
    "set -u",
    PATH_RULE,
    `held ${DAEMON_PATH} || exit 5`,
    `cd ${shellQuote(CHILD_HOME)} || exit 4`,
    `exec env -i ${vars.join(" ")} ${argv.map(shellQuote).join(" ")}`,
  ].join("\n");
  return asRoot(script);
}

/** computerd init as the computer's first process of ours: its own network, its user, its deadline. */
export function startCommand(options: StartOptions): string {
  return rootRun(
    [DAEMON_IN_COMPUTER, "init", "--deadline", options.deadline, "--user", options.user, "--own-network", "--max-deadline", options.maxDeadline],
    options.env,
  );
}

/** computerd stdio as root: the bridge to init's socket, which carries bytes and nothing else. */
export function bridgeCommand(): string {
  return rootRun([DAEMON_IN_COMPUTER, "stdio"]);
}

/** A refusal the start or the bridge printed, in its words, when there is one. */
export function refusalIn(output: string): string | undefined {
  const line = output.split("\n").find((l) => l.startsWith(REFUSED_MARK));
  return line?.slice(REFUSED_MARK.length).trim();
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > 400 ? `${one.slice(0, 400)}...` : one || "(nothing)";
}
