// A Computer whose create must build the computers' image says so on its line: the Computer
// handler's create against a real Docker provider whose image is a recipe not yet built (a label
// of this run on the base image, so the build is real and short), the lines collected as the
// plugin would send them to the engine. The built image is removed by its exact tag.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import type { Context } from "../../provider/resource.js";
import { computer } from "../../provider/resources/computer.js";
import { ok } from "../../src/daemon/result.js";
import { IMAGE, provider } from "../support/docker-helpers.js";

const made: string[] = [];
const tags: string[] = [];
afterAll(() => {
  for (const name of made) execFileSync("docker", ["rm", "--force", "--volumes", name], { stdio: "ignore" });
  for (const tag of tags) execFileSync("docker", ["rmi", "--force", tag], { stdio: "ignore" });
});

describe("progress while the computers' image is built", () => {
  it("says the build on the Computer's line when it starts, each step as it starts, and when it is done, then the computer's wait", async () => {
    const docker = provider({ image: { recipe: `FROM ${IMAGE}\nLABEL agentrun.test.progress=${randomBytes(6).toString("hex")}\n` } });
    const said: string[] = [];
    const ctx: Context = { settings: {}, vendor: async () => ok(docker), signal: new AbortController().signal, say: (line) => said.push(line) };
    const checked = await computer.check(ctx, {}, { lifetimeMs: 600_000, network: "none", memoryMb: 256 });
    expect(checked.failures ?? []).toEqual([]);
    const created = await computer.create(ctx, checked.inputs);
    made.push(String(created.id));
    const tag = String((created.outs as { spec: { image: string } }).spec.image);
    tags.push(tag);
    const building = `building the computers' image ${tag} (once; later computers reuse it)`;
    expect(said[0]).toBe(building);
    // The recipe's two lines and the provider's --label, as Docker numbers the steps, each said as it starts.
    expect(said).toContain(`${building}: step 1 of 3 (FROM ${IMAGE})`);
    expect(said).toContainEqual(
      expect.stringMatching(new RegExp(`^${building.replace(/[().;/:]/g, "\\$&")}: step 2 of 3 \\(LABEL agentrun\\.test\\.progress=[0-9a-f]{12}\\)$`)),
    );
    expect(said).toContainEqual(expect.stringMatching(new RegExp(`^${building.replace(/[().;/:]/g, "\\$&")}: done in \\d+ s$`)));
    expect(said).toContain("waiting for the docker computer to start and its daemon to answer");
  }, 300_000);
});
