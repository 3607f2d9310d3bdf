// agentrun:docker.egress.hostAddresses through the real Pulumi engine, with the plugin taken for
// one on the Docker host (these machines run it in a container, so the test-only setting
// agentrun:docker.testHostRoot points its container signs at an empty folder): an address that
// is none of the host's and not public is refused at preview, for a Computer's allowlist and an
// EgressProxy alike, as the resource's problem (no input of it is wrong), in words that name the
// setting and how to find the right ones; nothing is made. An address on one of the host's
// interfaces is taken, and so is the setting unset.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

process.env.AGENTRUN_COMPUTER_TEST = "1";

const STRAY = "10.99.0.1"; // private, and on no interface of this machine
const WORDS = /egress\.hostAddresses holds 10\.99\.0\.1, which is none of this host's addresses: .*`ip -brief address` lists them/;

describe("agentrun:docker.egress.hostAddresses on the Docker host, through the real engine", () => {
  const run = `hostaddr-${randomBytes(6).toString("hex")}`;
  let s: TestStack;
  let root: string;

  const box = {
    type: "agentrun:index:Computer",
    properties: { image: toolchain().baseImage, lifetimeMs: 600_000, network: "allow", allow: ["pypi.org"], labels: { "agentrun.test": run } },
  };
  const pypi = { type: "agentrun:index:EgressProxy", properties: { allow: ["pypi.org"], lifetimeMs: 900_000 } };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "agentrun-plain-host-"));
    s = await testStack("host-addresses", { box, pypi });
    expect((await s.cli("config", "set", "--path", "agentrun:docker.testHostRoot", root)).exitCode).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
    await rm(root, { recursive: true, force: true });
  }, 300_000);

  test("an address that is none of the host's is refused at preview, a Computer's and an EgressProxy's problem naming the setting; up makes nothing", async () => {
    expect((await s.cli("config", "set", "--path", "agentrun:docker.egress.hostAddresses[0]", STRAY)).exitCode).toBe(0);
    // One at a time: a preview stops at the first resource that fails its check.
    for (const [type, name, resources] of [
      ["Computer", "box", { box }],
      ["EgressProxy", "pypi", { pypi }],
    ] as const) {
      await s.program(resources);
      const preview = await s.cli("preview");
      expect(preview.exitCode).not.toBe(0);
      expect(preview.stdout + preview.stderr).toMatch(
        new RegExp(`agentrun:index:${type} \\(${name}\\):\\s*\\n\\s*error: agentrun:index:${type} resource '${name}' has a problem: ${WORDS.source}`),
      );
      const up = await s.cli("up", "--yes");
      expect(up.exitCode).not.toBe(0);
      expect(up.stdout + up.stderr).toMatch(WORDS);
    }
    expect((await docker("ps", "-aq", "--filter", `label=agentrun.test=${run}`)).stdout).toBe("");
    const resources = (await s.stack.exportStack()).deployment.resources ?? [];
    expect(resources.map((r: { type: string }) => r.type).filter((t: string) => t.startsWith("agentrun:"))).toEqual([]);
  }, 300_000);

  test("an address on one of the host's interfaces is taken, and so is the setting unset", async () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && !i.internal && i.family === "IPv4")?.address;
    expect(own).toBeDefined();
    await s.program({ box, pypi });
    expect((await s.cli("config", "set", "--path", "agentrun:docker.egress.hostAddresses[0]", own!)).exitCode).toBe(0);
    const taken = await s.cli("preview");
    expect(taken.stdout + taken.stderr).not.toMatch(/error:/);
    expect(taken.exitCode).toBe(0);
    expect((await s.cli("config", "rm", "--path", "agentrun:docker.egress")).exitCode).toBe(0);
    const unset = await s.cli("preview");
    expect(unset.stdout + unset.stderr).not.toMatch(/error:/);
    expect(unset.exitCode).toBe(0);
  }, 180_000);
});
