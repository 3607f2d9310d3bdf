// Which Docker engine the plugin's computers go to: agentrun:docker's engine, else the one the
// docker CLI would use from the plugin's environment (DOCKER_HOST first), refused in words when
// it is plain TCP.
import { afterEach, describe, expect, test } from "vitest";
import { vendors } from "../../provider/vendors.js";
import type { DockerProvider } from "../../src/docker/provider.js";

const before = process.env.DOCKER_HOST;
afterEach(() => {
  if (before === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = before;
});

describe("the plugin's Docker engine", () => {
  test("is agentrun:docker's engine when it is set, whatever DOCKER_HOST says", async () => {
    process.env.DOCKER_HOST = "unix:///elsewhere.sock";
    const docker = await vendors({ docker: { engine: "unix:///run/mine.sock" } })("docker");
    expect(docker.ok && (docker.value as DockerProvider).engine.address).toMatchObject({ socket: "/run/mine.sock" });
  });

  test("is DOCKER_HOST's when agentrun:docker names none, as the docker CLI's", async () => {
    process.env.DOCKER_HOST = "unix:///run/from-env.sock";
    const docker = await vendors({})("docker");
    expect(docker.ok && (docker.value as DockerProvider).engine.address).toEqual({
      address: "unix:///run/from-env.sock",
      socket: "/run/from-env.sock",
      from: "DOCKER_HOST",
    });
  });

  test("refuses an engine over plain TCP in words, for every resource that asks for Docker", async () => {
    process.env.DOCKER_HOST = "tcp://127.0.0.1:2376";
    const docker = await vendors({})("docker");
    expect(docker).toMatchObject({ ok: false, error: { code: "invalid" } });
    // The address itself is redacted (a URL could hold a key), the refusal is not.
    if (!docker.ok) expect(docker.error.message).toMatch(/^docker: DOCKER_HOST names an engine over TCP with no TLS material: .* root on its host/);
  });
});
