// agentrun ui on a fleet of N linux computers (default 50) on the real engine, in Debian's
// headless Chromium (the set-up's browser image, on this machine's network): the page's first
// render of N tiles, once the server holds its first read and from the command's start; and the
// fleet's CPU while the page watches it at rest (the fleet view open, no tile opened) against the
// same fleet unwatched (no page, no server), in windows that alternate, with the server's own CPU
// beside. Anchors: `agentrun ls` of the same computers (the same read, as a table), and the
// unwatched windows. The server reads each computer back in full once a minute (12 paces of
// 5 s), so a window is 120 s by default: a window under a minute can leave those reads out.
// Everything is removed by exact name, or by the run's label on a stop.
// Run after `npm run build`: node bench/ui.mjs [N] [seconds a window] [rounds]
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import { cpus, loadavg } from "node:os";
import { DockerProvider } from "../dist/src/docker/index.js";
import { hostChromium } from "../dist/test/support/fake-chromium.js";
import { onStop } from "./stop.mjs";

const count = Number(process.argv[2] ?? 50);
const windowS = Number(process.argv[3] ?? 120);
const rounds = Number(process.argv[4] ?? 2);
const root = new URL("..", import.meta.url).pathname;
const BIN = `${root}dist/src/cli/program.js`;
const toolchain = JSON.parse(readFileSync(`${root}dist/toolchain.json`, "utf8"));
const docker = new DockerProvider({ daemonPath: toolchain.daemon.amd64 });
const run = randomBytes(6).toString("hex");
const labels = { "agentrun.bench": run };
const labelFlag = ["--label", `agentrun.bench=${run}`];
const names = [];
const chromium = `agentrun-bench-ui-${run}`;
let making = Promise.resolve();
let ui;
let browser;

const cleanup = onStop(async () => {
  await browser?.close().catch(() => undefined);
  ui?.child.kill("SIGKILL");
  await making.catch(() => undefined);
  execFileSync("docker", ["rm", "--force", chromium], { stdio: "ignore" });
  for (let i = 0; i < names.length; i += 50) execFileSync("docker", ["rm", "--force", "--volumes", ...names.slice(i, i + 50)], { stdio: "ignore" });
  const left = execFileSync("docker", ["ps", "--all", "--quiet", "--filter", `label=agentrun.bench=${run}`], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  if (left.length) execFileSync("docker", ["rm", "--force", "--volumes", ...left], { stdio: "ignore" });
  await docker.close();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** A container's CPU time so far, in ns, from the engine's stats. */
function containerCpu(id) {
  return new Promise((resolve, reject) => {
    const req = http.get({ socketPath: "/var/run/docker.sock", path: `/containers/${id}/stats?stream=false&one-shot=true` }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve(Number(JSON.parse(body).cpu_stats?.cpu_usage?.total_usage ?? 0)));
    });
    req.on("error", reject);
  });
}
const fleetCpu = async () => (await Promise.all(names.map(containerCpu))).reduce((a, b) => a + b, 0);
/** A process's CPU time so far, in seconds (utime + stime of /proc/<pid>/stat). */
function processCpu(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function startUi() {
  const child = spawn("node", [BIN, "ui", "--port", "0", ...labelFlag], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  const url = new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
      const found = /agentrun ui: (http:\/\/127\.0\.0\.1:\d+\/\?secret=[0-9a-f]{32})\n/.exec(out);
      if (found) resolve(found[1]);
    });
    child.on("exit", (code) => reject(new Error(`agentrun ui ended (${code})`)));
  });
  return { child, url };
}

async function tiles() {
  const r = await browser.send("Runtime.evaluate", { expression: `document.querySelectorAll(".tile").length`, returnByValue: true });
  return r.result.value;
}

/** Navigates to url; the time until the page shows N tiles. */
async function render(url) {
  // From a blank page, so the last render's tiles are not counted.
  await browser.send("Page.navigate", { url: "about:blank" });
  while ((await tiles()) !== 0) await sleep(10);
  const t = performance.now();
  await browser.send("Page.navigate", { url });
  while ((await tiles()) !== count) {
    if (performance.now() - t > 300_000) throw new Error(`the page did not show ${count} tiles in 300 s`);
    await sleep(10);
  }
  return performance.now() - t;
}

/** The fleet's CPU over one window, as % of one core, and the server's own when it runs. */
async function window(server) {
  const [f0, u0, t0] = [await fleetCpu(), server ? processCpu(server.pid) : 0, performance.now()];
  await sleep(windowS * 1000);
  const [f1, u1, t1] = [await fleetCpu(), server ? processCpu(server.pid) : 0, performance.now()];
  const seconds = (t1 - t0) / 1000;
  return { fleet: ((f1 - f0) / 1e9 / seconds) * 100, server: ((u1 - u0) / seconds) * 100 };
}

try {
  console.log(
    `${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const t0 = performance.now();
  for (let i = 0; i < count; i += 4) {
    const made = await (making = Promise.all(
      Array.from({ length: Math.min(4, count - i) }, () =>
        docker.create({ image: toolchain.baseImage, lifetimeMs: 3_600_000, network: "none", memoryMb: 64, labels }),
      ),
    ));
    for (const m of made) {
      if (!m.ok) throw new Error(m.error.message);
      names.push(m.value.name);
    }
  }
  console.log(`made ${count} computers in ${s(performance.now() - t0)}`);

  const lsStart = performance.now();
  execFileSync("node", [BIN, "ls", ...labelFlag], { cwd: root, stdio: "ignore" });
  const ls = performance.now() - lsStart;

  browser = await hostChromium(chromium, labels);

  // Cold: from the command's start to N tiles on the page (the server's first read included).
  const uiStart = performance.now();
  ui = startUi();
  const url = await ui.url;
  await render(url);
  const cold = performance.now() - uiStart;
  // Warm: the server holds its read; the page's own load and render of N tiles.
  const warm = [];
  for (let i = 0; i < 5; i++) warm.push(await render(url));
  warm.sort((a, b) => a - b);
  console.log(`first render of ${count} tiles, the server's read held: median of 5 ${s(warm[2])} (min ${s(warm[0])}, max ${s(warm[4])}); goal under 1 s`);
  console.log(`from \`agentrun ui\`'s start to ${count} tiles on the page: ${s(cold)}`);
  console.log(`anchor: \`agentrun ls\` of the same ${count} computers: ${s(ls)}`);

  // At rest: the fleet view open, no tile opened; against no page and no server, alternating.
  ui.child.kill("SIGTERM");
  await new Promise((r) => ui.child.once("exit", r));
  await browser.send("Page.navigate", { url: "about:blank" });
  const watched = [];
  const unwatched = [];
  for (let r = 0; r < rounds; r++) {
    unwatched.push(await window(undefined));
    ui = startUi();
    await render(await ui.url);
    watched.push(await window(ui.child));
    await browser.send("Page.navigate", { url: "about:blank" });
    ui.child.kill("SIGTERM");
    await new Promise((r) => ui.child.once("exit", r));
  }
  const mean = (xs, k) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
  const [u, w] = [mean(unwatched, "fleet"), mean(watched, "fleet")];
  console.log(
    `the fleet's CPU at rest, ${rounds} windows of ${windowS} s each: unwatched ${u.toFixed(2)} % of a core, watched ${w.toFixed(2)} % (` +
      `${u > 0 ? ((w / u - 1) * 100).toFixed(1) : "-"} %; goal within 5 %); the server's own ${mean(watched, "server").toFixed(2)} % of a core`,
  );
  console.log(
    `load at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
} finally {
  await cleanup();
}
