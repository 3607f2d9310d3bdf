// What a computer whose daemon is uploaded after it starts (Modal, Kubernetes) runs, exactly as
// sent: the start script's wait for the daemon, the upload that writes it in place only when its
// sha256 is right, the line that upload prints, and each connection's bridge.
import { DAEMON_IN_COMPUTER } from "../../contract/daemon-path.js";
import { fail, ok, type Result } from "../../daemon/result.js";

/** The part file the daemon's upload writes, then renames to DAEMON_IN_COMPUTER. */
export const DAEMON_PART = "/opt/agentrun/.computerd.part";

/**
 * POSIX sh (BusyBox and dash alike): wait for the daemon to be there and executable, $3 whole
 * seconds at most. Past the wait it says so on stderr and exits 3, which ends the computer. $d is
 * the daemon's path after it.
 */
export const WAIT_FOR_DAEMON: readonly string[] = [
  `d=${DAEMON_IN_COMPUTER}`,
  "n=$(($3 * 5))",
  'while [ ! -x "$d" ]; do',
  '  [ "$n" -gt 0 ] || { echo "agentrun: no daemon at $d after $3 s, so the computer ends" >&2; exit 3; }',
  "  n=$((n - 1))",
  "  sleep 0.2",
  "done",
];

/** A start script: the wait for the daemon, HOME (init makes it the user's), then the vendor's lines that exec init. */
export function startScript(home: string, init: readonly string[]): string {
  return [...WAIT_FOR_DAEMON, `HOME=${home}`, "export HOME", ...init].join("\n");
}

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

/** The upload's exec (the daemon on its stdin) for the daemon's sha256. */
export function uploadArgv(sha256: string): string[] {
  return ["sh", "-c", UPLOAD, "sh", DAEMON_IN_COMPUTER, sha256];
}

/** The sha256 line the upload prints, or undefined. */
export function printedSha256(stdout: string): string | undefined {
  return /^sha256 ([0-9a-f]{64})$/m.exec(stdout)?.[1];
}

export interface UploadOptions {
  argv: string[];
  bytes: Uint8Array;
  sha256: string;
  /** The whole upload's bound. */
  uploadMs: number;
  /** The exec's own bound within it. */
  callMs: number;
  signal?: AbortSignal | undefined;
}

/** An upload that ran to its end: the daemon in place only when the sha256 it printed is the provider's and it exited 0. */
export function uploadVerdict(what: string, sha256: string, ran: { stdout: string; code: number | null | undefined; last: string }): Result<undefined> {
  const got = printedSha256(ran.stdout);
  if (got !== undefined && got !== sha256)
    return fail("refused", `${what} read back sha256 ${got}, not the provider's ${sha256}: the daemon that arrived is not the one sent`);
  if (ran.code !== 0) return fail("failed", `${what} exited ${ran.code ?? "with no code"}${ran.last ? `: ${ran.last}` : ""}`);
  if (got === undefined) return fail("failed", `${what} printed no sha256 line, so the daemon is not known to be the provider's`);
  return ok();
}

/** Each connection's exec: the bridge to init's socket. */
export const BRIDGE: readonly string[] = [DAEMON_IN_COMPUTER, "stdio"];
