// What the desktop benches share: a Docker desktop made by the provider itself (its desktop
// image with the anchors' tools on top: xwd and ImageMagick for a shot, xdotool for a click), a
// connection to its daemon, the desktop fixture on its screen, and docker exec for the anchors.
// After `npm run build` (dist/) and scripts/build-daemon.sh (the fixture).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { onStop } from "./stop.mjs";

const ROOT = join(import.meta.dirname, "..");
const { DockerProvider, ensureImage } = await import(join(ROOT, "dist", "src", "docker", "index.js"));
const { writeFile } = await import(join(ROOT, "dist", "src", "index.js"));

export const toolchain = JSON.parse(readFileSync(join(ROOT, "dist", "toolchain.json"), "utf8"));
export const daemonPath = toolchain.daemon[process.arch === "arm64" ? "arm64" : "amd64"];
const fixturePath = join(ROOT, "dist", `computerd-fixture-linux-${process.arch === "arm64" ? "arm64" : "amd64"}`);

export const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

/**
 * A desktop with the anchors' tools, the fixture running on it, and its connection; remove()
 * releases it, once: a stop (SIGINT, SIGTERM) too, from the moment its create starts.
 */
export async function makeDesktop() {
  const docker = new DockerProvider({ daemonPath, desktop: {} });
  let making;
  let connection;
  const remove = onStop(async () => {
    await connection?.close().catch(() => {});
    const made = await making?.catch(() => undefined);
    if (made?.ok) await docker.release(made.value, "delete");
    await docker.engine.close();
  });
  const base = await docker.image();
  if (!base.ok) throw new Error(`the desktop image: ${base.error.message}`);
  const recipe = [
    `FROM ${base.value}`,
    "RUN apt-get update \\",
    " && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends x11-apps imagemagick xdotool \\",
    " && rm -rf /var/lib/apt/lists/*",
    "",
  ].join("\n");
  const image = await ensureImage(
    { recipe },
    { docker: docker.cli, onWait: (m, tag) => console.error(`(${m === "build" ? "building" : "pulling"} ${tag}: the anchors' tools, once)`) },
  );
  if (!image.ok) throw new Error(`the bench image: ${image.error.message}`);
  making = docker.create({ image: image.value, lifetimeMs: 3_600_000, network: "none" });
  const made = await making;
  if (!made.ok) throw new Error(`create: ${made.error.message}`);
  const connected = await docker.connect(made.value);
  if (!connected.ok) {
    await remove();
    throw new Error(`connect: ${connected.error.message}`);
  }
  connection = connected.value;
  const { client } = connected.value;
  const wrote = await writeFile(client, "/work/computerd-fixture", readFileSync(fixturePath), { mode: 0o755 });
  if (!wrote.ok) {
    await remove();
    throw new Error(`the fixture: ${wrote.error.message}`);
  }
  await client.call("process.start", { argv: ["/work/computerd-fixture", "--log", "/work/fixture.log"], env: { DISPLAY: ":0" } });
  await new Promise((r) => setTimeout(r, 500));
  return {
    ref: made.value,
    client,
    /** A command in the computer through docker exec, on its display, as the computer's user. */
    exec: (script) => {
      const r = spawnSync("docker", ["exec", "-e", "DISPLAY=:0", made.value.name, "sh", "-c", script], { maxBuffer: 64 << 20 });
      if (r.status !== 0) throw new Error(`docker exec ${script}: ${r.stderr}`);
      return r.stdout;
    },
    remove,
  };
}
