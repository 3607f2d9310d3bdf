// What the E2B wire tests share: a loopback server of E2B's API and envd per test (its sandboxes
// and snapshots carrying a run label only that test's do, removed by it with the run's network
// after the test, pass or fail), and the provider on the real e2b SDK pointed at it with the server's key.
import { randomBytes } from "node:crypto";
import { afterEach, beforeAll, expect } from "vitest";
import type { E2BOptions } from "../../src/e2b/create.js";
import { create } from "../../src/e2b/create.js";
import type { E2BProvider } from "../../src/e2b/provider.js";
import { E2BWireServer, newApiKey } from "./e2b-wire/server.js";
import { toolchain } from "./docker-helpers.js";
import { standinBinary } from "./standin.js";

export const DAEMON = toolchain.daemon.amd64;

export interface Wire {
  server: E2BWireServer;
  fake: E2BWireServer["fake"];
  provider: E2BProvider;
  apiKey: string;
  /** Another provider on the same server, with these options over the test's. */
  providerWith(options: Partial<E2BOptions>): E2BProvider;
}

/** Servers made in a test, each stopped and its containers removed after it; a test that left one fails. */
export function wires(): () => Promise<Wire> {
  const made: E2BWireServer[] = [];
  beforeAll(async () => {
    await standinBinary();
  }, 120_000);
  afterEach(async () => {
    const left = (await Promise.all(made.map(async (s) => [...(await s.fake.containers()), ...(await s.fake.snapshots.images())]))).flat();
    await Promise.all(made.map(async (s) => (await s.stop(), await s.fake.remove())));
    made.length = 0;
    expect(left, "sandboxes and snapshots left after the test").toEqual([]);
  }, 60_000);
  return async () => {
    const apiKey = newApiKey();
    const server = await new E2BWireServer({ run: `wire-${randomBytes(6).toString("hex")}`, apiKey }).start();
    made.push(server);
    const providerWith = (options: Partial<E2BOptions>) =>
      create({ apiKey, apiUrl: server.apiUrl, sandboxUrl: server.sandboxUrl, daemonPath: DAEMON, ...options });
    return { server, fake: server.fake, provider: providerWith({}), apiKey, providerWith };
  };
}
