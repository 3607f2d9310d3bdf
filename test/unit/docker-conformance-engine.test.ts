// The conformance CLI's Docker module runs on the engine the docker CLI would use here, as the
// library's resolver finds it (DOCKER_HOST and its TLS, else the context): the CLI builds it with
// createProvider(undefined, run), so the process's own environment decides, as docker's does.
import { afterEach, describe, expect, it } from "vitest";
import { createDriftedProvider, createProvider } from "../../src/docker/conformance/module.js";

const saved = { DOCKER_HOST: process.env.DOCKER_HOST, COMPUTER_DOCKER_DAEMON: process.env.COMPUTER_DOCKER_DAEMON };
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("Docker's conformance module", () => {
  it("makes its provider and drifted twin on the engine DOCKER_HOST names, as the CLI calls them", async () => {
    process.env.DOCKER_HOST = "unix:///run/agentrun-elsewhere/docker.sock";
    process.env.COMPUTER_DOCKER_DAEMON = "/nonexistent/computerd";
    for (const provider of [await createProvider(), await createDriftedProvider()]) {
      expect(provider.engine.address).toMatchObject({ address: "unix:///run/agentrun-elsewhere/docker.sock", from: "DOCKER_HOST" });
      await provider.engine.close();
    }
  });

  it("refuses a DOCKER_HOST over plain TCP in the resolver's words", async () => {
    await expect(
      createProvider({ daemonPath: "/nonexistent/computerd" }, {}, { env: { DOCKER_HOST: "tcp://127.0.0.1:2375" }, home: "/nonexistent" }),
    ).rejects.toThrow(/DOCKER_HOST names an engine over TCP with no TLS material: .*root on its host/);
  });

  it("follows the docker CLI's current context when nothing names another", async () => {
    const provider = await createProvider({ daemonPath: "/nonexistent/computerd" }, {}, { env: {}, home: "/nonexistent" });
    expect(provider.engine.address).toMatchObject({ address: "unix:///var/run/docker.sock", from: "the default engine" });
  });
});
