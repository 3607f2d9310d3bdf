// An exec the API server refuses before its upgrade is refused in the server's words: a Status
// body's message, else the body's text beside the status (an HTTP 500 alone said nothing of why).
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { KubeApi } from "../../src/kubernetes/api.js";
import { openExec } from "../../src/kubernetes/exec.js";

describe("an exec refused before its upgrade", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** A loopback server answering every request with status and body; the API of its address. */
  async function answering(status: number, body: string, type: string): Promise<KubeApi> {
    server = createServer((_req, res) => res.writeHead(status, { "content-type": type }).end(body));
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    return new KubeApi({ server: `http://127.0.0.1:${port}` });
  }
  const exec = (api: KubeApi) =>
    openExec(api, { namespace: "default", pod: "computer-000000000000", container: "computer" }, ["true"], { stdin: false, ms: 5000 });

  it("says the body's text beside the status when it is not a Status", async () => {
    const api = await answering(500, "container not running (3f2a)\n", "text/plain");
    expect(await exec(api)).toEqual({
      ok: false,
      error: { code: "failed", message: "exec of true in computer-000000000000: HTTP 500: container not running (3f2a)" },
    });
  });

  it("says a Status body's message", async () => {
    const api = await answering(404, JSON.stringify({ kind: "Status", message: 'pods "computer-000000000000" not found' }), "application/json");
    expect(await exec(api)).toMatchObject({
      ok: false,
      error: { code: "not_found", message: 'exec of true in computer-000000000000: pods "computer-000000000000" not found' },
    });
  });
});
