// create and attach on a host that lacks an enforcement refuse before any other Docker call. The
// host is the recorded docker info of this machine with one requirement taken out, answered by an
// engine stand-in on a unix socket that answers /_ping and /info alone and logs every call it gets.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DockerProvider } from "../../src/docker/provider.js";

const dir = mkdtempSync(path.join(tmpdir(), "agentrun-host-"));
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});
const recorded = JSON.parse(readFileSync(new URL("../fixtures/docker/info-20.10.24.json", import.meta.url), "utf8")) as Record<string, unknown>;

async function engineAnswering(info: Record<string, unknown>, name: string): Promise<{ engine: string; calls: string[] }> {
  const socket = path.join(dir, `${name}.sock`);
  const calls: string[] = [];
  const server = createServer((request, response) => {
    calls.push(`${request.method} ${request.url}`);
    if (request.url === "/_ping") {
      response.writeHead(200, { "API-Version": "1.41" }).end("OK");
    } else if (request.url === "/v1.41/info") {
      response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(info));
    } else {
      response.writeHead(500, { "Content-Type": "application/json" }).end(JSON.stringify({ message: "not answered here" }));
    }
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { engine: `unix://${socket}`, calls };
}

const spec = { image: "agentrun-base:x", lifetimeMs: 60_000, network: "none" as const };
const ASKED = ["GET /_ping", "GET /v1.41/info"];

describe("a host that lacks an enforcement", () => {
  it.each([
    ["MemoryLimit", false, "this Docker host does not enforce memory limits, so a computer's memory size is only configuration"],
    ["SwapLimit", false, "this Docker host does not enforce swap limits, so a computer could swap past its memory size"],
    ["PidsLimit", false, "this Docker host does not enforce pids limits, so a computer's pids limit is only configuration"],
    ["CpuCfsQuota", false, "this Docker host does not enforce CPU quotas, so a computer's cpus are only configuration"],
    [
      "SecurityOptions",
      ["name=seccomp,profile=unconfined"],
      "this Docker host has no seccomp (its default seccomp profile is unconfined), so a computer could make any system call",
    ],
  ])("without %s: create and attach refuse in the spec's words after reading the host alone, and check says so after", async (field, value, words) => {
    const { engine, calls } = await engineAnswering({ ...recorded, [field]: value }, field);
    const docker = new DockerProvider({ daemonPath: "/nonexistent", engine });
    expect(docker.check(spec).ok).toBe(true);
    const made = await docker.create(spec);
    expect(made).toMatchObject({ ok: false, error: { code: "refused", field: "host" } });
    if (!made.ok) expect(made.error.message).toContain(words);
    const attached = await docker.attach({ id: "computer-0123456789ab" });
    expect(attached).toMatchObject({ ok: false, error: { code: "refused", field: "host" } });
    expect(calls).toEqual(ASKED);
    const checked = docker.check(spec);
    expect(checked).toMatchObject({ ok: false, error: { field: "host", message: words } });
    await docker.engine.close();
  });

  it("attach by labels is refused before the computers are listed", async () => {
    const { engine, calls } = await engineAnswering({ ...recorded, PidsLimit: false }, "labels");
    const docker = new DockerProvider({ daemonPath: "/nonexistent", engine });
    const attached = await docker.attach({ labels: { "agentrun.run": "r1" } });
    expect(attached).toMatchObject({ ok: false, error: { code: "refused", field: "host" } });
    if (!attached.ok) expect(attached.error.message).toContain("this Docker host does not enforce pids limits");
    expect(calls).toEqual(ASKED);
    await docker.engine.close();
  });

  it("with user ids remapped: a bind is refused before the container is made, a computer with no mount is not", async () => {
    const { engine, calls } = await engineAnswering({ ...recorded, SecurityOptions: ["name=seccomp,profile=default", "name=userns"] }, "userns");
    const docker = new DockerProvider({ daemonPath: "/nonexistent", engine });
    const made = await docker.create({ ...spec, mount: { kind: "bind", path: dir } });
    expect(made).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!made.ok)
      expect(made.error.message).toMatch(
        /^this Docker host remaps user ids \(userns-remap\), so the run folder's owner on the host is not the computer's user/,
      );
    expect(calls).toEqual(ASKED);
    await docker.engine.close();
  });

  it("with the volume option on Engine 20: refused in words before anything is made", async () => {
    const { engine, calls } = await engineAnswering(recorded, "volume");
    const docker = new DockerProvider({
      daemonPath: "/nonexistent",
      engine,
      daemonCache: path.join(dir, "cache"),
      volume: { name: "agentrun-data", root: dir },
    });
    const made = await docker.create(spec);
    expect(made).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!made.ok) expect(made.error.message).toMatch(/needs Docker Engine 26 or later; this Docker host runs Engine 20\.10\.24\+dfsg1/);
    expect(calls).toEqual(ASKED);
    await docker.engine.close();
  });

  it("a Docker that does not answer: unreachable, in words, and the read is tried again next time", async () => {
    const socket = path.join(dir, "nothing-here.sock");
    const docker = new DockerProvider({ daemonPath: "/nonexistent", engine: `unix://${socket}` });
    const made = await docker.create(spec);
    expect(made).toEqual({
      ok: false,
      error: {
        code: "unreachable",
        message: `reading the Docker host (GET /info): Docker is not answering at unix://${socket} (from the engine option; is it running, and may this user reach it?)`,
      },
    });
    expect((await docker.host()).ok).toBe(false);
  });

  it("an engine older than API 1.41 is refused in words", async () => {
    const socket = path.join(dir, "old.sock");
    const server = createServer((_request, response) => void response.writeHead(200, { "API-Version": "1.40" }).end("OK"));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    const docker = new DockerProvider({ daemonPath: "/nonexistent", engine: `unix://${socket}` });
    const made = await docker.create(spec);
    expect(made).toMatchObject({ ok: false, error: { code: "failed" } });
    if (!made.ok) expect(made.error.message).toContain("this Docker engine speaks API 1.40; the provider needs 1.41 (Engine 20.10) or later");
    await docker.engine.close();
  });
});
