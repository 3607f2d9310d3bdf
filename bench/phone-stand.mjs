// A phone for the phone benches: the phone harness's fake with its simulated Android phone,
// a real adb server of the bench's own, the provider's phone made and connected, and the adb
// CLI pointed at the same phone on the same server (the anchors' way in). Not a bench itself. All
// of it goes on remove(), once: on a stop (SIGINT, SIGTERM) too, whichever step was under way.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { adbCli, create } from "../dist/src/phone-harness/index.js";
import { startFakePhoneHarness } from "../dist/test/support/fake-phone-harness.js";
import { adbServer } from "../dist/test/support/phone-adb.js";
import { onStop } from "./stop.mjs";

const run = promisify(execFile);

export async function makePhone() {
  // Each step's promise as it starts: a stop awaits the one in flight and undoes what it made
  // (the adb server outlives its CLI, and this process, unless it is killed).
  const steps = {};
  const remove = onStop(async () => {
    const [fake, server, provider, made, connection] = await Promise.all(
      ["fake", "server", "provider", "made", "connection"].map((k) => Promise.resolve(steps[k]).catch(() => undefined)),
    );
    if (connection?.ok) await connection.value.close();
    if (made?.ok) await provider.release(made.value, "delete");
    await server?.stop();
    await fake?.close();
  });
  const fake = await (steps.fake = startFakePhoneHarness());
  const server = await (steps.server = adbServer());
  const provider = (steps.provider = create({ apiKey: fake.key, baseUrl: fake.url, adb: adbCli("adb", { port: server.port, env: server.env }) }));
  const made = await (steps.made = provider.create({ image: "android", lifetimeMs: 10 * 60_000, network: "open" }));
  if (!made.ok) {
    await remove();
    throw new Error(made.error.message);
  }
  const connection = await (steps.connection = provider.connect(made.value));
  if (!connection.ok) {
    await remove();
    throw new Error(connection.error.message);
  }
  const serial = `127.0.0.1:${fake.phone(made.value.id).port}`;
  return {
    client: connection.value.client,
    /** The adb CLI on the same server and phone: adb -P <port> -s <serial> <args>; its stdout. */
    adb: async (args) =>
      (await run("adb", ["-P", String(server.port), "-s", serial, ...args], { env: server.env, encoding: "buffer", maxBuffer: 64 << 20 })).stdout,
    remove,
  };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
