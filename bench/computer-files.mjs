#!/usr/bin/env node
// ComputerFiles' figure: 150 MiB in three files (50 MiB each, random bytes) loaded into a real
// computer through the resource's own create, as the plugin calls it (hashing, batches of at most
// 64 MiB as tar pushes, each batch read back by sha256 inside), beside `docker cp` of the same
// folder into the same container, in the same run, on each of two images (below). docker cp
// writes into the container's layer as root, outside the computer's tmpfs home and its daemon:
// the anchor is Docker's own copy, not a like-for-like path. Each run's files are removed (the
// resource's delete) before the next. Beside each time, the whole machine's CPU over it, and one
// SHA-256 pass of the 150 MiB in this process: the create hashes its bytes twice (here, as it
// sends them; inside, as it reads them back), which docker cp does not. The files' folder here and
// each computer are removed at the end, and when stopped half-way (SIGINT, SIGTERM) too.
//
// Usage: npm run build && node bench/computer-files.mjs [--runs N]   (needs bash scripts/setup.sh once)
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { busyMs } from "./proc-memory.mjs";

const ROOT = join(import.meta.dirname, "..");
const { computerFiles } = await import(join(ROOT, "dist", "provider", "resources", "computer-files.js"));
const { makeComputer, toolchain } = await import(join(ROOT, "bench", "computer.mjs"));
const { dockerRecipe, recipeTag } = await import(join(ROOT, "dist", "src", "docker", "image.js"));
const { onStop } = await import(join(ROOT, "bench", "stop.mjs"));
const run = promisify(execFile);
const MiB = 1 << 20;
const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3;
const SIG = "4dabf18193072939515e22adb298388d";

const host = mkdtempSync(join(tmpdir(), "agentrun-bench-files-"));
const cleanup = onStop(() => rmSync(host, { recursive: true, force: true }));
const folder = join(host, "task");
mkdirSync(folder);
const hashes = [];
let hashCpu = 0;
for (let i = 0; i < 3; i++) {
  const bytes = randomBytes(50 * MiB);
  writeFileSync(join(folder, `part${i}.bin`), bytes);
  const cpu = process.cpuUsage();
  hashes.push(createHash("sha256").update(bytes).digest("hex"));
  const used = process.cpuUsage(cpu);
  hashCpu += (used.user + used.system) / 1e6;
}

const middle = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The median wall time of fn over the runs, and the median of the machine's busy CPU over each, in seconds. */
async function median(fn, after) {
  const times = [];
  const cpus = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const busy = busyMs();
    await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    cpus.push((busyMs() - busy) / 1e3);
    if (after) await after();
  }
  return { time: middle(times), cpu: middle(cpus) };
}

// Both images: the provider's default (it has a python3) and the set-up's base (none); the
// read-back is computerd sums on both, so they should read alike.
const images = [
  ["the provider's default image", recipeTag(dockerRecipe(toolchain.baseImage))],
  ["the base image (no python3)", toolchain.baseImage],
];
console.log(`one SHA-256 pass of the 150 MiB in this process: ${hashCpu.toFixed(2)} s of CPU; machine: ${availableParallelism()} cores`);
try {
  for (const [label, image] of images) await measure(label, image);
} finally {
  await cleanup();
}

async function measure(label, image) {
  // /work, the home, is a tmpfs of half the memory: 1 GiB holds the 150 MiB with room.
  const computer = await makeComputer({ image, memoryMb: 1024 });
  const name = computer.ref.name;
  try {
    const ctx = { settings: {}, vendor: async () => ({ ok: true, value: computer.docker }), signal: new AbortController().signal };
    const files = { task: { [SIG]: "0def7320c3a5731c473e5ecbe6d01bc7", path: folder, hash: "bench" } };
    const inputs = { computer: name, provider: "docker", files, destination: "Downloads" };
    let outs;
    const ours = await median(
      async () => {
        outs = (await computerFiles.create(ctx, inputs)).outs;
        const got = Object.values(outs.written).map((w) => w.sha256);
        if (got.join() !== hashes.join()) throw new Error(`the files read back as ${got.join(", ")}, not what was sent`);
      },
      () => computerFiles.delete(ctx, "bench", outs),
    );
    const cp = await median(
      () => run("docker", ["cp", folder, `${name}:/var/tmp/`], { timeout: 300_000 }),
      () => run("docker", ["exec", "--user", "0", name, "rm", "-rf", "/var/tmp/task"]),
    );
    console.log(`${label}:`);
    console.log(
      `  ComputerFiles create, 150 MiB in 3 files (batches <= 64 MiB, read back by sha256): ${ours.time.toFixed(2)} s (${(150 / ours.time).toFixed(0)} MiB/s), the machine's CPU ${ours.cpu.toFixed(2)} s, median of ${RUNS}`,
    );
    console.log(
      `  docker cp of the same folder into the same container:                       ${cp.time.toFixed(2)} s (${(150 / cp.time).toFixed(0)} MiB/s), the machine's CPU ${cp.cpu.toFixed(2)} s, median of ${RUNS}`,
    );
    console.log(`  ComputerFiles at ${(cp.time / ours.time).toFixed(2)}x docker cp's speed (goal >= 0.8x)`);
  } finally {
    await computer.remove();
  }
}
