// ComputerApp's Python requirements through the computer's allowlisted proxy, from a package
// index: a PEP 503 "simple" index holding tinyapp's wheel (made here), served by a container on
// an --internal Docker network of the test's own, which the proxy joins by the test-only seam
// (its range reached as if public; no public address is ever a target). The computer's image is
// the provider's own with pip added and its /etc/pip.conf naming the index, as a team's image
// names its own. With the index on the list, pip installs through the proxy; with it off the
// list, the proxy refuses, the create fails in words and the index saw nothing; with network
// none, nothing is opened for pip.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Context } from "../../provider/resource.js";
import { computerApp } from "../../provider/resources/computer-app.js";
import type { ComputerRef, ComputerSpec } from "../../src/contract/provider.js";
import { ok } from "../../src/daemon/result.js";
import { docker, provider, testLabel } from "../support/docker-helpers.js";
import { inside } from "../support/inside-helpers.js";
import { pipWheel, TINYAPP_GREETING, TINYAPP_WHEEL, writeTinyapp } from "../support/python-wheel.js";

const id = randomBytes(4).toString("hex");
const net = `agentrun-pyindex-net-${id}`;
const index = `agentrun-pyindex-${id}`;
const image = `agentrun-test-pip:${id}`;
const label = `agentrun.test=${id}`;
let folder = "";
let indexIP = "";
let subnet = "";

// The test's proxies reach the test network's range; 203.0.113.7 stands for the Docker host's address.
let p: ReturnType<typeof provider>;
const made: ComputerRef[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "agentrun-pyindex-"));
  // The index: /simple/ and /simple/tinyapp/ as PEP 503 pages, the wheel under /packages/ with its hash in the link.
  await mkdir(join(folder, "srv/simple/tinyapp"), { recursive: true });
  await mkdir(join(folder, "srv/packages"));
  const wheel = await readFile(await writeTinyapp(join(folder, "srv/packages")));
  const sha = createHash("sha256").update(wheel).digest("hex");
  await writeFile(join(folder, "srv/simple/index.html"), '<!DOCTYPE html><html><body><a href="tinyapp/">tinyapp</a></body></html>\n');
  await writeFile(
    join(folder, "srv/simple/tinyapp/index.html"),
    `<!DOCTYPE html><html><body><a href="../../packages/${TINYAPP_WHEEL}#sha256=${sha}">${TINYAPP_WHEEL}</a></body></html>\n`,
  );
  const base = await provider().image();
  if (!base.ok) throw new Error(base.error.message);
  docker("network", "create", "--internal", "--label", label, net);
  subnet = docker("network", "inspect", "-f", "{{range .IPAM.Config}}{{.Subnet}}{{end}}", net);
  // The provider's own image has python3; its http.server serves the folder on port 80 (a port the proxy reaches).
  docker(
    "run",
    "-d",
    "--name",
    index,
    "--label",
    label,
    "--network",
    net,
    "--user",
    "0",
    "--read-only",
    "-v",
    `${join(folder, "srv")}:/srv:ro`,
    "--entrypoint",
    "python3",
    base.value,
    "-m",
    "http.server",
    "80",
    "--directory",
    "/srv",
  );
  indexIP = docker("inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", index);
  // The computers' image: the provider's with pip (unpacked from its wheel onto Debian's python3 path) and a pip.conf naming the index.
  const context = join(folder, "image");
  await mkdir(join(context, "site"), { recursive: true });
  await execa("python3", ["-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])", await pipWheel(), join(context, "site")]);
  await writeFile(join(context, "pip.conf"), `[global]\nindex-url = http://${indexIP}/simple\ntrusted-host = ${indexIP}\ntimeout = 15\nretries = 0\n`);
  await writeFile(join(context, "Dockerfile"), `FROM ${base.value}\nCOPY site/ /usr/lib/python3/dist-packages/\nCOPY pip.conf /etc/pip.conf\n`);
  await execa("docker", ["build", "--quiet", "--label", label, "-t", image, context]);
  p = provider({ egress: { hostAddresses: ["203.0.113.7"], testNetwork: { name: net, range: subnet }, testOnly: true } });
}, 600_000);

afterAll(async () => {
  for (const ref of made) await p.release(ref, "delete");
  for (const ref of made) execFileSync("docker", ["rm", "--force", "--volumes", ref.name, `${ref.name}-egress`], { stdio: "ignore" });
  execFileSync("docker", ["rm", "--force", index], { stdio: "ignore" });
  execFileSync("docker", ["network", "rm", net], { stdio: "ignore" });
  execFileSync("docker", ["image", "rm", "--force", image], { stdio: "ignore" });
  if (folder) await rm(folder, { recursive: true, force: true });
}, 120_000);

/** A computer of the pip image on this network, released after the file. */
async function computer(network: ComputerSpec["network"]): Promise<ComputerRef> {
  const created = await p.create({ image, lifetimeMs: 600_000, network, labels: testLabel(), memoryMb: 512 });
  if (!created.ok) throw new Error(created.error.message);
  made.push(created.value);
  return created.value;
}

const context = (): Context => ({
  settings: {},
  vendor: async () => ok(p),
  signal: new AbortController().signal,
  say: () => {},
  urn: `urn:pulumi:test::index::agentrun:index:ComputerApp::${id}`,
});

/** The app: tinyapp from the index, and a service that says its greeting. */
async function app(name: string, on: string) {
  const checked = await computerApp.check(
    context(),
    {},
    {
      computer: on,
      name,
      requirements: { python: { packages: ["tinyapp==1.0"] } },
      services: { web: { argv: [".venv/bin/python", "-c", "import tinyapp, time; open('said.txt', 'w').write(tinyapp.GREETING); time.sleep(300)"] } },
      ready: { command: ["test", "-s", `.agentrun/apps/${name}/said.txt`], timeoutSeconds: 30 },
    },
  );
  expect(checked.failures ?? []).toEqual([]);
  return checked.inputs!;
}

/** The index's request lines so far (http.server logs each to stderr). */
const served = () => {
  const logs = spawnSync("docker", ["logs", index], { encoding: "utf8" });
  return `${logs.stdout}${logs.stderr}`.split("\n").filter((l) => / "GET /.test(l));
};

describe("ComputerApp's Python requirements through the computer's allowlisted proxy, from a package index", () => {
  test("with the index on the list, pip installs through the proxy from the index, and the service runs on it", async () => {
    const { name } = await computer({ allow: [`${indexIP}/32`] });
    const outs = (await computerApp.create(context(), await app("py-index", name))).outs!;
    expect(outs.pythonPackages).toEqual(["tinyapp==1.0"]);
    expect((await inside(name, "cat ~/.agentrun/apps/py-index/said.txt")).stdout).toBe(TINYAPP_GREETING);
    // The wheel came from the index, asked by the proxy (the index sees the proxy's address, not the computer's: it has none there).
    expect(served().some((l) => l.includes(`"GET /packages/${TINYAPP_WHEEL} HTTP/1.`) && / 200 /.test(l))).toBe(true);
  }, 300_000);

  test("with the index off the list, the proxy refuses it: the create fails in words, the index saw nothing and nothing is left", async () => {
    const { name } = await computer({ allow: ["pypi.org"] });
    const before = served().length;
    await expect(computerApp.create(context(), await app("py-refused", name))).rejects.toThrow(
      new RegExp(
        `^${name}: the app's Python requirements could not be installed through the computer's network as declared \\(exit 1\\): .*tinyapp==1\\.0.*; what the install wrote in \\.agentrun/apps/py-refused is removed$`,
      ),
    );
    expect(served()).toHaveLength(before);
    expect((await inside(name, "ls -A ~/.agentrun/apps")).stdout).toBe("");
  }, 300_000);

  test("with network none, nothing is opened for pip: the create fails in words and the computer's network is still none", async () => {
    const ref = await computer("none");
    const name = ref.name;
    const before = served().length;
    await expect(computerApp.create(context(), await app("py-none", name))).rejects.toThrow(
      /could not be installed through the computer's network as declared \(exit 1\): .*tinyapp==1\.0.*; what the install wrote in \.agentrun\/apps\/py-none is removed$/,
    );
    expect(served()).toHaveLength(before);
    expect(await p.network(ref)).toEqual({ ok: true, value: "none" });
    expect((await inside(name, "ls -A ~/.agentrun/apps")).stdout).toBe("");
  }, 300_000);
});
