// One call to the Engine API, against an engine stand-in on a unix socket: the API version is the
// engine's, capped; a call past its bound is timedOut and one the caller aborts is aborted, each
// ended at once; Docker's own message comes back on a failure; no socket is unreachable.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DockerEngine, engineFailure } from "../../src/docker/api.js";

const dir = mkdtempSync(path.join(tmpdir(), "agentrun-api-"));
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

/** An engine that speaks apiVersion and answers each path as told; a path it is not told hangs. */
async function standIn(name: string, apiVersion: string, answers: Record<string, [number, unknown]>): Promise<{ engine: DockerEngine; asked: string[] }> {
  const socket = path.join(dir, `${name}.sock`);
  const asked: string[] = [];
  const server = createServer((request, response) => {
    asked.push(`${request.method} ${request.url}`);
    if (request.url === "/_ping") return void response.writeHead(200, { "API-Version": apiVersion }).end("OK");
    const answer = answers[request.url ?? ""];
    if (answer) response.writeHead(answer[0], { "Content-Type": "application/json" }).end(JSON.stringify(answer[1]));
  });
  server.keepAliveTimeout = 100;
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { engine: new DockerEngine(`unix://${socket}`), asked };
}

describe("DockerEngine", () => {
  it("speaks the engine's API version, capped at 1.47, and reads Docker's message on a failure", async () => {
    const { engine, asked } = await standIn("newer", "1.51", { "/v1.47/containers/x/json": [404, { message: "No such container: x" }] });
    const reply = await engine.call("GET", "/containers/x/json");
    expect(reply).toMatchObject({ ok: false, status: 404, message: "No such container: x", aborted: false, timedOut: false, unreachable: false });
    expect(asked).toEqual(["GET /_ping", "GET /v1.47/containers/x/json"]);
    // The words name Docker, so an up that failed far from this call still says which part refused.
    expect(engineFailure("reading x", reply, engine.address)).toEqual({
      code: "failed",
      message: "reading x failed: the Docker engine answered HTTP 404: No such container: x",
    });
    await engine.close();
  });

  it("ends a call past its bound as timedOut, and one its caller aborts as aborted, at once", async () => {
    const { engine } = await standIn("hangs", "1.41", {});
    let t0 = Date.now();
    const late = await engine.call("GET", "/info", { timeoutMs: 200 });
    expect(late).toMatchObject({ ok: false, timedOut: true });
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(engineFailure("reading the host", late, engine.address).message).toBe("reading the host did not finish in time; is the Docker host overloaded?");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    t0 = Date.now();
    expect(await engine.call("GET", "/info", { signal: controller.signal })).toMatchObject({ ok: false, aborted: true });
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(await engine.call("GET", "/info", { signal: AbortSignal.abort() })).toMatchObject({ ok: false, aborted: true });
    await engine.close();
  });

  it("is unreachable, in words naming the socket and where it came from, when nothing listens", async () => {
    const engine = new DockerEngine(`unix://${path.join(dir, "none.sock")}`);
    const reply = await engine.call("GET", "/info");
    expect(reply).toMatchObject({ ok: false, unreachable: true });
    expect(engineFailure("reading the host", reply, engine.address)).toEqual({
      code: "unreachable",
      message: `reading the host: Docker is not answering at unix://${path.join(dir, "none.sock")} (from the engine option; is it running, and may this user reach it?)`,
    });
  });

  it("refuses plain TCP when it is made", () => {
    expect(() => new DockerEngine("tcp://127.0.0.1:2375")).toThrow(/names an engine over TCP with no TLS material: .*root on its host/);
  });
});
