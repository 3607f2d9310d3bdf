// list on the real engine: any number of computers in one call to the engine, found by their
// label whatever their name (a computer renamed by hand is still listed, so the janitor and
// releaseOlder still find it), and never a container without the provider's label. The computers
// here are containers made with `docker create` (a computer's label, never started): list reads
// every state.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { DockerEngine } from "../../src/docker/api.js";
import { CLAIM_LABEL } from "../../src/docker/claims.js";
import { IMAGE, provider, testLabel } from "../support/docker-helpers.js";

const names: string[] = [];
const volumes: string[] = [];
afterAll(() => {
  for (let i = 0; i < names.length; i += 50) execFileSync("docker", ["rm", "--force", ...names.slice(i, i + 50)], { stdio: "ignore" });
  if (volumes.length > 0) execFileSync("docker", ["volume", "rm", "--force", ...volumes], { stdio: "ignore" });
});

function made(name: string, labels: string[]): string {
  names.push(name);
  execFileSync("docker", ["create", "--name", name, "--network", "none", ...labels.flatMap((l) => ["--label", l]), IMAGE, "true"], { stdio: "ignore" });
  return name;
}

describe("list", () => {
  it("lists 51 computers with one call to the engine for them (and one for the warm pools' claim records, other runs' records costing none), one renamed by hand among them, and no container without the label", async () => {
    const labels = testLabel();
    const mark = `agentrun.test=${labels["agentrun.test"]}`;
    for (let i = 0; i < 51; i += 1) made(`computer-${randomBytes(6).toString("hex")}`, ["agentrun.computer=1", mark]);
    const renamed = `renamed-by-hand-${randomBytes(4).toString("hex")}`;
    execFileSync("docker", ["rename", names[0]!, renamed]);
    names[0] = renamed;
    // The test's label without the provider's: not a computer, whatever its name.
    made(`computer-${randomBytes(6).toString("hex")}`, [mark]);
    // Other runs' claim records (as pools running beside this test leave): one contradicting the
    // filter, one giving none of its labels. Neither can bring a computer in, so neither costs a list.
    for (const record of [{ "agentrun.test": "another-run" }, { "agentrun.run": "another-run" }]) {
      const id = randomBytes(32).toString("hex");
      volumes.push(`agentrun-claim-${id}`);
      const recordLabels = Object.entries({ ...record, [CLAIM_LABEL]: id }).flatMap(([k, v]) => ["--label", `${k}=${v}`]);
      execFileSync("docker", ["volume", "create", ...recordLabels, `agentrun-claim-${id}`], { stdio: "ignore" });
    }

    const calls: string[] = [];
    const docker = provider({ engine: new DockerEngine(undefined, (asked) => calls.push(`${asked.method} ${asked.path}`)) });
    const listed = await docker.list(labels);
    expect(listed.ok).toBe(true);
    if (!listed.ok) return;
    expect(calls).toEqual(["GET /containers/json", "GET /volumes"]);
    expect(listed.value.map((i) => i.ref.name).sort()).toEqual(names.slice(0, 51).sort());
    for (const info of listed.value) {
      expect(info.ref.id).toMatch(/^[0-9a-f]{64}$/);
      expect(info).toMatchObject({ state: "stopped", network: "none", deadline: undefined, labels: { "agentrun.computer": "1", ...labels } });
    }
  }, 120_000);
});
