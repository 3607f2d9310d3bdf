// An exec the API server refuses before its upgrade is refused in the server's words: a Status
// body's message, else the body's text beside the status (an HTTP 500 alone said nothing of why).
// An exec's frames, inside TLS, carry a zero mask (no byte masked in JavaScript).
import { createHash } from "node:crypto";
import type { Duplex } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { KubeApi } from "../../src/kubernetes/api.js";
import { openExec } from "../../src/kubernetes/exec.js";
import { tlsStandIn, type TlsStandIn } from "../support/tls-stand-in.js";

let standIn: TlsStandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

const exec = (api: KubeApi, stdin = false) =>
  openExec(api, { namespace: "default", pod: "computer-000000000000", container: "computer" }, ["true"], { stdin, ms: 5000 });

describe("an exec refused before its upgrade", () => {
  /** A server answering every request with status and body; the API of its address. */
  async function answering(status: number, body: string, type: string): Promise<KubeApi> {
    standIn = await tlsStandIn((_req, res) => res.writeHead(status, { "content-type": type }).end(body));
    return new KubeApi({ server: standIn.url, ca: standIn.ca });
  }

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

describe("an exec's frames", () => {
  it("carry a zero mask inside TLS, the channel byte and the bytes as written", async () => {
    let upgraded!: (socket: Duplex) => void;
    const socket = new Promise<Duplex>((resolve) => (upgraded = resolve));
    standIn = await tlsStandIn((_req, res) => res.writeHead(404).end());
    standIn.server.on("upgrade", (req, s: Duplex) => {
      const accept = createHash("sha1").update(`${req.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
      s.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n`,
      );
      upgraded(s);
    });
    const opened = await exec(new KubeApi({ server: standIn.url, ca: standIn.ca }), true);
    if (!opened.ok) throw new Error(opened.error.message);
    const server = await socket;
    const frame = new Promise<Buffer>((resolve) => server.once("data", resolve));
    opened.value.stdin.write(Buffer.from("hello"));
    const bytes = await frame;
    opened.value.close();
    // FIN + binary; the mask bit and a 6-byte payload; a mask key of four zero bytes; then the
    // payload as is: the stdin channel (0) and the bytes.
    expect([...bytes.subarray(0, 6)]).toEqual([0x82, 0x80 | 6, 0, 0, 0, 0]);
    expect([...bytes.subarray(6)]).toEqual([0, ...Buffer.from("hello")]);
  });
});
