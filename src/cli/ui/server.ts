// The page's server: HTTP on this machine's loopback alone, at the port asked for (0: any free
// one). Every request is held to the secret first (a refusal is 403 and one word); the page, its
// two assets, then the API. close() ends every connection, event streams too.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ASSETS, PAGE } from "./assets.js";
import { admit, SECRET_PARAM, secretCookie } from "./secret.js";

/** The only address the server binds. */
export const LOOPBACK = "127.0.0.1";

export type Handler = (request: IncomingMessage, response: ServerResponse, path: string) => Promise<boolean>;

export interface Served {
  /** The URL to open, the secret in it. */
  url: string;
  port: number;
  /** Ends every connection and the listener. */
  close(): Promise<void>;
}

const HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'self'; img-src 'self' blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
};

function refuse(response: ServerResponse, status: number, word: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...HEADERS });
  response.end(word);
}

/** Starts the server; the API answers what the page and its assets do not. */
export function serve(options: { port: number; secret: string; api: Handler; onError?: (error: unknown) => void }): Promise<Served> {
  const { secret, api } = options;
  let port = 0;
  const server: Server = createServer((request, response) => {
    const admitted = admit({ url: request.url ?? "/", headers: request.headers }, secret, port);
    if (!admitted.ok) return refuse(response, 403, "forbidden");
    const url = new URL(request.url ?? "/", `http://${LOOPBACK}:${port}`);
    const path = url.pathname;
    if (request.method === "GET" && path === "/") {
      // The secret in the URL is taken once, into a cookie the page's own requests carry.
      if (!url.searchParams.has(SECRET_PARAM) && admitted.by !== "cookie") return refuse(response, 403, "forbidden");
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "set-cookie": secretCookie(port, secret), ...HEADERS });
      return void response.end(PAGE);
    }
    const asset = request.method === "GET" ? ASSETS[path] : undefined;
    if (asset) {
      response.writeHead(200, { "content-type": asset.type, ...HEADERS });
      return void response.end(asset.body);
    }
    api(request, response, path).then(
      (answered) => {
        if (!answered) refuse(response, 404, "not found");
      },
      (error: unknown) => {
        options.onError?.(error);
        if (!response.headersSent) refuse(response, 500, "failed");
        else response.end();
      },
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, LOOPBACK, () => {
      server.off("error", reject);
      port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${LOOPBACK}:${port}/?${SECRET_PARAM}=${secret}`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
