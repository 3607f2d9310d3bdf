// create-to-ready of an allowlisted computer (its volume, its proxy and the proxy's ready line,
// then the computer, and the read-back of both) beside a network none one, interleaved, medians
// taken. Goal (issue 11): <= 1.5x the none computer. Beside them, a computer joining a shared
// proxy made once (the EgressProxy resource's fleet): its create holds the proxy to its user and
// deadline but starts one container. The list names one host that nothing here ever connects
// to, so no traffic leaves the machine. Each computer is released as it is timed, the shared proxy
// at the end; when stopped half-way (SIGINT, SIGTERM) too, a create then in flight awaited first.
// Run after `npm run build`: node bench/egress-create.mjs [rounds]
import { readFileSync } from "node:fs";
import { DockerProvider } from "../dist/src/docker/index.js";
import { onStop, releaseOnStop } from "./stop.mjs";

const rounds = Number(process.argv[2] ?? 5);
const toolchain = JSON.parse(readFileSync(new URL("../dist/toolchain.json", import.meta.url), "utf8"));
const image = toolchain.baseImage;
// In a container the host's addresses must be given; a documentation address stands in.
const docker = new DockerProvider({ daemonPath: toolchain.daemon.amd64, egress: { hostAddresses: ["192.0.2.1"] } });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const releaseComputers = releaseOnStop(docker);

async function timed(network, egress) {
  const t0 = performance.now();
  const made = await docker.create({ image, lifetimeMs: 600_000, network, ...(egress ? { egress } : {}) });
  const ms = performance.now() - t0;
  if (!made.ok) throw new Error(made.error.message);
  await docker.release(made.value, "delete");
  return ms;
}

// One of each first: the host read, the daemon copy and the proxy's image are once per host.
await timed("none");
await timed({ allow: ["pypi.org"] });
const sharing = docker.proxies.make({ allow: ["pypi.org"], lifetimeMs: 3_600_000 });
// The proxy goes after the computers, which may join it.
const releaseProxy = onStop(async () => {
  await releaseComputers();
  const made = await sharing.catch(() => undefined);
  if (made?.ok) await docker.proxies.release(made.value.name);
});
const shared = await sharing;
if (!shared.ok) throw new Error(shared.error.message);
const none = [];
const allow = [];
const joined = [];
try {
  for (let i = 0; i < rounds; i += 1) {
    none.push(await timed("none"));
    allow.push(await timed({ allow: ["pypi.org"] }));
    joined.push(await timed({ allow: [] }, shared.value.name));
  }
} finally {
  await releaseProxy();
}
console.log(`create-to-ready, median of ${rounds} (interleaved; this machine is shared with other work):`);
console.log(`  network none (anchor)   ${median(none).toFixed(0)} ms`);
console.log(`  an allowlist            ${median(allow).toFixed(0)} ms  ${(median(allow) / median(none)).toFixed(2)}x (goal <= 1.5x)`);
console.log(`  joining a shared proxy  ${median(joined).toFixed(0)} ms  ${(median(joined) / median(none)).toFixed(2)}x`);
