// The drift check of a daemon that is the vendor agent's child (Daytona, E2B), over one
// connection: hello against the provider's, a program's /proc/self/status (the daemon's user, no
// groups, NoNewPrivs 1, every capability set zero), the daemon's cwd and exe, and the installed
// binary's sha256. One sentence per mismatch; none when the daemon is what was declared.
import { CallError, type ComputerClient } from "../../daemon/client.js";
import { CHILD_HOME } from "./install.js";
import type { Hello } from "../../daemon/protocol.js";
import { DAEMON_IN_COMPUTER } from "../../contract/daemon-path.js";

export interface DaemonExpected {
  version: string;
  arch: string;
  kind: string;
  groups: readonly string[];
  /** uid:gid. */
  user: string;
  /** The daemon's sha256, the provider's own binary's. */
  sha256: string;
}

/** hello against the provider's: version, os, arch, kind and groups. */
export function helloDrift(hello: Hello, want: DaemonExpected): string[] {
  const out: string[] = [];
  if (hello.version !== want.version) out.push(`the daemon reports version ${hello.version}, not the provider's ${want.version}`);
  if (hello.os !== "linux") out.push(`the daemon reports os ${hello.os}, not linux`);
  if (hello.arch !== want.arch) out.push(`the daemon reports arch ${hello.arch}, not ${want.arch}`);
  if (hello.kind !== want.kind) out.push(`the daemon reports kind ${hello.kind}, not ${want.kind}`);
  const sorted = (g: readonly string[]) => [...g].sort().join(",");
  if (sorted(hello.groups) !== sorted(want.groups)) out.push(`the daemon reports groups ${hello.groups.join(", ")}, not ${want.groups.join(", ")}`);
  return out;
}

/** The status fields of a process that holds nothing, as the daemon's user. */
export function statusDrift(status: string, user: string): string[] {
  const fields = new Map(status.split("\n").map((l) => l.split(":\t").map((s) => s.trim()) as [string, string]));
  const [uid, gid] = user.split(":");
  const out: string[] = [];
  const four = (id: string | undefined) => [id, id, id, id].join(" ");
  const ids = (name: string) => (fields.get(name) ?? "").split(/\s+/).join(" ");
  if (ids("Uid") !== four(uid)) out.push(`the daemon's programs run as uid ${fields.get("Uid") ?? "unknown"}, not ${uid} four times`);
  if (ids("Gid") !== four(gid)) out.push(`the daemon's programs run as gid ${fields.get("Gid") ?? "unknown"}, not ${gid} four times`);
  if ((fields.get("Groups") ?? "") !== "") out.push(`the daemon's programs hold the groups ${fields.get("Groups")}`);
  if (fields.get("NoNewPrivs") !== "1") out.push(`the daemon's programs read NoNewPrivs ${fields.get("NoNewPrivs") ?? "nothing"}, not 1`);
  for (const set of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) {
    if (!/^0+$/.test(fields.get(set) ?? "")) out.push(`the daemon's programs hold ${set} ${fields.get(set) ?? "unknown"}, not zero`);
  }
  return out;
}

/** The daemon over one connection: hello, a program's /proc/self/status, the daemon's cwd and exe, the binary's sha256. */
export async function daemonDrift(client: ComputerClient, hello: Hello, want: DaemonExpected, signal?: AbortSignal): Promise<string[]> {
  const out = helloDrift(hello, want);
  try {
    const run = await client.call(
      "exec.run",
      { argv: ["sh", "-c", `cat /proc/self/status; echo "sha256 $(sha256sum ${DAEMON_IN_COMPUTER})"`], timeoutMs: 20_000 },
      { signal },
    );
    const text = Buffer.from(run.stdout, "base64").toString("utf8");
    if (run.exitCode !== 0) out.push(`reading the daemon's programs from inside exited ${run.exitCode ?? run.signal}`);
    else out.push(...statusDrift(text, want.user));
    const sha = /^sha256 ([0-9a-f]{64})/m.exec(text)?.[1];
    if (sha !== want.sha256) out.push(`${DAEMON_IN_COMPUTER} reads sha256 ${sha ?? "nothing"}, not the provider's daemon's ${want.sha256}`);
    const cwd = await client.call("files.stat", { path: "/proc/self/cwd" }, { signal });
    if (cwd.target !== CHILD_HOME) out.push(`the daemon works in ${cwd.target ?? "an unknown directory"}, not ${CHILD_HOME}`);
    const exe = await client.call("files.stat", { path: "/proc/self/exe" }, { signal });
    if (exe.target !== DAEMON_IN_COMPUTER) out.push(`the daemon runs ${exe.target ?? "an unknown binary"}, not ${DAEMON_IN_COMPUTER}`);
  } catch (error) {
    if (error instanceof CallError && error.kind === "aborted") throw error;
    out.push(`the daemon could not be read from inside: ${(error as Error).message}`);
  }
  return out;
}
