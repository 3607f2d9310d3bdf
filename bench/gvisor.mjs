// gVisor's cost on Docker, or on the test Kubernetes cluster (RuntimeClass gvisor): create-to-ready (create, which ends with hello and the drift check),
// one exec.run of `true`, a 100 MiB writeFile into /work and a CPU-bound program (sha256 of
// 64 MiB of zeros), each under runtime gvisor beside the same under runc, in the same run and
// alternating, one computer of each at a time. Every computer is released by its name, when
// stopped half-way (SIGINT, SIGTERM) too.
//
//   node bench/gvisor.mjs [rounds] [execs] [docker|kubernetes]   (default 5, 50 and docker; needs dist/ from
//   npm run build and runsc registered with the engine, or the test cluster up: npm run kube:up)
import { resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const load = (p) => import(resolve(root, p));
const { DockerProvider } = await load("dist/src/docker/provider.js");
const kubernetes = await load("dist/src/kubernetes/index.js");
const { writeFile } = await load("dist/src/daemon/files.js");
const { releaseOnStop } = await load("bench/stop.mjs");
const toolchain = JSON.parse(readFileSync(resolve(root, "dist/toolchain.json"), "utf8"));
const rounds = Number(process.argv[2] ?? 5);
const execs = Number(process.argv[3] ?? 50);
const where = process.argv[4] ?? "docker";
if (where !== "docker" && where !== "kubernetes") throw new Error(`the bench runs on docker or kubernetes, not ${where}`);
const kube = where === "kubernetes" ? JSON.parse(readFileSync(resolve(root, "dist/kube.json"), "utf8")) : undefined;
// On the cluster: its image by digest and its gVisor class.
const provider = kube
  ? kubernetes.create({ kubeconfig: readFileSync(kube.kubeconfig, "utf8"), gvisorRuntimeClass: kube.gvisorRuntimeClass })
  : new DockerProvider({ daemonPath: toolchain.daemon.amd64 });
const image = kube ? kube.image : toolchain.baseImage;
// A stop releases the computer of the round under way (its create awaited first), then closes the engine.
const cleanup = releaseOnStop(provider, () => provider.close?.());
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const times = { runc: { create: [], exec: [], write: [], cpu: [] }, gvisor: { create: [], exec: [], write: [], cpu: [] } };
const big = new Uint8Array(100 * 1024 * 1024).fill(7);

async function round(runtime) {
  const t = times[runtime];
  let start = performance.now();
  const made = await provider.create({
    image,
    lifetimeMs: 600_000,
    network: "none",
    memoryMb: 1024,
    labels: { "agentrun.bench": "gvisor" },
    ...(runtime === "gvisor" ? { runtime } : {}),
  });
  if (!made.ok) throw new Error(made.error.message);
  t.create.push(performance.now() - start);
  const connection = await provider.connect(made.value);
  try {
    if (!connection.ok) throw new Error(connection.error.message);
    const { client } = connection.value;
    for (let i = 0; i < execs; i++) {
      start = performance.now();
      await client.call("exec.run", { argv: ["true"], timeoutMs: 30_000 });
      t.exec.push(performance.now() - start);
    }
    start = performance.now();
    const written = await writeFile(client, "/work/big", big);
    if (!written.ok) throw new Error(written.error.message);
    t.write.push(performance.now() - start);
    start = performance.now();
    const cpu = await client.call("exec.run", { argv: ["sh", "-c", "head -c 67108864 /dev/zero | sha256sum"], timeoutMs: 120_000 });
    if (cpu.exitCode !== 0) throw new Error(`the CPU-bound program exited ${cpu.exitCode}`);
    t.cpu.push(performance.now() - start);
  } finally {
    if (connection.ok) await connection.value.close();
    await provider.release(made.value, "delete");
  }
}

try {
  for (let i = 0; i < rounds; i++) for (const runtime of i % 2 ? ["gvisor", "runc"] : ["runc", "gvisor"]) await round(runtime);
} finally {
  await cleanup();
}
console.log(
  `on ${where}; load after: ${(await import("node:os"))
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
console.log(`| what (median of ${rounds} computers each; exec.run of ${execs} per computer) | runc | gvisor | gvisor / runc |`);
console.log("| --- | --- | --- | --- |");
for (const [key, words] of [
  ["create", "create to ready (hello and drift check done)"],
  ["exec", "exec.run of true"],
  ["write", "writeFile of 100 MiB to /work"],
  ["cpu", "sha256sum of 64 MiB (CPU-bound)"],
]) {
  const a = median(times.runc[key]);
  const b = median(times.gvisor[key]);
  console.log(`| ${words} | ${a.toFixed(1)} ms | ${b.toFixed(1)} ms | ${(b / a).toFixed(2)}x |`);
}
