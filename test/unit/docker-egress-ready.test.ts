// The wait for an egress proxy's ready line, against an engine stand-in on a unix socket: a
// proxy that ended is reported in its own last words even when the logs read before its exit
// held none yet (the race a whole CI run met), and its parts are removed: the words say what is
// left for whom it was made (a computer's, a proxy alone, a proxy made again on its volume).
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { DockerEngine } from "../../src/docker/api.js";
import { type EgressFor, makeEgress } from "../../src/docker/egress.js";

const dir = mkdtempSync(path.join(tmpdir(), "agentrun-egress-ready-"));
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

/** One frame of Docker's multiplexed stream on stderr. */
const stderrFrame = (text: string) => {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = 2;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};

const LAST_WORDS =
  "the egress proxy computer-x-egress ended before it was ready (exit code 1: computerd egress: its deadline 2026-01-01T00:00:00Z has passed); ";

it.each([
  [undefined, "the proxy, its volume and the computer were removed, and the computer ran nothing", true],
  ["proxy", "the proxy and its volume were removed, and nothing is left", true],
  ["again", "the proxy was removed, and its computers reach nothing until it is made again", false],
] as const)(
  "names the proxy's last words when they reach its logs only after the read that preceded its exit (made for %s)",
  async (madeFor, left, volumeGone) => {
    const socket = path.join(dir, `engine-${madeFor ?? "computer"}.sock`);
    const asked: string[] = [];
    let logReads = 0;
    const server = createServer((request, response) => {
      const url = request.url ?? "";
      asked.push(`${request.method} ${url.replace(/\?.*/, "")}`);
      const json = (status: number, body: unknown) => response.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      if (url === "/_ping") return void response.writeHead(200, { "API-Version": "1.47" }).end("OK");
      if (url.startsWith("/v1.47/containers/create")) return void json(201, { Id: "p1" });
      if (url.startsWith("/v1.47/containers/p1/start")) return void response.writeHead(204).end();
      if (url.startsWith("/v1.47/containers/p1/logs")) {
        logReads += 1;
        return void response
          .writeHead(200)
          .end(logReads === 1 ? Buffer.alloc(0) : stderrFrame("computerd egress: its deadline 2026-01-01T00:00:00Z has passed\n"));
      }
      if (url.startsWith("/v1.47/containers/p1/json")) return void json(200, { Id: "p1", State: { Running: false, ExitCode: 1 } });
      if (url.startsWith("/v1.47/containers/json")) return void json(200, [{ Id: "p1" }]);
      if (url.startsWith("/v1.47/volumes?")) return void json(200, { Volumes: [{ Name: "computer-x-egress" }] });
      if (request.method === "DELETE") return void response.writeHead(204).end();
      json(404, { message: `not in this stand-in: ${url}` });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    const engine = new DockerEngine(`unix://${socket}`);
    const plan = {
      key: "computer-x",
      uid: 1000,
      gid: 1000,
      deadline: "2026-01-01T00:00:00Z",
      allow: ["192.0.2.1/32"],
      hostAddresses: [],
      hint: "",
      labels: {},
      image: "agentrun-egress:test",
    };
    const made = await makeEgress(engine, plan, { readyMs: 5_000, ...(madeFor ? { madeFor: madeFor as EgressFor } : {}) });
    await engine.close();
    expect(made).toEqual({
      ok: false,
      error: {
        code: "failed",
        message: `${LAST_WORDS}${left}`,
      },
    });
    expect(asked).toContain("DELETE /v1.47/containers/p1");
    expect(asked.includes("DELETE /v1.47/volumes/computer-x-egress")).toBe(volumeGone);
  },
);
