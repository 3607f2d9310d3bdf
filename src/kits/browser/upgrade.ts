// A client's CDP WebSocket upgrade as it is sent on to Chromium: the browser target's own path
// and an IP literal for Host (Chromium refuses another host name), the WebSocket headers kept.
import type { IncomingMessage } from "node:http";

const KEPT = ["sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions", "sec-websocket-protocol"];

/** The upgrade's head, to its blank line, for Chromium at host (ip:port) on its browser target's path. */
export function upgradeHead(request: Pick<IncomingMessage, "headers">, path: string, host: string): string {
  const lines = [`GET ${path} HTTP/1.1`, `Host: ${host}`, "Connection: Upgrade", "Upgrade: websocket"];
  for (const name of KEPT) {
    const value = request.headers[name];
    if (typeof value === "string") lines.push(`${name}: ${value}`);
  }
  return `${lines.join("\r\n")}\r\n\r\n`;
}
