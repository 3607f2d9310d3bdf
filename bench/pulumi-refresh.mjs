// `pulumi refresh` of a stack of N computers (default 50) beside the engine's own refresh of the
// same stack with every Computer excluded (no read asked of the plugin: the engine, the YAML host
// and the plugin's start), in the same run; then where a refresh's reads go: the library's reads
// of the same N computers in this process, 8 at once as the engine runs them (its default
// --parallel), and, 8 at once, an inspect alone, the way in a read takes on an engine of this
// machine (init's socket through the computer's root in /proc: a connect and hello) and the bridge
// any client takes (an exec, its start and hello), so what is left of a read (/work's mode, the
// drift check) shows. Beside each refresh's time, the plugins' CPU time in it (the YAML host's and
// the engine's), which a loaded machine stretches less. The goal is refresh of 50 <= 3 s. The stack's destroy removes what it made; the folder goes with it.
// Usage: node bench/pulumi-refresh.mjs [N]   (after npm run setup)
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pluginCpu } from "./proc-memory.mjs";
import { benchStack, removeLeft, root, tools } from "./pulumi-stack.mjs";
import { onStop } from "./stop.mjs";

const n = Number(process.argv[2] ?? 50);
const AT_ONCE = 8;
const { dir, pulumi, program, init, remove } = await benchStack("agentrun-bench-refresh-");
const tag = `pulumi-refresh-${randomBytes(4).toString("hex")}`;
const cleanup = onStop(async () => {
  await pulumi("destroy", "--yes", "--skip-preview").catch((e) => console.error(`destroy: ${e.message}`));
  await removeLeft(`agentrun.bench=${tag}`);
  await remove();
});
const seconds = async (f) => {
  const t0 = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t0) / 1e9;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const resources = Object.fromEntries(
  Array.from({ length: n }, (_, i) => [
    `c${i}`,
    {
      type: "agentrun:index:Computer",
      properties: { image: tools.baseImage, lifetimeMs: 600_000, network: "none", cpus: 1, memoryMb: 256, labels: { "agentrun.bench": tag } },
    },
  ]),
);
await program("agentrun-bench-refresh", resources);
await init();

try {
  await pulumi("up", "--yes", "--skip-preview", "--parallel", String(n));
  // A refresh's wall time, and the CPU its plugins used.
  const cpu = {};
  const timedRefresh = async (what, ...args) => {
    const used = pluginCpu(dir);
    try {
      return await seconds(() => pulumi("refresh", "--yes", "--skip-preview", ...args));
    } finally {
      used.stop();
      cpu[what] = `${used.seconds().toFixed(2)} s in ${used.plugins()} plugin${used.plugins() === 1 ? "" : "s"}`;
    }
  };
  const refresh = await timedRefresh("refresh");
  const engine = await timedRefresh("engine", "--exclude", "**agentrun:index:Computer**");
  const again = await timedRefresh("again");

  // Where a read goes: the library's reads of the same computers in this process, AT_ONCE at a
  // time as the engine runs them, and apart from them an inspect alone and a connect alone (the
  // bridge's exec, its start and hello), so the rest of a read (/work's mode, the drift check) shows.
  const { DockerProvider } = await import(join(root, "dist/src/docker/index.js"));
  const { openLocalConnection } = await import(join(root, "dist/src/docker/local-socket.js"));
  const exported = JSON.parse((await pulumi("stack", "export")).stdout);
  const ids = exported.deployment.resources.filter((r) => r.type === "agentrun:index:Computer").map((r) => r.id);
  const docker = new DockerProvider({ daemonPath: tools.daemon.amd64 });
  const timed = { read: [], inspect: [], socket: [], connect: [] };
  const eachAtOnce = (f) =>
    seconds(async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: AT_ONCE }, async () => {
          while (next < ids.length) await f(ids[next++]);
        }),
      );
    });
  const time = async (what, f) => {
    const t0 = performance.now();
    const out = await f();
    timed[what].push(performance.now() - t0);
    return out;
  };
  const library = await eachAtOnce(async (id) => {
    const read = await time("read", () => docker.read({ id }));
    if (!read.ok || read.value.drift.length) throw new Error(`read ${id}: ${read.ok ? read.value.drift.join("; ") : read.error.message}`);
  });
  const inspected = new Map();
  await eachAtOnce(async (id) => inspected.set(id, (await time("inspect", () => docker.engine.call("GET", `/containers/${id}/json`))).value));
  await eachAtOnce(async (id) => {
    const c = await time("socket", () => openLocalConnection(docker.engine.address, inspected.get(id)));
    if (!c?.ok) throw new Error(`init's socket in ${id} was not reached from this machine: ${c ? c.error.message : "no way"}`);
    await c.value.close();
  });
  await eachAtOnce(async (id) => {
    const c = await time("connect", () => docker.connect({ id, name: id, provider: "docker", spec: { kind: "linux" } }));
    if (c.ok) await c.value.close();
  });
  await docker.engine.close();

  console.log(`pulumi refresh of ${n} computers: ${refresh.toFixed(2)} s, again ${again.toFixed(2)} s (goal <= 3 s)`);
  console.log(`the engine's own refresh of the same stack, every Computer excluded (no read): ${engine.toFixed(2)} s`);
  console.log(`refresh less the engine's own: ${(refresh - engine).toFixed(2)} s, ${(again - engine).toFixed(2)} s`);
  console.log(`the plugins' CPU time (user + system): refresh ${cpu.refresh}, again ${cpu.again}; the engine's own refresh ${cpu.engine}`);
  const m = (what) => `${median(timed[what]).toFixed(1)} ms`;
  console.log(`the library's ${n} reads in this process, ${AT_ONCE} at once: ${library.toFixed(2)} s; one read's median ${m("read")}`);
  console.log(
    `  of a read, ${AT_ONCE} at once, medians: an inspect alone ${m("inspect")}, init's socket from this machine alone (connect, hello) ${m("socket")}; the bridge a client takes (exec, start, hello) ${m("connect")}`,
  );
  console.log(`load average ${loadavg()[0].toFixed(1)} (a machine shared with other work: read the figures beside each other)`);
} finally {
  await cleanup();
}
