// A Docker engine stand-in for tests that need no engine: a unix socket in a folder of its own that
// answers /_ping as Engine 20.10 (API 1.41) and the calls a test names, 500 to anything else, and
// logs every call it gets ("GET /v1.41/info"). recordedInfo() is this machine's docker info.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

export type Answer = { status: number; body: unknown };

export interface EngineStandIn {
  /** The engine's address, as agentrun:docker.engine and DockerProviderOptions take it. */
  engine: string;
  /** Every call, as "METHOD /path?query". */
  calls: string[];
  /** The connections a client holds open to it now. */
  open(): number;
  close(): Promise<void>;
}

/** docker info recorded from this machine's engine (20.10.24). */
export function recordedInfo(): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL("../fixtures/docker/info-20.10.24.json", import.meta.url), "utf8"));
}

/** A stand-in answering each "METHOD /path" of `answers` (a function of the call, or one answer). */
export async function engineStandIn(answers: Record<string, Answer> | ((call: string) => Answer | undefined)): Promise<EngineStandIn> {
  const dir = mkdtempSync(path.join(tmpdir(), "agentrun-engine-"));
  const socket = path.join(dir, "engine.sock");
  const calls: string[] = [];
  const answer = typeof answers === "function" ? answers : (call: string) => answers[call];
  const server = createServer((request, response) => {
    const call = `${request.method} ${request.url}`;
    calls.push(call);
    if (call === "GET /_ping") {
      response.writeHead(200, { "API-Version": "1.41" }).end("OK");
      return;
    }
    const { status, body } = answer(call) ?? { status: 500, body: { message: "not answered here" } };
    response.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
  });
  let open = 0;
  server.on("connection", (connection) => {
    open += 1;
    connection.once("close", () => (open -= 1));
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    engine: `unix://${socket}`,
    calls,
    open: () => open,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
