// Pause then resume of a running computer through the provider's pause hooks (the engine's pause
// and unpause, then its daemon answering again), beside the engine's bare `docker pause` +
// `docker unpause` of the same container, interleaved in the same run; and, tighter, the same two
// Engine API calls with no CLI. The computer runs a counting loop throughout. Goal: ≤ 1.1× the
// bare pause and unpause. The computer is released by its id at the end, pass or fail.
//
//   node bench/state-pause.mjs [rounds]   (default 15; after `npm run build`)
import { execFileSync } from "node:child_process";
import os from "node:os";
import { makeComputer } from "./computer.mjs";

const rounds = Number(process.argv[2] ?? 15);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(1)} ms`;
const sh = (...args) => execFileSync("docker", args, { encoding: "utf8" }).trim();

const computer = await makeComputer({ memoryMb: 256 });
const { docker, ref, client } = computer;
try {
  if (!docker.pause) throw new Error("this build's Docker provider has no pause hooks");
  await client.call("process.start", { argv: ["sh", "-c", "i=0; while :; do i=$((i+1)); echo $i; sleep 0.2; done"] });
  const hooks = [];
  const cli = [];
  const api = [];
  for (let i = 0; i < rounds; i += 1) {
    let t0 = performance.now();
    const paused = await docker.pause.pause(ref);
    if (!paused.ok) throw new Error(`pause: ${paused.error.message}`);
    const resumed = await docker.pause.resume(ref);
    if (!resumed.ok) throw new Error(`resume: ${resumed.error.message}`);
    hooks.push(performance.now() - t0);

    t0 = performance.now();
    sh("pause", ref.id);
    sh("unpause", ref.id);
    cli.push(performance.now() - t0);

    t0 = performance.now();
    for (const step of ["pause", "unpause"]) {
      const reply = await docker.engine.call("POST", `/containers/${ref.id}/${step}`);
      if (!reply.ok) throw new Error(`${step}: ${reply.status} ${reply.message}`);
    }
    api.push(performance.now() - t0);
  }
  const ran = await client.call("exec.run", { argv: ["true"] });
  if (ran.exitCode !== 0) throw new Error("the daemon does not answer after the rounds");
  console.log(`pause + resume through the provider's hooks: median ${ms(median(hooks))} (min ${ms(Math.min(...hooks))}, n ${rounds})`);
  console.log(`docker pause + docker unpause (the CLI, the anchor): median ${ms(median(cli))} (min ${ms(Math.min(...cli))})`);
  console.log(`the same two Engine API calls, no CLI: median ${ms(median(api))} (min ${ms(Math.min(...api))})`);
  const ratio = median(hooks) / median(cli);
  console.log(
    `ratio ${ratio.toFixed(2)}× the anchor (goal ≤ 1.1×: ${ratio <= 1.1 ? "met" : "not met"}); ${(median(hooks) / median(api)).toFixed(2)}× the bare API calls; load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`,
  );
} finally {
  await computer.remove();
}
