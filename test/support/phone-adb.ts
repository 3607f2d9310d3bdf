// A real adb server of a test's own (Debian's adb on a free port, from an environment with no
// ADB_* or ANDROID_* variable), and the adb CLI pointed at it.
import { execFile } from "node:child_process";
import { createServer } from "node:net";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface AdbServer {
  port: number;
  env: NodeJS.ProcessEnv;
  cli(args: string[]): Promise<string>;
  cliBytes(args: string[]): Promise<Buffer>;
  stop(): Promise<void>;
}

/** A port nothing listens on: one the system gave, then closed. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function adbServer(): Promise<AdbServer> {
  const port = await freePort();
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(ADB_|ANDROID_ADB_|ANDROID_SERIAL$)/.test(k)));
  const cliBytes = async (args: string[]) =>
    (await run("adb", ["-P", String(port), ...args], { env, encoding: "buffer", maxBuffer: 64 << 20, timeout: 30_000 })).stdout;
  const cli = async (args: string[]) => (await cliBytes(args)).toString();
  await cli(["start-server"]);
  return { port, env, cli, cliBytes, stop: async () => void (await cli(["kill-server"]).catch(() => undefined)) };
}
