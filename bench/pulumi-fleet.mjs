// `pulumi up` of a fleet of N computers beside N bare `docker run -d` of the same image started
// in parallel (the floor), in the same run; then `pulumi refresh` of that fleet. Everything it
// makes it removes by exact name. Usage: node bench/pulumi-fleet.mjs [N]   (after npm run setup)
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const n = Number(process.argv[2] ?? 10);
const root = new URL("../", import.meta.url).pathname;
const tools = JSON.parse(await readFile(join(root, "dist/toolchain.json"), "utf8"));
const image = tools.baseImage;
const dir = await mkdtemp(join(tmpdir(), "agentrun-bench-fleet-"));
const env = {
  ...process.env,
  PATH: `${tools.pulumiBin}:${process.env.PATH}`,
  PULUMI_BACKEND_URL: `file://${dir}/state`,
  PULUMI_CONFIG_PASSPHRASE: "bench",
  PULUMI_SKIP_UPDATE_CHECK: "true",
  PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
};
const pulumi = (...args) => run(`${tools.pulumiBin}/pulumi`, [...args, "--stack", "bench", "--non-interactive"], { cwd: dir, env, maxBuffer: 64 << 20 });
const seconds = async (f) => { const t0 = process.hrtime.bigint(); await f(); return Number(process.hrtime.bigint() - t0) / 1e9; };

const resources = Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, {
  type: "agentrun:index:Computer",
  properties: { image, lifetimeMs: 600_000, network: "none", cpus: 1, memoryMb: 256 },
}]));
const yaml = (await import("yaml")).stringify({
  name: "agentrun-bench-fleet", runtime: "yaml",
  plugins: { providers: [{ name: "agentrun", path: join(root, "provider/bin") }] },
  resources,
});
await run("mkdir", ["-p", `${dir}/state`]);
await writeFile(join(dir, "Pulumi.yaml"), yaml);
await run(`${tools.pulumiBin}/pulumi`, ["stack", "init", "bench", "--non-interactive"], { cwd: dir, env });

const bare = Array.from({ length: n }, (_, i) => `agentrun-bench-bare-${process.pid}-${i}`);
try {
  const floor = await seconds(() => Promise.all(bare.map((name) =>
    run("docker", ["run", "-d", "--name", name, "--network", "none", "--user", "1000:1000", image, "sleep", "600"]))));
  const up = await seconds(() => pulumi("up", "--yes", "--skip-preview"));
  const again = await seconds(() => pulumi("up", "--yes", "--skip-preview"));
  const refresh = await seconds(() => pulumi("refresh", "--yes", "--skip-preview"));
  console.log(`${n} bare docker run -d in parallel (the floor): ${floor.toFixed(1)} s`);
  console.log(`pulumi up of ${n} computers: ${up.toFixed(1)} s (${(up / floor).toFixed(2)}x the floor)`);
  console.log(`pulumi up again, nothing to do (the engine's own cost): ${again.toFixed(1)} s; up less that: ${(up - again).toFixed(1)} s (${((up - again) / floor).toFixed(2)}x the floor; goal <= 1.3x)`);
  console.log(`pulumi refresh of ${n} computers: ${refresh.toFixed(1)} s (goal <= 5 s)`);
} finally {
  await pulumi("destroy", "--yes", "--skip-preview").catch((e) => console.error(`destroy: ${e.message}`));
  await run("docker", ["rm", "-f", ...bare]).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}
