// create-to-ready of an allowlisted computer (its volume, its proxy and the proxy's ready line,
// then the computer, and the read-back of both) beside a network none one, interleaved, medians
// taken. Goal (issue 11): <= 1.5x the none computer. The list names one host that nothing here
// ever connects to, so no traffic leaves the machine.
// Run after `npm run build`: node bench/egress-create.mjs [rounds]
import { readFileSync } from "node:fs";
import { DockerProvider } from "../dist/src/docker/index.js";

const rounds = Number(process.argv[2] ?? 5);
const toolchain = JSON.parse(readFileSync(new URL("../dist/toolchain.json", import.meta.url), "utf8"));
const image = toolchain.baseImage;
// In a container the host's addresses must be given; a documentation address stands in.
const docker = new DockerProvider({ daemonPath: toolchain.daemon.amd64, egress: { hostAddresses: ["192.0.2.1"] } });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(network) {
  const t0 = performance.now();
  const made = await docker.create({ image, lifetimeMs: 600_000, network });
  const ms = performance.now() - t0;
  if (!made.ok) throw new Error(made.error.message);
  await docker.release(made.value, "delete");
  return ms;
}

// One of each first: the host read, the daemon copy and the proxy's image are once per host.
await timed("none");
await timed({ allow: ["pypi.org"] });
const none = [];
const allow = [];
for (let i = 0; i < rounds; i += 1) {
  none.push(await timed("none"));
  allow.push(await timed({ allow: ["pypi.org"] }));
}
console.log(`create-to-ready, median of ${rounds} (interleaved; this machine is shared with other work):`);
console.log(`  network none (anchor)   ${median(none).toFixed(0)} ms`);
console.log(`  an allowlist            ${median(allow).toFixed(0)} ms  ${(median(allow) / median(none)).toFixed(2)}x (goal <= 1.5x)`);
