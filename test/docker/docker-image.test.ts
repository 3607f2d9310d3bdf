// ensureImage against the real engine: fresh recipes FROM the set-up's base image (no registry
// here), built once for concurrent callers, reused, from three processes at once, and refused in
// words when broken. Every tag a test makes is removed by its exact name.
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { DockerCli } from "../../src/docker/cli.js";
import { ensureImage, RECIPE_LABEL, recipeHash, recipeTag } from "../../src/docker/image.js";
import { DockerProvider } from "../../src/docker/provider.js";
import { toolchain } from "../support/toolchain.js";

const base = toolchain().baseImage;
const made: string[] = [];
const nonces: string[] = [];
afterAll(() => {
  for (const tag of made) execFileSync("docker", ["rmi", "--force", tag], { stdio: "ignore" });
  // A build that failed leaves the image of its last good step, untagged: found by its nonce.
  for (const nonce of nonces) {
    const left = execFileSync("docker", ["images", "--quiet", "--filter", `label=nonce=${nonce}`], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean);
    if (left.length) execFileSync("docker", ["rmi", "--force", ...left], { stdio: "ignore" });
  }
});

/** A recipe no one has built: the nonce makes its hash new. */
function fresh(body = "RUN true"): string {
  const nonce = randomBytes(8).toString("hex");
  nonces.push(nonce);
  const recipe = `FROM ${base}\nLABEL nonce=${nonce}\n${body}\n`;
  made.push(recipeTag(recipe));
  return recipe;
}

function docker(...args: string[]): string {
  return execFileSync("docker", args, { encoding: "utf8" });
}

function counting() {
  const calls: string[][] = [];
  return { calls, cli: new DockerCli("docker", (args) => calls.push([...args])) };
}

describe("ensureImage on this engine", () => {
  it("builds a recipe once for three concurrent callers, each told once, and the next call only inspects", async () => {
    const recipe = fresh();
    const { calls, cli } = counting();
    const told: Array<[string, string]> = [];
    const results = await Promise.all([0, 1, 2].map(() => ensureImage({ recipe }, { docker: cli, onWait: (making, tag) => told.push([making, tag]) })));
    const tag = recipeTag(recipe);
    expect(results).toEqual([0, 1, 2].map(() => ({ ok: true, value: tag })));
    expect(calls.filter((c) => c[0] === "build")).toHaveLength(1);
    expect(calls.filter((c) => c[0] === "image")).toHaveLength(1);
    expect(told).toEqual([0, 1, 2].map(() => ["build", tag]));
    const label = execFileSync("docker", ["image", "inspect", "--format", `{{index .Config.Labels "${RECIPE_LABEL}"}}`, tag], { encoding: "utf8" }).trim();
    expect(label).toBe(recipeHash(recipe));

    calls.length = 0;
    const again = await ensureImage({ recipe }, { docker: cli, onWait: () => told.push(["again", ""]) });
    expect(again).toEqual({ ok: true, value: tag });
    expect(calls).toEqual([["image", "inspect", "--format", "{{json .Config.Labels}}", tag]]);
    expect(told).toHaveLength(3);
  });

  it("ends with the tag in three processes that build the same recipe at once", async () => {
    const recipe = fresh();
    const module = new URL("../../dist/src/docker/image.js", import.meta.url).pathname;
    const script = `import(${JSON.stringify(module)}).then(async (m) => { const r = await m.ensureImage({ recipe: process.argv[1] }); console.log(JSON.stringify(r)); })`;
    const run = promisify(execFile);
    const outs = await Promise.all([0, 1, 2].map(() => run("node", ["--input-type=module", "-e", script, recipe])));
    for (const out of outs) expect(JSON.parse(out.stdout)).toEqual({ ok: true, value: recipeTag(recipe) });
  }, 120_000);

  const marker = `agentrun-${randomBytes(4).toString("hex")}`;
  it.each([
    [
      "a step that fails",
      `RUN test ${marker} = x`,
      new RegExp(
        `^the recipe for agentrun-computer:[0-9a-f]{12} did not build: it failed at the step \`RUN test ${marker} = x\` with exit code 1; fix that step$`,
      ),
    ],
    ["a recipe Docker cannot parse", "NOTANINSTRUCTION x", /did not build: Docker could not parse the recipe \(at line 3\); fix that line$/],
    [
      "a package apt cannot find",
      `RUN apt-get update -qq && apt-get install -y -qq ${marker}-no-such-package`,
      new RegExp(`did not build: it could not install a package \\(${marker}-no-such-package\\)`),
    ],
  ])(
    "refuses %s in words that hold none of Docker's output, and leaves no container",
    async (_what, body, words) => {
      const result = await ensureImage({ recipe: fresh(body) });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe("failed");
        expect(result.error.message).toMatch(words);
        expect(result.error.message).not.toMatch(/Sending build context|Step \d/);
      }
      expect(docker("ps", "--all", "--no-trunc", "--format", "{{.Command}}")).not.toContain(marker);
    },
    120_000,
  );

  it("refuses a recipe whose base cannot be pulled (no registry here)", async () => {
    const recipe = `FROM agentrun-no-such-base-${randomBytes(4).toString("hex")}:1\nRUN true\n`;
    const result = await ensureImage({ recipe });
    expect(result).toMatchObject({ ok: false, error: { code: "failed" } });
    if (!result.ok) expect(result.error.message).toMatch(/could not pull its base image \(agentrun-no-such-base-[0-9a-f]+:1\)/);
  }, 120_000);

  it("takes an image by name that Docker has with one inspect, and says why one it lacks cannot be pulled", async () => {
    const { calls, cli } = counting();
    const told: string[] = [];
    expect(await ensureImage({ image: base }, { docker: cli, onWait: (m) => told.push(m) })).toEqual({ ok: true, value: base });
    expect(calls).toHaveLength(1);
    expect(told).toEqual([]);
    const missing = `agentrun-missing-${randomBytes(4).toString("hex")}:1`;
    const result = await ensureImage({ image: missing }, { docker: cli, onWait: (m) => told.push(m) });
    expect(told).toEqual(["pull"]);
    expect(calls.filter((c) => c[0] === "pull")).toEqual([["pull", "--quiet", missing]]);
    expect(result).toMatchObject({ ok: false, error: { code: "failed", detail: { kind: "image-unpulled", tag: missing } } });
    if (!result.ok)
      expect(result.error.message).toMatch(
        new RegExp(`^the image ${missing} is not on this Docker host and could not be pulled: the registry (could not be reached|has no such image)`),
      );
  }, 60_000);

  it("refuses a source that is neither, and a bound that is not one, before Docker is called", async () => {
    const { calls, cli } = counting();
    expect(await ensureImage({ recipe: "RUN true" }, { docker: cli })).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(await ensureImage({ image: "UPPER CASE" }, { docker: cli })).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(await ensureImage({ image: base }, { docker: cli, timeoutMs: -1 })).toMatchObject({ ok: false, error: { code: "invalid", field: "timeoutMs" } });
    expect(calls).toEqual([]);
  });

  it("ends one caller's wait on its abort, and kills the build when the last caller aborts", async () => {
    const sleep = `sleep 29.${Math.floor(Math.random() * 1e6)}`;
    const recipe = fresh(`RUN ${sleep}`);
    const building = () => docker("ps", "--no-trunc", "--format", "{{.Command}}").includes(sleep);
    const first = new AbortController();
    const second = new AbortController();
    const waits = [ensureImage({ recipe }, { signal: first.signal }), ensureImage({ recipe }, { signal: second.signal })];
    while (!building()) await new Promise((r) => setTimeout(r, 200));
    first.abort();
    expect(await waits[0]).toMatchObject({ ok: false, error: { code: "aborted" } });
    await new Promise((r) => setTimeout(r, 1000));
    expect(building()).toBe(true); // one caller still waits: the build goes on
    second.abort();
    expect(await waits[1]).toMatchObject({ ok: false, error: { code: "aborted" } });
    const t0 = Date.now();
    while (building() && Date.now() - t0 < 15_000) await new Promise((r) => setTimeout(r, 250));
    expect(building()).toBe(false);
    await new Promise((r) => setTimeout(r, 1000));
    expect(docker("ps", "--all", "--no-trunc", "--format", "{{.Command}}")).not.toContain(sleep); // removed, not only stopped
  }, 60_000);

  it("times a build out at the first caller's bound", async () => {
    const result = await ensureImage({ recipe: fresh("RUN sleep 30") }, { timeoutMs: 2_000 });
    expect(result).toMatchObject({ ok: false, error: { code: "timeout" } });
  }, 60_000);

  it("builds the provider's default recipe FROM the base image, with the spec's tools", async () => {
    const docker = new DockerProvider({ daemonPath: toolchain().daemon.amd64 });
    const image = await docker.image({ onWait: () => undefined });
    expect(image.ok).toBe(true);
    if (!image.ok) return;
    const versions = execFileSync(
      "docker",
      [
        "run",
        "--rm",
        "--network",
        "none",
        image.value,
        "sh",
        "-c",
        "python3 --version && git --version && curl --version | head -n1 && node --version && npm --version && rg --version | head -n1 && socat -V | grep 'socat version'",
      ],
      { encoding: "utf8" },
    );
    expect(versions).toMatch(/Python 3/);
    expect(versions).toMatch(/git version/);
    expect(versions).toMatch(/ripgrep/);
    expect(versions).toMatch(/socat version/);
  }, 600_000);
});
