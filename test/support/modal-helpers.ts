// What the Modal tests share: a loopback server of Modal's protocol per test (its sandboxes
// carrying a run label only that test's do, removed by it after the test, pass or fail), and the
// provider on the real ModalClient pointed at it with the server's token.
import { randomBytes } from "node:crypto";
import { afterEach, expect } from "vitest";
import { create } from "../../src/modal/create.js";
import type { ModalProvider } from "../../src/modal/provider.js";
import type { ComputerSpec } from "../../src/contract/provider.js";
import type { FakeOptions } from "./fake-modal-docker.js";
import { ModalWireServer, newToken, type WireToken } from "./modal-wire/server.js";
import { toolchain } from "./docker-helpers.js";

export const IMAGE = toolchain.baseImage;
export const DAEMON = toolchain.daemon.amd64;

export function spec(extra: Partial<ComputerSpec> = {}): ComputerSpec {
  return { image: IMAGE, lifetimeMs: 600_000, network: "none", ...extra };
}

export interface Wire {
  server: ModalWireServer;
  fake: ModalWireServer["fake"];
  provider: ModalProvider;
  token: WireToken;
}

/** Servers made in a test, each stopped and its containers removed after it; a test that left one running fails. */
export function wires(): (options?: Omit<FakeOptions, "run" | "v2Ids">) => Promise<Wire> {
  const made: ModalWireServer[] = [];
  afterEach(async () => {
    const running = (await Promise.all(made.map((s) => s.fake.running()))).flat();
    await Promise.all(made.map(async (s) => (await s.stop(), await s.fake.remove())));
    made.length = 0;
    expect(running, "sandboxes left running after the test").toEqual([]);
  });
  return async (options = {}) => {
    const token = newToken();
    const server = await new ModalWireServer({ run: `wire-${randomBytes(6).toString("hex")}`, token, ...options }).start();
    made.push(server);
    const provider = create({ ...token, serverUrl: server.serverUrl, app: "agentrun-test", daemonPath: DAEMON });
    return { server, fake: server.fake, provider, token };
  };
}
