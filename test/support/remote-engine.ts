// An engine of another host as the remote-engine tests reach it: the test's own second dockerd
// listening on 127.0.0.1 with TLS (certificates made in dir), and the test's own sshd in front of
// it. dispose stops both and removes dir, pass or fail.
import { rm } from "node:fs/promises";
import path from "node:path";
import { engineCerts } from "./engine-certs.js";
import { type NewerEngine, type SecondEngine, startSecondEngine } from "./second-engine.js";
import { startSshd, type TestSshd } from "./sshd.js";

export interface RemoteEngine {
  engine: SecondEngine;
  sshd: TestSshd;
  /** A client folder the engine takes (ca.pem, cert.pem, key.pem). */
  client: string;
  dispose(): Promise<void>;
}

/** newer: the newer engine's folder (newerEngine()), where the engine's own costs are asked of Engine 28. */
export async function startRemoteEngine(dir: string, newer?: NewerEngine): Promise<RemoteEngine> {
  const certs = await engineCerts(path.join(dir, "certs"));
  const engine = await startSecondEngine({ tls: certs.server, ...(newer ? { newer } : {}) });
  let sshd: TestSshd;
  try {
    sshd = await startSshd(path.join(dir, "ssh"), engine.address);
  } catch (error) {
    await engine.dispose();
    throw error;
  }
  return {
    engine,
    sshd,
    client: certs.client,
    dispose: async () => {
      try {
        await sshd.stop();
      } finally {
        await engine.dispose();
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
