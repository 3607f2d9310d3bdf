// An HTTPS server on 127.0.0.1 with a certificate of a CA of its own (engine-certs.ts), for unit
// tests of the Kubernetes API client, which speaks https alone: its CA, its address, and the
// TLS connections it took.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { engineCerts } from "./engine-certs.js";

export interface TlsStandIn {
  server: Server;
  /** https://127.0.0.1:<port> */
  url: string;
  ca: string;
  /** TLS connections taken so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function tlsStandIn(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<TlsStandIn> {
  const dir = await mkdtemp(path.join(tmpdir(), "agentrun-tls-"));
  const certs = await engineCerts(dir);
  const [ca, cert, key] = await Promise.all([certs.server.ca, certs.server.cert, certs.server.key].map((f) => readFile(f, "utf8")));
  const server = createServer({ cert, key }, handle);
  let connections = 0;
  server.on("secureConnection", () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    server,
    url: `https://127.0.0.1:${port}`,
    ca: ca!,
    connections: () => connections,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
