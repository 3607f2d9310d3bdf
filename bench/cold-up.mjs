// A cold `npm run up`: a fresh clone of this commit with empty caches of its own (agentrun's, Go's
// build and module caches, npm's), so the Pulumi CLI, computerd and the node modules are all made
// from nothing; with --images the base image and the computers' image are removed first, so both
// are built again too. Printed beside its anchor: the Pulumi CLI's own build inside the same run,
// the step the rest is overlapped with. The stack it made is destroyed (npm run down) and the clone
// and its caches removed, pass or fail, and when stopped half-way (SIGINT, SIGTERM) too. The Docker
// engine and Debian's packages stay as they are. Beside the times, the CPU the run took: its own
// programs' (every process it started, once reaped) and the machine's over the same wall time (the
// image builds run in the Docker engine, so they count only there), against what the cores give.
// Usage: node bench/cold-up.mjs [--images]   (bound: 6 minutes)
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createInterface } from "node:readline";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { busyMs } from "./proc-memory.mjs";
import { onStop } from "./stop.mjs";

const ROOT = new URL("..", import.meta.url).pathname;
const images = process.argv.includes("--images");
const scratch = mkdtempSync(join(tmpdir(), "agentrun-cold-up-"));
const repo = join(scratch, "repo");
const env = {
  ...process.env,
  AGENTRUN_CACHE: join(scratch, "cache"),
  GOCACHE: join(scratch, "go-build"),
  GOMODCACHE: join(scratch, "go-mod"),
  npm_config_cache: join(scratch, "npm"),
  AGENTRUN_STACK: "cold-up",
};
delete env.AGENTRUN_PULUMI_BIN;

/** The CPU in ms of this process's children once reaped, theirs included (/proc/self/stat's cutime and cstime). */
function treeCpuMs() {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** Runs npm's script in the clone, its lines echoed with the seconds since it started; resolves to its exit code and seconds. */
function npmRun(script, lines) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn("npm", ["run", script], { cwd: repo, env, stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream }).on("line", (line) => {
        lines.push(line);
        console.log(`${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s  ${line}`);
      });
    child.on("exit", (code) => resolve({ code, seconds: (Date.now() - t0) / 1000 }));
  });
}

// npm run up's programs are ended first; then the stack it made goes by npm run down, and the clone with its caches.
const cleanup = onStop(async () => {
  const down = await npmRun("down", []);
  if (down.code !== 0) console.log(`npm run down exited ${down.code}; the lines above say what was left`);
  // Go's module cache is read-only; make it writable to remove it.
  execFileSync("chmod", ["-R", "u+w", scratch]);
  rmSync(scratch, { recursive: true, force: true });
});
try {
  execFileSync("git", ["clone", "-q", ROOT, repo]);
  if (images) {
    const base = JSON.parse(readFileSync(join(ROOT, "dist/toolchain.json"), "utf8")).baseImage;
    const { dockerRecipe, recipeTag } = await import(join(ROOT, "dist/src/docker/image.js"));
    const tags = [recipeTag(dockerRecipe(base)), base];
    execFileSync("docker", ["image", "rm", "--force", ...tags], { stdio: "ignore" });
    console.log(`removed ${tags.join(" and ")}, so both are built again`);
  }
  const lines = [];
  const load = loadavg()[0];
  const [busy0, tree0] = [busyMs(), treeCpuMs()];
  const up = await npmRun("up", lines);
  const [busy, tree] = [busyMs() - busy0, treeCpuMs() - tree0];
  const steps = lines.map((l) => /^\[setup\] (.+?) … ready in (\d+) s$/.exec(l)).filter(Boolean);
  const cli = steps.find((m) => m[1] === "Pulumi CLI");
  console.log("");
  for (const m of steps) console.log(`  ${m[1].padEnd(48)} ${m[2].padStart(4)} s`);
  console.log(`cold npm run up: ${up.seconds.toFixed(0)} s, exit ${up.code} (bound 360 s: ${up.seconds <= 360 ? "met" : "not met"})`);
  const cores = cpus().length;
  const share = (ms) => `${(ms / 1000).toFixed(0)} s of CPU, ${(ms / 1000 / cores / up.seconds).toFixed(2)} of ${cores} cores' time`;
  console.log(`CPU: its programs ${share(tree)}; the machine's ${share(busy)} (load ${load.toFixed(1)} at the start)`);
  console.log(`the Pulumi CLI's own build in it: ${cli ? `${cli[2]} s` : "not built (was it cached?)"} (the anchor: the step the rest runs beside)`);
  process.exitCode = up.code === 0 ? 0 : 1;
} finally {
  await cleanup();
}
