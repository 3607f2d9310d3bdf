// `pulumi up` of a fleet of N Computers on the test cluster (npm run kube:up), less the engine's own
// no-op up, beside its anchor in the same run: the same N Pods (podManifest, its command a sleep)
// made by N parallel `kubectl apply` + `kubectl wait --for=condition=Ready`, kubectl the one built
// from the same module. The anchor runs before the up and again after the destroy, and the figure
// is held to the mean of both (the machine is shared, and its load moves in minutes). The up runs
// at --parallel N, as the anchor runs N at once. Everything made is deleted, pass or fail: the
// anchor's Pods by their label, the stack by destroy, then any Pod still carrying the fleet's label.
// Everything is made in a namespace of its own (agentrun-bench-fleet, made when missing and then
// deleted), as the test cluster is shared. The same when stopped half-way (SIGINT, SIGTERM).
// Usage (as root, after npm run build and npm run kube:up): node bench/kube-fleet.mjs [N]
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { podManifest } from "../dist/src/kubernetes/index.js";
import { benchStack, root } from "./pulumi-stack.mjs";
import { onStop } from "./stop.mjs";

const run = promisify(execFile);
const n = Number(process.argv[2] ?? 50);
const kube = JSON.parse(await readFile(join(root, "dist/kube.json"), "utf8"));
const NAMESPACE = "agentrun-bench-fleet";
const kubectl = (...args) => run(kube.kubectl, ["--kubeconfig", kube.kubeconfig, "-n", NAMESPACE, ...args], { maxBuffer: 16 << 20 });
const seconds = async (f) => {
  const t0 = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t0) / 1e9;
};
const load = () => loadavg()[0].toFixed(1);
const lifetimeMs = 1_800_000;
const anchorLabel = `kube-fleet-anchor-${process.pid}`;
const fleetLabel = `kube-fleet-${process.pid}`;
const stack = await benchStack("agentrun-bench-kube-fleet-");
const { dir, env, pulumi, program, init } = stack;
// Registered after the stack's folder, so it runs before the folder goes; what exists when it
// runs: the namespace, once this run made it, and the manifests' folder, once made.
let madeNamespace = false;
let manifests;
const cleanup = onStop(async () => {
  await pulumi("destroy", "--yes", "--skip-preview", "--parallel", String(n)).catch((e) => console.error(`destroy: ${e.message}`));
  await kubectl("delete", "pods", "-l", `agentrun.bench=${anchorLabel}`, "--ignore-not-found", "--wait=true").catch((e) => console.error(e.message));
  const left = (await kubectl("get", "pods", "-o", "name", "-l", `bench=${fleetLabel}`)).stdout.trim();
  if (left) {
    console.error(`left after destroy, deleting: ${left.replace(/\n/g, " ")}`);
    await kubectl("delete", "pods", "-l", `bench=${fleetLabel}`, "--wait=true");
  }
  if (madeNamespace) await kubectl("delete", "namespace", NAMESPACE, "--wait=true", "--timeout=300s").catch((e) => console.error(e.message));
  await stack.remove();
  if (manifests) await rm(manifests, { recursive: true, force: true });
});
madeNamespace = (await kubectl("get", "namespace", NAMESPACE, "--ignore-not-found", "-o", "name")).stdout.trim() === "";
if (madeNamespace) await kubectl("create", "namespace", NAMESPACE);
const resources = Object.fromEntries(
  Array.from({ length: n }, (_, i) => [
    `c${i}`,
    { type: "agentrun:index:Computer", properties: { provider: "kubernetes", image: kube.image, lifetimeMs, network: "none", labels: { bench: fleetLabel } } },
  ]),
);
await program("agentrun-bench-kube-fleet", resources);
await init();
// The kubeconfig (a secret) through stdin, never on a command line.
const config = (key, value, secret) =>
  execFileSync(
    join(env.PATH.split(":")[0], "pulumi"),
    ["config", "set", ...(secret ? ["--secret"] : []), "--path", `agentrun:kubernetes.${key}`, "--stack", "bench", "--non-interactive"],
    {
      cwd: dir,
      env,
      input: value,
    },
  );
config("kubeconfig", await readFile(kube.kubeconfig, "utf8"), true);
config("namespace", NAMESPACE, false);

manifests = await mkdtemp(join(tmpdir(), "agentrun-bench-kube-fleet-pods-"));
/** N Pods by N parallel kubectl apply + wait Ready; their delete after is not timed. */
async function anchor(round) {
  const names = Array.from({ length: n }, (_, i) => `bench-kube-fleet-${process.pid}-${round}-${i}`);
  const files = await Promise.all(
    names.map(async (name) => {
      const manifest = podManifest({
        name,
        namespace: NAMESPACE,
        deadline: new Date(Date.now() + lifetimeMs).toISOString(),
        lifetimeMs,
        recorded: { image: kube.image, user: "2510:2510", workdir: "/work" },
        labels: { "agentrun.bench": anchorLabel },
        arch: "amd64",
        pullPolicy: "IfNotPresent",
        waitSeconds: 1,
      });
      manifest.spec.containers[0].command = ["sleep", "1800"];
      const file = join(manifests, `${name}.json`);
      await writeFile(file, JSON.stringify(manifest));
      return { name, file };
    }),
  );
  const took = await seconds(() =>
    Promise.all(
      files.map(async ({ name, file }) => {
        await kubectl("apply", "-f", file);
        await kubectl("wait", "--for=condition=Ready", `pod/${name}`, "--timeout=600s");
      }),
    ),
  );
  await kubectl("delete", "pods", "-l", `agentrun.bench=${anchorLabel}`, "--wait=true", "--timeout=300s");
  return took;
}

try {
  const loads = [load()];
  const before = await anchor(0);
  loads.push(load());
  const parallel = ["--parallel", String(n)];
  const up = await seconds(() => pulumi("up", "--yes", "--skip-preview", ...parallel));
  loads.push(load());
  const again = await seconds(() => pulumi("up", "--yes", "--skip-preview", ...parallel));
  const destroy = await seconds(() => pulumi("destroy", "--yes", "--skip-preview", ...parallel));
  loads.push(load());
  const after = await anchor(1);
  loads.push(load());
  const floor = (before + after) / 2;
  console.log(
    `${n} Pods by parallel kubectl apply + wait Ready (the anchor): ${before.toFixed(1)} s before, ${after.toFixed(1)} s after (mean ${floor.toFixed(1)} s)`,
  );
  console.log(`pulumi up of ${n} Computers on Kubernetes, --parallel ${n}: ${up.toFixed(1)} s; destroy ${destroy.toFixed(1)} s`);
  console.log(
    `pulumi up again, nothing to do (the engine's own cost): ${again.toFixed(1)} s; up less that: ${(up - again).toFixed(1)} s: ${((up - again) / floor).toFixed(2)}x the anchor (bound 1.3x)`,
  );
  console.log(`load average (1 min) at each step: ${loads.join(", ")}`);
} finally {
  await cleanup();
}
