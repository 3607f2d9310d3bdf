// What a create reads of an image's /etc before the computer starts (its user's passwd and group,
// and where a trust bundle may be), on the first create of each image in every up (each up starts
// a new plugin): the library's read (src/docker/user-name.ts, one archive call of /etc whole, a new
// cache each round), beside the nine archive calls at once, one a file, that it made before
// (2026-12-06), and one archive call of /etc/passwd alone (the least any read costs), alternated,
// on one created (never started) container of the set-up's base image, removed by its exact name at
// the end and when stopped half-way (SIGINT, SIGTERM).
// Run after `npm run build`: node bench/image-etc.mjs [rounds]
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { DockerEngine } from "../dist/src/docker/index.js";
import { ImageEtcCache } from "../dist/src/docker/user-name.js";
import { IMAGE_ROOTS, SYSTEM_BUNDLES } from "../dist/src/egress/trust-store.js";
import { onStop } from "./stop.mjs";

const rounds = Number(process.argv[2] ?? 15);
const toolchain = JSON.parse(readFileSync(new URL("../dist/toolchain.json", import.meta.url), "utf8"));
const name = `agentrun-bench-image-etc-${randomBytes(4).toString("hex")}`;
const engine = new DockerEngine();
const cleanup = onStop(async () => {
  execFileSync("docker", ["rm", "--force", "--volumes", name], { stdio: "ignore" });
  await engine.close();
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = async (f) => {
  const t0 = performance.now();
  const out = await f();
  return [performance.now() - t0, out];
};
const archive = (path) => engine.raw("GET", `/containers/${id}/archive`, { query: { path }, timeoutMs: 30_000 });

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} at the start`,
);
const id = execFileSync("docker", ["create", "--name", name, "--network", "none", toolchain.baseImage, "sleep", "60"], { encoding: "utf8" }).trim();
const image = JSON.parse(execFileSync("docker", ["inspect", id], { encoding: "utf8" }))[0].Image;
try {
  const times = { library: [], nine: [], one: [] };
  for (let i = 0; i < rounds; i += 1) {
    const [library, read] = await ms(() => new ImageEtcCache().read(engine, image, id, {}));
    if (!read.ok) throw new Error(read.error.message);
    const [nine, replies] = await ms(() => Promise.all(["/etc/passwd", "/etc/group", IMAGE_ROOTS, ...SYSTEM_BUNDLES].map(archive)));
    if (replies.some((r) => !r.ok && r.status !== 404)) throw new Error("an archive call failed");
    const [one] = await ms(() => archive("/etc/passwd"));
    times.library.push(library);
    times.nine.push(nine);
    times.one.push(one);
  }
  const m = (k) => median(times[k]).toFixed(0);
  console.log(`the library's read of the image's /etc: median ${m("library")} ms over ${rounds} rounds`);
  console.log(
    `nine archive calls at once, one a file (before 2026-12-06): median ${m("nine")} ms (${(median(times.nine) / median(times.library)).toFixed(2)}x the library's)`,
  );
  console.log(`one archive call of /etc/passwd alone: median ${m("one")} ms`);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} at the end`,
  );
} finally {
  await cleanup();
}
