// Snapshots and forks on Docker, each beside its anchor in the same run:
// - a snapshot (the provider's snapshot hooks' take) of a computer that wrote 100 MiB, beside a
//   bare `docker commit` of the same container (goal ≤ 1.2×), alternating which goes first;
// - ten forks from that snapshot made at once, to each one's first exec.run, beside ten cold
//   creates of the base image the same way (goal ≤ 1.0×), and a fork's first read of a snapshot
//   file beside the same read in its parent.
// The 100 MiB go to /tmp, in the container's own layer, which both a commit and a snapshot take.
// Every computer is released by its id and every image removed by its name, pass or fail, and
// when stopped half-way (SIGINT, SIGTERM) too.
//
//   node bench/state-snapshot.mjs [rounds] [forks]   (defaults 3 10; after `npm run build`)
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import { makeComputer, toolchain } from "./computer.mjs";
import { onStop, releaseOnStop } from "./stop.mjs";

const rounds = Number(process.argv[2] ?? 3);
const forks = Number(process.argv[3] ?? 10);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(0)} ms`;
const sh = (...args) => execFileSync("docker", args, { encoding: "utf8" }).trim();
const tag = `agentrun-bench-commit:${randomBytes(6).toString("hex")}`;
const spec = { image: toolchain.baseImage, lifetimeMs: 3_600_000, network: "none", memoryMb: 256 };

const computer = await makeComputer({ memoryMb: 256 });
const { docker, ref, client } = computer;
const images = [];
const made = [];
// Registered after the parent's (makeComputer) and before the forks', so a stop releases the forks,
// then removes the images they were made from, then the parent. A take under way is awaited (its
// image listed as it is answered), and once stopping the flow takes no more.
let stopping = false;
let taking = Promise.resolve();
const take = (...args) => {
  if (stopping) throw new Error("the bench is stopping: no snapshot is taken");
  return (taking = docker.snapshots.take(...args).then((taken) => {
    if (taken.ok) images.push(taken.value.image);
    return taken;
  }));
};
const removeImages = onStop(async () => {
  stopping = true;
  await taking.catch(() => undefined);
  for (const image of new Set(images)) {
    // A removal refused (a computer still on it) is said: the image is left.
    const removed = await docker.snapshots.remove(image).catch((error) => ({ ok: false, error }));
    if (!removed.ok) console.error(`the snapshot ${image} is left: ${removed.error.message}`);
  }
  // Already removed by its round, unless a round failed between its commit and its removal.
  try {
    execFileSync("docker", ["image", "rm", "--force", tag], { stdio: "ignore" });
  } catch {
    // Gone already.
  }
});
const releaseForks = releaseOnStop(docker);
const run = async (c, argv) => {
  const ran = await c.call("exec.run", { argv, timeoutMs: 120_000 });
  if (ran.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${ran.exitCode}: ${Buffer.from(ran.stderr, "base64")}`);
  return ran;
};
/** A computer made from the image to its first exec.run, its time; and a fork's first read of the snapshot's file. */
const toFirstExec = async (image, fork) => {
  const t0 = performance.now();
  const created = await docker.create({ ...spec, image });
  if (!created.ok) throw new Error(`create from ${image}: ${created.error.message}`);
  made.push(created.value);
  const connected = await docker.connect(created.value);
  if (!connected.ok) throw new Error(`connect: ${connected.error.message}`);
  await run(connected.value.client, ["true"]);
  const t = performance.now() - t0;
  const r0 = performance.now();
  if (fork) await connected.value.client.call("files.read", { path: "/tmp/bench-1m" });
  const read = performance.now() - r0;
  await connected.value.close();
  return { t, read };
};
try {
  if (!docker.snapshots) throw new Error("this build's Docker provider has no snapshot hooks");
  await run(client, ["sh", "-c", "head -c 104857600 /dev/urandom > /tmp/bench-100m && head -c 1048576 /dev/urandom > /tmp/bench-1m && sync"]);
  const r0 = performance.now();
  await client.call("files.read", { path: "/tmp/bench-1m" });
  const parentRead = performance.now() - r0;

  const takes = [];
  const commits = [];
  let snapshot;
  for (let i = 0; i < rounds; i += 1) {
    const order = i % 2 === 0 ? ["take", "commit"] : ["commit", "take"];
    for (const step of order) {
      if (step === "take" && snapshot) {
        // Removed before the next take, untimed: a snapshot is content-addressed, so the next take of the same files is the same image.
        const removed = await docker.snapshots.remove(snapshot.image);
        if (!removed.ok) throw new Error(`remove: ${removed.error.message}`);
      }
      const t0 = performance.now();
      if (step === "take") {
        const taken = await take(ref, { labels: { "agentrun.bench": tag } });
        if (!taken.ok) throw new Error(`take: ${taken.error.message}`);
        takes.push(performance.now() - t0);
        snapshot = taken.value;
      } else {
        sh("commit", ref.id, tag);
        commits.push(performance.now() - t0);
        sh("image", "rm", tag);
      }
    }
  }
  console.log(
    `snapshot of a computer that wrote 100 MiB: median ${ms(median(takes))} (${takes.map(ms).join(", ")}); size ${(snapshot.sizeBytes / 2 ** 20).toFixed(1)} MiB`,
  );
  console.log(`docker commit of the same container (the anchor): median ${ms(median(commits))} (${commits.map(ms).join(", ")})`);
  const takeRatio = median(takes) / median(commits);
  console.log(`ratio ${takeRatio.toFixed(2)}× (goal ≤ 1.2×: ${takeRatio <= 1.2 ? "met" : "not met"})`);

  // Ten at once, forks then colds; each batch's wall time and each computer's own.
  const batch = async (image, fork) => {
    const t0 = performance.now();
    const settled = await Promise.allSettled(Array.from({ length: forks }, () => toFirstExec(image, fork)));
    const wall = performance.now() - t0;
    // Every create settled first, so none is still making a computer from the snapshot at its removal.
    await Promise.all(made.splice(0).map((m) => docker.release(m, "delete")));
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    return { wall, each: settled.map((s) => s.value) };
  };
  const forked = await batch(snapshot.image, true);
  const cold = await batch(toolchain.baseImage, false);
  console.log(
    `${forks} forks from the snapshot, at once, to each one's first exec.run: ${ms(forked.wall)} (each: median ${ms(median(forked.each.map((e) => e.t)))})`,
  );
  console.log(`${forks} cold creates of the base image (the anchor): ${ms(cold.wall)} (each: median ${ms(median(cold.each.map((e) => e.t)))})`);
  const forkRatio = forked.wall / cold.wall;
  console.log(`ratio ${forkRatio.toFixed(2)}× (goal ≤ 1.0×: ${forkRatio <= 1.0 ? "met" : "not met"})`);
  console.log(`a fork's first read of a 1 MiB snapshot file: median ${ms(median(forked.each.map((e) => e.read)))}; in its parent ${ms(parentRead)}`);
  console.log(`load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`);
} finally {
  await Promise.allSettled(made.map((m) => docker.release(m, "delete")));
  await releaseForks();
  await removeImages();
  await computer.remove();
}
