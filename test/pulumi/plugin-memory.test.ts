// The plugin's young generation stays at the size it has once the plugin has made its provider
// (provider/young-generation.ts; held once the bundle is loaded, main.ts), however much its steps
// allocate: the plugin as the engine starts it (provider/bin), configured and a Computer checked as
// a fleet's first step does, with a probe preloaded that allocates inside it on a signal and
// reports the space.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, expect, test } from "vitest";
import { checkComputer, startPlugin } from "../support/plugin-client.js";

const PROBE = fileURLToPath(new URL("../support/young-generation-probe.cjs", import.meta.url));
const MiB = 1024 * 1024;

let plugin: ChildProcess | undefined;
afterEach(() => {
  plugin?.kill("SIGKILL");
  plugin = undefined;
});

/** The first line a stream gives that matches, or a rejection when the plugin exits first. */
async function lineOf(stream: NodeJS.ReadableStream, pattern: RegExp): Promise<RegExpMatchArray> {
  const exited = once(plugin!, "exit").then(([code]) => Promise.reject(new Error(`the plugin exited (${code}) first`)));
  const found = (async () => {
    for await (const line of createInterface({ input: stream })) {
      const match = line.match(pattern);
      if (match) return match;
    }
    throw new Error(`the plugin's stream ended with no line like ${pattern}`);
  })();
  return Promise.race([found, exited]);
}

test("a plugin that allocates as a fleet does keeps its young generation at the size it had once its provider was made", async () => {
  const { child, client } = await startPlugin({ NODE_OPTIONS: `--require ${PROBE}` }, (child) => (plugin = child), "pipe");
  try {
    const checked = await checkComputer(client, { network: "none", lifetimeMs: 600000 });
    expect(checked.getFailuresList().map((f) => f.getReason())).toEqual([]);
  } finally {
    client.close();
  }
  child.kill("SIGUSR2");
  const [, before, after] = await lineOf(child.stderr!, /^young generation: (\d+) bytes, then (\d+) bytes$/);
  // Grown, V8 doubles it each time up to 32 MiB (without the hold: 8 MiB, then 32 MiB).
  expect(Number(before)).toBeLessThan(32 * MiB);
  expect(Number(after)).toBe(Number(before));
}, 30_000);
