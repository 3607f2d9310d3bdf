// The connections to an engine, by how it is reached: its unix socket; TCP with TLS, the engine's
// certificate verified against the CA (and its name or address) and this client's certificate
// sent; or an ssh session for each connection, on one shared login (ssh-dial.ts). Every call
// above is the same HTTP.
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import type { Pool } from "undici";
import type { EngineAddress } from "./engine.js";
import { dialSsh, SshMux } from "./ssh-dial.js";
import { Pool as UndiciPool } from "./undici.js";

/**
 * The most kept connections over ssh at once: sessions on one login past sshd's MaxSessions (10
 * by default) log in alone, and sshd drops new logins past its MaxStartups (10) while they
 * authenticate, so a fleet's creates wait for a connection instead.
 */
export const SSH_CONNECTIONS = 8;

/** An engine's connections, and their end: the pool closed (and an ssh engine's shared login). */
export interface Connections {
  pool: Pool;
  close(): Promise<void>;
}

export type PoolOptions = Pick<Pool.Options, "maxResponseSize" | "keepAliveTimeout">;

/** A pool of kept connections to the engine; TLS files are read here, so an unreadable one fails the first call. */
export function connectionsTo(engine: EngineAddress, options: PoolOptions): Connections {
  if (engine.kind === "tcp") {
    const host = engine.host.includes(":") ? `[${engine.host}]` : engine.host;
    const { ca, cert, key } = engine.tls;
    const pool = new UndiciPool(`https://${host}:${engine.port}`, {
      ...options,
      connect: { ca: readFileSync(ca), cert: readFileSync(cert), key: readFileSync(key), rejectUnauthorized: true },
    });
    return { pool, close: () => pool.close() };
  }
  if (engine.kind === "ssh") {
    const mux = new SshMux(engine);
    const pool = new UndiciPool("http://docker", {
      ...options,
      connections: SSH_CONNECTIONS,
      // undici asks of a socket only what a Duplex with ref and unref has; its connector answers
      // later, as a socket's does (called back at once, the pool never sends).
      connect: (_options, callback) => {
        const socket = dialSsh(engine, mux) as unknown as Socket;
        process.nextTick(() => callback(null, socket));
      },
    });
    return {
      pool,
      close: async () => {
        await pool.close();
        await mux.close();
      },
    };
  }
  const pool = new UndiciPool("http://docker", { ...options, socketPath: engine.socket });
  return { pool, close: () => pool.close() };
}
