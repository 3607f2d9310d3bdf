// A browser's CDP served to the caller through the daemon's own connection: a WebSocket URL on
// this machine's loopback, with a secret in its path made for this connection alone and never
// stored, served for as long as the connection lives. Each WebSocket a driver opens is one socat
// in the computer (process.start, its stdin a pipe) joined to Chromium's port on the computer's
// own loopback; the upgrade goes on to Chromium with its browser target's path, then bytes flow
// both ways untouched (process.write one way, process.read the other). Where the vendor can reach
// a socket in the computer from this machine (Docker's engine here: CdpDial), each WebSocket is a
// stream of its own to a relay there instead, with no daemon call a message. Nothing is published
// on the host and nothing listens past this machine's loopback.
import { randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { ComputerClient } from "../../daemon/client.js";
import { MAX_CHUNK_BYTES, MAX_READ_WAIT_MS } from "../../daemon/protocol.js";
import { CDP_PORT, cdpPath } from "./chromium.js";
import { upgradeHead } from "./upgrade.js";
import { secretUrl } from "./url-store.js";

/** The served URL and its end. */
export interface CdpServed {
  /** ws://127.0.0.1:<port>/devtools/browser/<secret>: a secret, never logged. */
  url: string;
  /** Served by this process: it answers while the connection is open. */
  servedHere: true;
  /** Stops listening and ends every WebSocket it carries. */
  close(): Promise<void>;
}

const PREFIX = "/devtools/browser/";

/**
 * A stream to Chromium's CDP port from this machine that carries no daemon call (a relay in the
 * computer the vendor reaches by a socket); undefined when there is none, and the daemon carries it.
 */
export interface CdpDial {
  dial(signal: AbortSignal): Promise<Duplex | undefined>;
  /** The relay ended with the connection. */
  close(): Promise<void>;
}

/** How long a dial may take before the WebSocket goes through the daemon instead. */
const DIAL_MS = 5_000;

/** Serves the browser's CDP on this machine's loopback through client (or the direct stream a dial gives), until close(). */
export async function serveCdp(client: ComputerClient, direct?: CdpDial): Promise<CdpServed> {
  const secret = randomBytes(24).toString("hex");
  const want = Buffer.from(`${PREFIX}${secret}`);
  const open = new Set<() => void>();
  const server = http.createServer((_request, response) => {
    // Only the WebSocket: /json and the rest are Chromium's HTTP, which a driver given a ws:// URL does not need.
    response.writeHead(404).end();
  });
  server.on("upgrade", (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const got = Buffer.from(request.url ?? "");
    if (got.length !== want.length || !timingSafeEqual(got, want)) {
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
      return;
    }
    void (direct ? pipeDirect(client, direct, request, socket, head, open) : pipeThrough(client, request, socket, head, open));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    await new Promise<void>((resolve) => {
      for (const end of open) end();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await direct?.close();
  };
  return Object.assign(secretUrl(`ws://127.0.0.1:${port}${PREFIX}${secret}`), { servedHere: true as const, close });
}

/**
 * One WebSocket piped to Chromium over the direct stream: the upgrade sent on with the browser
 * target's path, then bytes both ways untouched; either side's end ends both. No stream (the relay
 * is not there, or this machine cannot reach it) is the daemon's way instead.
 */
async function pipeDirect(
  client: ComputerClient,
  direct: CdpDial,
  request: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  open: Set<() => void>,
): Promise<void> {
  const [asked, stream] = await Promise.allSettled([cdpPath(client), direct.dial(AbortSignal.timeout(DIAL_MS))]);
  const to = stream.status === "fulfilled" ? stream.value : undefined;
  const path = asked.status === "fulfilled" ? asked.value : undefined;
  if (!to || !path) {
    to?.destroy();
    return pipeThrough(client, request, socket, head, open);
  }
  const end = () => {
    open.delete(end);
    socket.destroy();
    to.destroy();
  };
  open.add(end);
  for (const side of [socket, to]) {
    side.on("error", end);
    side.on("close", end);
  }
  to.write(Buffer.concat([Buffer.from(upgradeHead(request, path, `127.0.0.1:${CDP_PORT}`)), head]));
  socket.pipe(to);
  to.pipe(socket);
}

/** One WebSocket piped to Chromium through a socat the daemon runs; either side's end ends both. */
async function pipeThrough(client: ComputerClient, request: http.IncomingMessage, socket: Duplex, head: Buffer, open: Set<() => void>): Promise<void> {
  let id: string | undefined;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    open.delete(end);
    socket.destroy();
    if (id !== undefined) void client.call("process.signal", { id, signal: "KILL" }).catch(() => undefined);
  };
  open.add(end);
  socket.on("error", end);
  socket.on("close", end);
  try {
    // The target's path and the socat at once: one round trip to the computer, not two (the
    // socat is ended, by its id, whichever fails).
    const [asked, started] = await Promise.allSettled([
      cdpPath(client),
      client.call("process.start", { argv: ["socat", "STDIO", `TCP:127.0.0.1:${CDP_PORT}`], stdin: true }),
    ]);
    if (started.status === "fulfilled") id = started.value.id;
    const path = asked.status === "fulfilled" && started.status === "fulfilled" ? asked.value : undefined;
    if (!path || id === undefined) {
      socket.end("HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n");
      return end();
    }
    if (ended) return end();
    const at = id;
    // In order: each write waits for the one before.
    let writing = write(client, at, Buffer.concat([Buffer.from(upgradeHead(request, path, `127.0.0.1:${CDP_PORT}`)), head]));
    socket.on("data", (data: Buffer) => {
      writing = writing.then(() => write(client, at, data)).catch(() => end());
    });
    let offset = 0;
    while (!ended) {
      const read = await client.call("process.read", { id: at, stream: "stdout", offset, maxBytes: MAX_CHUNK_BYTES, waitMs: MAX_READ_WAIT_MS });
      offset = read.nextOffset;
      if (read.data.length > 0) socket.write(Buffer.from(read.data, "base64"));
      if (read.exited && read.data.length === 0) break;
    }
  } catch {
    // The connection, the process or the socket ended: the WebSocket ends with it.
  }
  end();
}

function write(client: ComputerClient, id: string, data: Buffer): Promise<unknown> {
  return client.call("process.write", { id, data: data.toString("base64") });
}
