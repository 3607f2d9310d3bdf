// What the Modal tests on its fake share: a Docker-backed fake per test, carrying a run label only
// that test's containers carry, removed by it after the test, pass or fail; and the provider on it.
import { randomBytes } from "node:crypto";
import { afterEach, expect } from "vitest";
import { create } from "../../src/modal/create.js";
import type { ModalProvider } from "../../src/modal/provider.js";
import type { ComputerSpec } from "../../src/contract/provider.js";
import { type FakeOptions, ModalDockerFake } from "./fake-modal-docker.js";
import { toolchain } from "./docker-helpers.js";

export const IMAGE = toolchain.baseImage;
export const DAEMON = toolchain.daemon.amd64;

export function spec(extra: Partial<ComputerSpec> = {}): ComputerSpec {
  return { image: IMAGE, lifetimeMs: 600_000, network: "none", ...extra };
}

/** Fakes made in a test, each removed by its run label after it; a test that left one running fails. */
export function fakes(): (options?: Omit<FakeOptions, "run">) => { fake: ModalDockerFake; provider: ModalProvider } {
  const made: ModalDockerFake[] = [];
  afterEach(async () => {
    const running = (await Promise.all(made.map((f) => f.running()))).flat();
    await Promise.all(made.map((f) => f.remove()));
    made.length = 0;
    expect(running, "sandboxes left running after the test").toEqual([]);
  });
  return (options = {}) => {
    const fake = new ModalDockerFake({ run: `test-${randomBytes(6).toString("hex")}`, ...options });
    made.push(fake);
    return { fake, provider: create({ sdk: fake, app: "agentrun-test", daemonPath: DAEMON }) };
  };
}
