// list on the real engine: any number of computers in one docker ps and an inspect per 50, and
// a computer removed between the two left out. The computers here are containers made with
// `docker create` (a computer's name and label, never started): list reads every state.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { DockerCli } from "../../src/docker/cli.js";
import { IMAGE, provider, testLabel } from "./docker-helpers.js";

const names: string[] = [];
afterAll(() => {
  for (let i = 0; i < names.length; i += 50) execFileSync("docker", ["rm", "--force", ...names.slice(i, i + 50)], { stdio: "ignore" });
});

describe("list", () => {
  it("lists 51 computers with one docker ps and two inspects, leaving out one removed between them", async () => {
    const labels = testLabel();
    for (let i = 0; i < 51; i += 1) {
      const name = `computer-${randomBytes(6).toString("hex")}`;
      names.push(name);
      execFileSync("docker", ["create", "--name", name, "--network", "none", "--label", "agentrun.computer=1", "--label", `agentrun.test=${labels["agentrun.test"]}`, IMAGE, "true"], { stdio: "ignore" });
    }
    // Another container with the label but not a computer's name is never listed.
    const impostor = `not-a-computer-${randomBytes(4).toString("hex")}`;
    names.push(impostor);
    execFileSync("docker", ["create", "--name", impostor, "--label", "agentrun.computer=1", "--label", `agentrun.test=${labels["agentrun.test"]}`, IMAGE, "true"], { stdio: "ignore" });

    const calls: string[][] = [];
    let removed: string | undefined;
    const docker = provider({
      docker: new DockerCli("docker", (args) => {
        calls.push([...args]);
        // Between docker ps and the first inspect, one computer goes.
        if (args[0] === "inspect" && !removed) {
          removed = args.at(-1);
          execFileSync("docker", ["rm", "--force", removed!], { stdio: "ignore" });
        }
      }),
    });
    const listed = await docker.list(labels);
    expect(listed.ok).toBe(true);
    if (!listed.ok) return;
    expect(calls.map((c) => c[0])).toEqual(["ps", "inspect", "inspect"]);
    expect(calls.filter((c) => c[0] === "inspect").map((c) => c.length - 5)).toEqual([50, 1]);
    expect(listed.value).toHaveLength(50);
    const ids = new Set(listed.value.map((i) => i.ref.id));
    expect(ids.has(removed!)).toBe(false);
    for (const info of listed.value) {
      expect(info.ref.name).toMatch(/^computer-[0-9a-f]{12}$/);
      expect(info).toMatchObject({ state: "stopped", network: "none", deadline: undefined, labels: { "agentrun.computer": "1", ...labels } });
    }
  }, 120_000);
});
