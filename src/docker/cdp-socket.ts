// A Docker browser's CDP reached from this machine with no daemon call a message: a relay in the
// computer (socat, started through the daemon as the computer's user, listening on a socket of its
// own /run/agentrun and joined to Chromium's port on the computer's loopback), connected to through
// the computer's root in /proc as init's socket is (local-socket.ts: proved the computer's own).
// Started at a connection's first WebSocket and ended with the connection. An engine on another
// host, a computer this process cannot enter, or a relay that does not listen is no way: the
// daemon carries the WebSocket, as it did before.
import { randomBytes } from "node:crypto";
import type { Duplex } from "node:stream";
import type { ComputerClient } from "../daemon/client.js";
import { CDP_PORT } from "../kits/browser/chromium.js";
import type { CdpDial } from "../kits/browser/daemon-cdp.js";
import type { DockerEngine } from "./api.js";
import { RUN_DIR } from "./constants.js";
import { inspect } from "./containers.js";
import { isRemote } from "./engine.js";
import { connectLocalSocket } from "./local-socket.js";
import type { Inspected } from "./readback.js";

/** The relay's argv: a socket only the computer's user may connect to, a stream to Chromium for each connection. */
export function relayArgv(socket: string): string[] {
  return ["socat", `UNIX-LISTEN:${socket},fork,mode=600,unlink-early`, `TCP:127.0.0.1:${CDP_PORT}`];
}

/** The direct way to the browser of container id, over client's daemon for the relay's start and end. */
export function cdpSocket(engine: DockerEngine, id: string, client: ComputerClient): CdpDial {
  const name = `cdp-${randomBytes(6).toString("hex")}.sock`;
  let relay: Promise<{ relayId: string; inspected: Inspected } | undefined> | undefined;
  // Once a dial finds no way, every later WebSocket of the connection takes the daemon's at once.
  let noWay = isRemote(engine.address);
  // Killed and waited for, so the relay is gone once the connection's close returns.
  const end = async (relayId: string) => {
    const killed = await client.call("process.signal", { id: relayId, signal: "KILL" }).then(
      () => true,
      () => false,
    );
    if (killed) await client.call("process.wait", { id: relayId, timeoutMs: 5_000 }).catch(() => undefined);
  };
  const start = async () => {
    const [started, inspected] = await Promise.all([
      client.call("process.start", { argv: relayArgv(`${RUN_DIR}/${name}`) }).catch(() => undefined),
      inspect(engine, id),
    ]);
    if (!started) return undefined;
    if (inspected.ok) return { relayId: started.id, inspected: inspected.value };
    await end(started.id);
    return undefined;
  };
  return {
    dial: async (signal: AbortSignal): Promise<Duplex | undefined> => {
      if (noWay) return undefined;
      const at = await (relay ??= start());
      const stream = at ? await connectLocalSocket(engine.address, at.inspected, name, signal) : undefined;
      noWay = stream === undefined;
      return stream;
    },
    close: async () => {
      const at = await relay;
      if (at) await end(at.relayId);
    },
  };
}
