// `pulumi up` of a fleet of N computers beside N bare `docker run -d` of the same image started
// in parallel (the floor), in the same run; then `pulumi refresh` of that fleet. The up runs with
// --parallel N, as the floor runs N at once: the engine's own default on this 2-CPU machine is 8
// (`pulumi up --help`), so an up of 10 goes in two waves; that up is timed too, after a destroy.
// Everything it makes it removes by exact name or by its run's label, when stopped half-way
// (SIGINT, SIGTERM) too. Usage: node bench/pulumi-fleet.mjs [N]   (after
// npm run setup)
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpus } from "node:os";
import { promisify } from "node:util";
import { benchStack, removeLeft, tools } from "./pulumi-stack.mjs";
import { onStop } from "./stop.mjs";

const run = promisify(execFile);
const n = Number(process.argv[2] ?? 10);
const { pulumi, program, init, remove } = await benchStack("agentrun-bench-fleet-");
const tag = `pulumi-fleet-${randomBytes(4).toString("hex")}`;
const bare = Array.from({ length: n }, (_, i) => `agentrun-bench-bare-${process.pid}-${i}`);
// Its computers by the stack's destroy, then any its label still marks (a create a stop cut short); its anchors by name.
const cleanup = onStop(async () => {
  await pulumi("destroy", "--yes", "--skip-preview").catch((e) => console.error(`destroy: ${e.message}`));
  await removeLeft(`agentrun.bench=${tag}`);
  await run("docker", ["rm", "-f", ...bare]).catch(() => undefined);
  await remove();
});
const image = tools.baseImage;
const seconds = async (f) => {
  const t0 = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t0) / 1e9;
};

const resources = Object.fromEntries(
  Array.from({ length: n }, (_, i) => [
    `c${i}`,
    {
      type: "agentrun:index:Computer",
      properties: { image, lifetimeMs: 600_000, network: "none", cpus: 1, memoryMb: 256, labels: { "agentrun.bench": tag } },
    },
  ]),
);
await program("agentrun-bench-fleet", resources);
await init();

try {
  const floor = await seconds(() =>
    Promise.all(bare.map((name) => run("docker", ["run", "-d", "--name", name, "--network", "none", "--user", "1000:1000", image, "sleep", "600"]))),
  );
  const parallel = ["--parallel", String(n)];
  const up = await seconds(() => pulumi("up", "--yes", "--skip-preview", ...parallel));
  const again = await seconds(() => pulumi("up", "--yes", "--skip-preview", ...parallel));
  const refresh = await seconds(() => pulumi("refresh", "--yes", "--skip-preview"));
  await pulumi("destroy", "--yes", "--skip-preview");
  const byDefault = await seconds(() => pulumi("up", "--yes", "--skip-preview"));
  console.log(`${n} bare docker run -d in parallel (the floor): ${floor.toFixed(1)} s`);
  console.log(`pulumi up of ${n} computers, --parallel ${n}: ${up.toFixed(1)} s (${(up / floor).toFixed(2)}x the floor)`);
  console.log(
    `pulumi up again, nothing to do (the engine's own cost): ${again.toFixed(1)} s; up less that: ${(up - again).toFixed(1)} s (${((up - again) / floor).toFixed(2)}x the floor; goal <= 1.3x)`,
  );
  console.log(`pulumi refresh of ${n} computers: ${refresh.toFixed(1)} s (goal <= 5 s)`);
  console.log(
    `pulumi up of ${n} at the engine's default parallelism (${cpus().length} CPUs here): ${byDefault.toFixed(1)} s; less the no-op up ${((byDefault - again) / floor).toFixed(2)}x the floor`,
  );
} finally {
  await cleanup();
}
