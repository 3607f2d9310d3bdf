// A phone for the phone benches: the phone harness's fake with its simulated Android phone,
// a real adb server of the bench's own, the provider's phone made and connected, and the adb
// CLI pointed at the same phone on the same server (the anchors' way in). Not a bench itself.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { adbCli, create } from "../dist/src/phone-harness/index.js";
import { startFakePhoneHarness } from "../dist/test/support/fake-phone-harness.js";
import { adbServer } from "../dist/test/support/phone-adb.js";

const run = promisify(execFile);

export async function makePhone() {
  const fake = await startFakePhoneHarness();
  const server = await adbServer();
  const provider = create({ apiKey: fake.key, baseUrl: fake.url, adb: adbCli("adb", { port: server.port, env: server.env }) });
  const made = await provider.create({ image: "android", lifetimeMs: 10 * 60_000, network: "open" });
  if (!made.ok) throw new Error(made.error.message);
  const connection = await provider.connect(made.value);
  if (!connection.ok) throw new Error(connection.error.message);
  const serial = `127.0.0.1:${fake.phone(made.value.id).port}`;
  return {
    client: connection.value.client,
    /** The adb CLI on the same server and phone: adb -P <port> -s <serial> <args>; its stdout. */
    adb: async (args) =>
      (await run("adb", ["-P", String(server.port), "-s", serial, ...args], { env: server.env, encoding: "buffer", maxBuffer: 64 << 20 })).stdout,
    remove: async () => {
      await connection.value.close();
      await provider.release(made.value, "delete");
      await server.stop();
      await fake.close();
    },
  };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
