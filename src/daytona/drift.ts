// The drift check: a sandbox as Daytona reads it back, and its daemon as it answers, against
// what was declared. One sentence per mismatch; none when the computer is what was declared.
import { CallError, type ComputerClient } from "../client.js";
import { CHILD_DAEMON, CHILD_HOME } from "../child.js";
import type { Hello } from "../protocol.js";
import type { NetworkPolicy } from "../provider.js";
import { COMPUTER_LABEL, DEADLINE_LABEL, DESTROY_SLACK_MS, IMAGE_LABEL } from "./constants.js";
import { networkOf } from "./readback.js";
import type { Sandbox } from "./schemas.js";

export interface SandboxExpected {
  /** The image create was asked for ("default": any snapshot Daytona names). */
  image: string;
  /** Whether the image label must read image (absent on a computer made before create wrote it). */
  imageLabel: boolean;
  labels: Record<string, string>;
  deadline: string;
  network: NetworkPolicy;
  autoStopInterval: number;
  autoDeleteInterval: number;
  /** The provider's class: container or linux-vm; undefined takes whichever Daytona reports. */
  sandboxClass: string | undefined;
}

const shown = (v: unknown) => (v === undefined || v === null ? "nothing" : JSON.stringify(v));

export function sandboxDrift(sandbox: Sandbox, want: SandboxExpected): string[] {
  const out: string[] = [];
  if (want.image !== "default" && sandbox.snapshot !== want.image) out.push(`the snapshot reads ${shown(sandbox.snapshot)}, not ${JSON.stringify(want.image)}`);
  const network = networkOf(sandbox);
  if (JSON.stringify(network) !== JSON.stringify(want.network)) {
    out.push(`the network reads ${typeof network === "string" ? network : "other" in network ? `other (${network.other})` : `an allowlist (${network.allow.join(", ")})`}, not ${JSON.stringify(want.network)}`);
  }
  const labels = sandbox.labels;
  if (labels[COMPUTER_LABEL] !== "1") out.push(`the label ${COMPUTER_LABEL} reads ${shown(labels[COMPUTER_LABEL])}, not "1"`);
  if (labels[DEADLINE_LABEL] !== want.deadline) out.push(`the label ${DEADLINE_LABEL} reads ${shown(labels[DEADLINE_LABEL])}, not ${want.deadline}`);
  if (want.imageLabel && labels[IMAGE_LABEL] !== want.image) out.push(`the label ${IMAGE_LABEL} reads ${shown(labels[IMAGE_LABEL])}, not ${JSON.stringify(want.image)}`);
  for (const [key, value] of Object.entries(want.labels)) {
    if (labels[key] !== value) out.push(`the label ${key} reads ${shown(labels[key])}, not ${JSON.stringify(value)}`);
  }
  if (sandbox.autoStopInterval !== want.autoStopInterval) out.push(`autoStopInterval reads ${shown(sandbox.autoStopInterval)}, not ${want.autoStopInterval}`);
  if (sandbox.autoDeleteInterval !== want.autoDeleteInterval) out.push(`autoDeleteInterval reads ${shown(sandbox.autoDeleteInterval)}, not ${want.autoDeleteInterval}`);
  const destroyAt = sandbox.autoDestroyAt ? Date.parse(sandbox.autoDestroyAt) : NaN;
  const latest = Date.parse(want.deadline) + DESTROY_SLACK_MS;
  if (Number.isNaN(destroyAt)) out.push(`autoDestroyAt reads ${shown(sandbox.autoDestroyAt)}: the sandbox has no end of its own`);
  else if (!(destroyAt <= latest)) out.push(`autoDestroyAt reads ${sandbox.autoDestroyAt}, past the deadline ${want.deadline} and the TTL's minute and 2 minutes of clock skew`);
  if (want.sandboxClass !== undefined && sandbox.sandboxClass !== want.sandboxClass) out.push(`the class reads ${shown(sandbox.sandboxClass)}, not ${want.sandboxClass}`);
  if (sandbox.public !== false) out.push("the sandbox is public");
  if (sandbox.kvm === true) out.push("the sandbox has kvm");
  if (sandbox.gpu !== 0) out.push(`the sandbox has ${sandbox.gpu} GPUs`);
  if ((sandbox.volumes ?? []).length > 0) out.push(`the sandbox has ${sandbox.volumes!.length} volumes`);
  if (sandbox.linkedSandboxId) out.push("the sandbox is linked to another");
  return out;
}

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
    const run = await client.call("exec.run", { argv: ["sh", "-c", `cat /proc/self/status; echo "sha256 $(sha256sum ${CHILD_DAEMON})"`], timeoutMs: 20_000 }, { signal });
    const text = Buffer.from(run.stdout, "base64").toString("utf8");
    if (run.exitCode !== 0) out.push(`reading the daemon's programs from inside exited ${run.exitCode ?? run.signal}`);
    else out.push(...statusDrift(text, want.user));
    const sha = /^sha256 ([0-9a-f]{64})/m.exec(text)?.[1];
    if (sha !== want.sha256) out.push(`${CHILD_DAEMON} reads sha256 ${sha ?? "nothing"}, not the provider's daemon's ${want.sha256}`);
    const cwd = await client.call("files.stat", { path: "/proc/self/cwd" }, { signal });
    if (cwd.target !== CHILD_HOME) out.push(`the daemon works in ${cwd.target ?? "an unknown directory"}, not ${CHILD_HOME}`);
    const exe = await client.call("files.stat", { path: "/proc/self/exe" }, { signal });
    if (exe.target !== CHILD_DAEMON) out.push(`the daemon runs ${exe.target ?? "an unknown binary"}, not ${CHILD_DAEMON}`);
  } catch (error) {
    if (error instanceof CallError && error.kind === "aborted") throw error;
    out.push(`the daemon could not be read from inside: ${(error as Error).message}`);
  }
  return out;
}
