// The connections to an engine, by how it is reached: its unix socket; TCP with TLS, the engine's
// certificate verified against the CA (and its name or address) and this client's certificate
// sent; or a new ssh for each connection (ssh-dial.ts). Every call above is the same HTTP.
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { Pool } from "undici";
import type { EngineAddress } from "./engine.js";
import { dialSsh } from "./ssh-dial.js";

/**
 * The most connections over ssh at once: sshd drops new logins past its MaxStartups (10 by
 * default) while they authenticate, so a fleet's creates wait for a connection instead.
 */
export const SSH_CONNECTIONS = 8;

export type PoolOptions = Pick<Pool.Options, "maxResponseSize" | "keepAliveTimeout">;

/** A pool of kept connections to the engine; TLS files are read here, so an unreadable one fails the first call. */
export function connectionsTo(engine: EngineAddress, options: PoolOptions): Pool {
  if (engine.kind === "tcp") {
    const host = engine.host.includes(":") ? `[${engine.host}]` : engine.host;
    const { ca, cert, key } = engine.tls;
    return new Pool(`https://${host}:${engine.port}`, {
      ...options,
      connect: { ca: readFileSync(ca), cert: readFileSync(cert), key: readFileSync(key), rejectUnauthorized: true },
    });
  }
  if (engine.kind === "ssh") {
    return new Pool("http://docker", {
      ...options,
      connections: SSH_CONNECTIONS,
      // undici asks of a socket only what a Duplex with ref and unref has; its connector answers
      // later, as a socket's does (called back at once, the pool never sends).
      connect: (_options, callback) => {
        const socket = dialSsh(engine) as unknown as Socket;
        process.nextTick(() => callback(null, socket));
      },
    });
  }
  return new Pool("http://docker", { ...options, socketPath: engine.socket });
}
