// Snapshots and forks on Kubernetes (the test cluster, npm run kube:up), each beside its anchor in
// the same run, alternating which goes first:
// - a snapshot (KubernetesProvider.snapshots.take: the home read through the daemon, the image
//   pushed to the cluster's registry by the distribution API) of a computer that wrote MiB of
//   random bytes in its home, beside `docker commit` + `docker push` to the same registry of a
//   container of the same base image that wrote the same number of bytes in the same place;
// - a fork (create from the snapshot's image, to its first exec.run) beside a cold create of the
//   base image the same way.
// Each round writes new bytes on both sides first (untimed), so every upload is a real one.
// Every computer is released, every snapshot removed, the anchor's container, images and pushed
// manifest removed by their names, pass or fail, and when stopped half-way (SIGINT, SIGTERM) too.
//
//   node bench/kube-snapshot.mjs [rounds] [MiB]   (defaults 3 100; after `npm run build`, as root)
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import { create } from "../dist/src/kubernetes/index.js";
import { parseKubeconfig } from "../dist/src/kubernetes/kubeconfig.js";
import { registryCall } from "../dist/src/kubernetes/registry.js";
import { onStop, releaseOnStop } from "./stop.mjs";

const rounds = Number(process.argv[2] ?? 3);
const mib = Number(process.argv[3] ?? 100);
const kube = JSON.parse(readFileSync(new URL("../dist/kube.json", import.meta.url), "utf8"));
const kubeconfig = readFileSync(kube.kubeconfig, "utf8");
const provider = create({ kubeconfig });
const REGISTRY = kube.image.slice(0, kube.image.indexOf("/"));
const id = randomBytes(6).toString("hex");
const anchorRepo = `${REGISTRY}/agentrun-bench-commit`;
const container = `agentrun-bench-commit-${id}`;
const reach = { ca: parseKubeconfig(kubeconfig).ca, ms: 30_000 };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(0)} ms`;
const docker = (...args) => execFileSync("docker", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const spec = { image: kube.image, lifetimeMs: 3_600_000, network: "none", cpus: 0.5, memoryMb: 512 };
const write = `head -c ${mib * 1048576} /dev/urandom > /work/bench-data && sync`;

const snapshots = new Set();
const pushed = new Set();
const releaseComputers = releaseOnStop(provider);
const removeRest = onStop(async () => {
  for (const image of snapshots) {
    const removed = await provider.snapshots.remove(image);
    if (!removed.ok) console.error(`the snapshot ${image} is left: ${removed.error.message}`);
  }
  for (const digest of pushed) await registryCall(REGISTRY, `/v2/agentrun-bench-commit/manifests/${digest}`, reach, { method: "DELETE" });
  for (const args of [
    ["rm", "--force", container],
    ["image", "rm", "--force", `${anchorRepo}:${id}`],
  ])
    try {
      docker(...args);
    } catch {
      // Gone already.
    }
});

const made = async (image) => {
  const t0 = performance.now();
  const ref = await provider.create({ ...spec, image });
  if (!ref.ok) throw new Error(`create from ${image}: ${ref.error.message}`);
  const c = await provider.connect(ref.value);
  if (!c.ok) throw new Error(`connect: ${c.error.message}`);
  const ran = await c.value.client.call("exec.run", { argv: ["true"], timeoutMs: 60_000 });
  if (ran.exitCode !== 0) throw new Error("exec.run true failed");
  return { ref: ref.value, client: c.value.client, close: () => c.value.close(), t: performance.now() - t0 };
};

try {
  console.log(`load before: ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores; ${mib} MiB written in the home`);
  const parent = await made(kube.image);
  docker("pull", "-q", kube.image);
  docker("run", "-d", "--name", container, "--network", "none", kube.image, "sleep", "3600");
  const takes = [];
  const anchors = [];
  let snapshot;
  for (let i = 0; i < rounds; i += 1) {
    // New bytes each round, untimed, on both sides: no round finds its layer in the registry already.
    const wrote = await parent.client.call("exec.run", { argv: ["sh", "-c", write], timeoutMs: 300_000 });
    if (wrote.exitCode !== 0) throw new Error("the computer could not write its bytes");
    docker("exec", container, "sh", "-c", `mkdir -p /work && ${write}`);
    for (const step of i % 2 === 0 ? ["take", "anchor"] : ["anchor", "take"]) {
      if (step === "take") {
        // The previous one removed first, untimed.
        if (snapshot) await provider.snapshots.remove(snapshot.image);
        const t0 = performance.now();
        const taken = await provider.snapshots.take(parent.ref);
        if (!taken.ok) throw new Error(`take: ${taken.error.message}`);
        takes.push(performance.now() - t0);
        snapshot = taken.value;
        snapshots.add(snapshot.image);
      } else {
        const t0 = performance.now();
        docker("commit", container, `${anchorRepo}:${id}`);
        const out = execFileSync("docker", ["push", `${anchorRepo}:${id}`], { encoding: "utf8" });
        anchors.push(performance.now() - t0);
        const digest = /digest: (sha256:[0-9a-f]{64})/.exec(out)?.[1];
        if (digest) pushed.add(digest);
        docker("image", "rm", `${anchorRepo}:${id}`);
      }
    }
  }
  console.log(`take: median ${ms(median(takes))} (${takes.map(ms).join(", ")}); its own layer ${(snapshot.sizeBytes / 2 ** 20).toFixed(1)} MiB`);
  console.log(`docker commit + docker push of the same bytes (the anchor): median ${ms(median(anchors))} (${anchors.map(ms).join(", ")})`);
  console.log(`ratio ${(median(takes) / median(anchors)).toFixed(2)}×`);
  const forks = [];
  const colds = [];
  for (let i = 0; i < rounds; i += 1) {
    for (const step of i % 2 === 0 ? ["fork", "cold"] : ["cold", "fork"]) {
      const c = await made(step === "fork" ? snapshot.image : kube.image);
      (step === "fork" ? forks : colds).push(c.t);
      await c.close();
      await provider.release(c.ref, "delete");
    }
  }
  console.log(`a fork to its first exec.run (its home of ${mib} MiB put back): median ${ms(median(forks))} (${forks.map(ms).join(", ")})`);
  console.log(`a cold create of the base image to its first exec.run (the anchor): median ${ms(median(colds))} (${colds.map(ms).join(", ")})`);
  console.log(`ratio ${(median(forks) / median(colds)).toFixed(2)}×; load after: ${os.loadavg()[0].toFixed(1)}`);
  await parent.close();
} finally {
  await releaseComputers();
  await removeRest();
}
