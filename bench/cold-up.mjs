// A cold `npm run up`: a fresh clone of this commit with empty caches of its own (agentrun's, Go's
// build and module caches, npm's), so the Pulumi CLI, computerd and the node modules are all made
// from nothing; with --images the base image and the computers' image are removed first, so both
// are built again too. Printed beside its anchor: the Pulumi CLI's own build inside the same run,
// the step the rest is overlapped with. The stack it made is destroyed (npm run down) and the clone
// and its caches removed, pass or fail, and when stopped half-way (SIGINT, SIGTERM) too. The Docker
// engine and Debian's packages stay as they are.
// Usage: node bench/cold-up.mjs [--images]   (bound: 6 minutes)
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createInterface } from "node:readline";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  const up = await npmRun("up", lines);
  const steps = lines.map((l) => /^\[setup\] (.+?) … ready in (\d+) s$/.exec(l)).filter(Boolean);
  const cli = steps.find((m) => m[1] === "Pulumi CLI");
  console.log("");
  for (const m of steps) console.log(`  ${m[1].padEnd(48)} ${m[2].padStart(4)} s`);
  console.log(`cold npm run up: ${up.seconds.toFixed(0)} s, exit ${up.code} (bound 360 s: ${up.seconds <= 360 ? "met" : "not met"})`);
  console.log(`the Pulumi CLI's own build in it: ${cli ? `${cli[2]} s` : "not built (was it cached?)"} (the anchor: the step the rest runs beside)`);
  process.exitCode = up.code === 0 ? 0 : 1;
} finally {
  await cleanup();
}
