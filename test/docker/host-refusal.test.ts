// create and attach on a host that lacks an enforcement refuse before any other Docker call. The
// host is the recorded docker info of this machine with one requirement taken out, answered by a
// docker CLI stand-in that answers `info` alone and logs every call it gets.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DockerProvider } from "../../src/docker/provider.js";

const dir = mkdtempSync(path.join(tmpdir(), "agentrun-host-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const recorded = JSON.parse(readFileSync(new URL("../fixtures/docker/info-20.10.24.json", import.meta.url), "utf8")) as Record<string, unknown>;

function dockerAnswering(info: Record<string, unknown>, name: string): { cli: string; calls: () => string[] } {
  const json = path.join(dir, `${name}.json`);
  const log = path.join(dir, `${name}.log`);
  writeFileSync(json, JSON.stringify(info));
  writeFileSync(log, "");
  const cli = path.join(dir, `${name}-docker`);
  writeFileSync(cli, `#!/bin/sh\necho "$1" >> '${log}'\nif [ "$1" = info ]; then cat '${json}'; exit 0; fi\necho "not answered here" >&2\nexit 99\n`);
  chmodSync(cli, 0o755);
  return { cli, calls: () => readFileSync(log, "utf8").split("\n").filter(Boolean) };
}

describe("a host that lacks an enforcement", () => {
  it.each([
    ["MemoryLimit", false, "this Docker host does not enforce memory limits, so a computer's memory size is only configuration"],
    ["SwapLimit", false, "this Docker host does not enforce swap limits, so a computer could swap past its memory size"],
    ["PidsLimit", false, "this Docker host does not enforce pids limits, so a computer's pids limit is only configuration"],
    ["CpuCfsQuota", false, "this Docker host does not enforce CPU quotas, so a computer's cpus are only configuration"],
    ["SecurityOptions", ["name=seccomp,profile=unconfined"], "this Docker host has no seccomp (its default seccomp profile is unconfined), so a computer could make any system call"],
  ])("without %s: create and attach refuse in the spec's words after docker info alone, and check says so after", async (field, value, words) => {
    const { cli, calls } = dockerAnswering({ ...recorded, [field]: value }, field);
    const docker = new DockerProvider({ daemonPath: "/nonexistent", docker: cli });
    const spec = { image: "agentrun-base:x", lifetimeMs: 60_000, network: "none" as const };
    expect(docker.check(spec).ok).toBe(true);
    const made = await docker.create(spec);
    expect(made).toMatchObject({ ok: false, error: { code: "refused", field: "host" } });
    if (!made.ok) expect(made.error.message).toContain(words);
    const attached = await docker.attach({ id: "computer-0123456789ab" });
    expect(attached).toMatchObject({ ok: false, error: { code: "refused", field: "host" } });
    expect(calls()).toEqual(["info"]);
    const checked = docker.check(spec);
    expect(checked).toMatchObject({ ok: false, error: { field: "host", message: words } });
  });

  it("with user ids remapped: a bind is refused before docker run, a computer with no mount is not", async () => {
    const { cli, calls } = dockerAnswering({ ...recorded, SecurityOptions: ["name=seccomp,profile=default", "name=userns"] }, "userns");
    const docker = new DockerProvider({ daemonPath: "/nonexistent", docker: cli });
    const made = await docker.create({ image: "agentrun-base:x", lifetimeMs: 60_000, network: "none", mount: { kind: "bind", path: dir } });
    expect(made).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!made.ok) expect(made.error.message).toMatch(/^this Docker host remaps user ids \(userns-remap\), so the run folder's owner on the host is not the computer's user/);
    expect(calls()).toEqual(["info"]);
  });

  it("with the volume option on Engine 20: refused in words before anything is made", async () => {
    const { cli, calls } = dockerAnswering(recorded, "volume");
    const docker = new DockerProvider({ daemonPath: "/nonexistent", docker: cli, daemonCache: path.join(dir, "cache"), volume: { name: "agentrun-data", root: dir } });
    const made = await docker.create({ image: "agentrun-base:x", lifetimeMs: 60_000, network: "none" });
    expect(made).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!made.ok) expect(made.error.message).toMatch(/needs Docker Engine 26 or later; this Docker host runs Engine 20\.10\.24\+dfsg1/);
    expect(calls()).toEqual(["info"]);
  });

  it("a Docker that does not answer: unreachable, in words, and the read is tried again next time", async () => {
    const cli = path.join(dir, "down-docker");
    writeFileSync(cli, "#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\nexit 1\n");
    chmodSync(cli, 0o755);
    const docker = new DockerProvider({ daemonPath: "/nonexistent", docker: cli });
    const made = await docker.create({ image: "agentrun-base:x", lifetimeMs: 60_000, network: "none" });
    expect(made).toEqual({ ok: false, error: { code: "unreachable", message: "docker info: Docker is not answering (is it running, and may this user reach it?)" } });
    expect((await docker.host()).ok).toBe(false);
  });
});
