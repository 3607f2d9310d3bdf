// A computer's own proof, from inside, that the proxy on its path enforces its rules: at create,
// through a real shared proxy whose rule allows GET /v1/items and refuses POST, each proven by a
// judge-only request that the proxy answers and never sends on (its log holds judged and rule
// lines for the host, never an allowed one); then the rules on the computer's path changed by hand
// (a proxy of other rules started on the same socket, the made one paused, so its container still
// says the rules it was made with) read as drift naming host, method and path, and refuse a create,
// deleting what it made. The upstream is the test's own on an --internal network of its own.
// Both on the base image and on one with no bash (the base image with bash removed, committed
// under a name of this run's): the proof is the daemon's own `computerd judge`, not a shell's.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DockerProvider } from "../../src/docker/index.js";
import type { ComputerRef } from "../../src/contract/provider.js";
import { docker, IMAGE, provider, testLabel } from "../support/docker-helpers.js";
import { startUpstream, type Upstream } from "../support/egress-upstream.js";

const id = randomBytes(4).toString("hex");
const labels = testLabel();
const names = new Set<string>();
const noBash = `agentrun-egress-proven-nobash:${id}`;
let up: Upstream | undefined;
let p: DockerProvider;
const proxies: string[] = [];
const byHands: string[] = [];

const count = () => docker("ps", "--all", "-q", "--filter", `label=agentrun.test=${labels["agentrun.test"]}`).split("\n").filter(Boolean).length;

beforeAll(async () => {
  up = startUpstream(`agentrun-egress-proven-${id}`, { alias: "up.egress.test" });
  p = provider({ egress: up.egress });
  const cut = `agentrun-egress-proven-nobash-${id}`;
  try {
    docker("run", "--name", cut, "--entrypoint", "rm", IMAGE, "-f", "/bin/bash", "/usr/bin/bash");
    // Committed with the base image's own entrypoint, not the rm that cut bash.
    const entrypoint = docker("image", "inspect", "-f", "{{json .Config.Entrypoint}}", IMAGE);
    docker("commit", "--change", `ENTRYPOINT ${entrypoint === "null" ? "[]" : entrypoint}`, cut, noBash);
  } finally {
    execFileSync("docker", ["rm", "--force", cut], { stdio: "ignore" });
  }
  expect(() => docker("run", "--rm", "--entrypoint", "bash", noBash, "-c", "true")).toThrow(/"bash": executable file not found/);
  expect(docker("run", "--rm", "--entrypoint", "sh", noBash, "-c", "echo sh")).toBe("sh");
}, 120_000);

afterAll(() => {
  for (const name of names) execFileSync("docker", ["rm", "--force", "--volumes", name], { stdio: "ignore" });
  for (const byHand of byHands) execFileSync("docker", ["rm", "--force", byHand], { stdio: "ignore" });
  for (const proxy of proxies) {
    execFileSync("docker", ["rm", "--force", `${proxy}-egress`], { stdio: "ignore" });
    execFileSync("docker", ["volume", "rm", "--force", `${proxy}-egress`], { stdio: "ignore" });
  }
  execFileSync("docker", ["image", "rm", "--force", noBash], { stdio: "ignore" });
  up?.close();
}, 60_000);

describe.each([
  ["the base image", () => IMAGE],
  ["an image with no bash", () => noBash],
])("a computer's rules proven from inside, on %s", (_, imageOf) => {
  let proxy = "";
  let computer: ComputerRef | undefined;
  const proxyLog = () => docker("logs", `${proxy}-egress`);
  /** The proxy's log lines for the upstream's host, once it holds at least n (the engine's log is written behind the proxy). */
  async function hostLines(n: number): Promise<string[]> {
    const lines = () =>
      proxyLog()
        .split("\n")
        .filter((l) => l.includes('"host":"up.egress.test"'));
    for (let i = 0; i < 100 && lines().length < n; i++) await new Promise((r) => setTimeout(r, 100));
    return lines();
  }
  it("proves at create, without a request reaching the upstream, that its proxy allows GET /v1/items and refuses POST", async () => {
    const made = await p.proxies.make(
      {
        allow: [`${up!.ip}/32`, "up.egress.test"],
        rules: [{ host: "up.egress.test", methods: ["GET"], paths: ["/v1/items"] }],
        lifetimeMs: 900_000,
        labels,
      },
      { owner: "the test's resource" },
    );
    expect(made.ok, JSON.stringify(made)).toBe(true);
    if (!made.ok) return;
    proxy = made.value.name;
    proxies.push(proxy);
    const created = await p.create({ image: imageOf(), lifetimeMs: 600_000, network: { allow: [] }, egress: proxy, labels });
    if (created.ok) names.add(created.value.name);
    expect(created.ok, JSON.stringify(created)).toBe(true);
    if (!created.ok) return;
    computer = created.value;
    expect((await hostLines(2)).map((l) => JSON.parse(l).class)).toEqual(["judged", "rule"]);
    const read = await p.read({ id: computer.name });
    expect(read).toMatchObject({ ok: true, value: { drift: [] } });
    expect(await hostLines(4)).toHaveLength(4);
  }, 300_000);

  it("reads rules changed by hand on the computer's path as drift naming host, method and path, and refuses a create with them", async () => {
    if (!computer) return;
    const at = `${proxy}-egress`;
    const [entrypoint, cmd, image, user] = ["{{json .Config.Entrypoint}}", "{{json .Config.Cmd}}", "{{.Config.Image}}", "{{.Config.User}}"].map((f) =>
      docker("inspect", "-f", f, at),
    );
    const argv = (JSON.parse(cmd!) as string[]).map((a) => (a === "up.egress.test GET /v1/items" ? "up.egress.test GET,POST /v1/items" : a));
    expect(argv).toContain("up.egress.test GET,POST /v1/items");
    // The made proxy paused (its container still running, as it says, its rules as made), its
    // socket freed, and a proxy of other rules listening on it by hand.
    docker("pause", at);
    docker("run", "--rm", "-v", `${at}:/x`, IMAGE, "rm", "-f", "/x/egress.sock");
    const byHand = `${at}-byhand-${id}`;
    byHands.push(byHand);
    docker(
      "run",
      "-d",
      "--name",
      byHand,
      "--network",
      "none",
      "--user",
      user!,
      "-v",
      `${at}:/opt/agentrun/egress`,
      "--entrypoint",
      JSON.parse(entrypoint!)[0],
      image!,
      ...argv,
    );
    for (const started = Date.now(); Date.now() - started < 20_000;) {
      if (docker("run", "--rm", "-v", `${at}:/x`, IMAGE, "sh", "-c", "test -S /x/egress.sock && echo yes") === "yes") break;
      execFileSync("sleep", ["0.2"]);
    }
    const read = await p.read({ id: computer.name });
    expect(read.ok, JSON.stringify(read)).toBe(true);
    if (!read.ok) return;
    expect(read.value.drift).toEqual([
      expect.stringMatching(
        /^from inside, POST \/v1\/items to up\.egress\.test should be refused, as no rule of its proxy allows it, but the proxy on its path answered "200 POST \/v1\/items would pass for up\.egress\.test/,
      ),
    ]);
    const before = count();
    const refused = await p.create({ image: imageOf(), lifetimeMs: 600_000, network: { allow: [] }, egress: proxy, labels });
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: "refused",
        message: expect.stringMatching(/is not what was declared, so it was deleted: from inside, POST \/v1\/items to up\.egress\.test should be refused/),
      },
    });
    expect(count()).toBe(before);
    docker("rm", "--force", byHand);
    docker("unpause", at);
  }, 300_000);
});
