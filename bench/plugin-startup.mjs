// How long the plugin takes from exec to its first stdout line (the port the engine waits for),
// beside a bare `node -e ""` started the same way: the YAML host starts the plugin just to read
// its schema, so this is paid on every preview. Usage: node bench/plugin-startup.mjs [runs]
import { spawn } from "node:child_process";
import { onStop } from "./stop.mjs";

const runs = Number(process.argv[2] ?? 10);
// A stop (SIGINT, SIGTERM) ends the program under way, which would outlive this process.
onStop();
const plugin = new URL("../provider/bin/pulumi-resource-agentrun", import.meta.url).pathname;

function time(cmd, args, untilLine) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "ignore"] });
    const done = () => resolve(Number(process.hrtime.bigint() - t0) / 1e6);
    if (untilLine)
      child.stdout.once("data", () => {
        done();
        child.kill("SIGKILL");
      });
    else child.on("exit", done);
    child.on("error", reject);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p = [],
  n = [];
for (let i = 0; i < runs; i++) {
  p.push(await time(plugin, [], true));
  n.push(await time(process.execPath, ["-e", ""], false));
}
console.log(`plugin start to port: median ${median(p).toFixed(0)} ms (${runs} runs)`);
console.log(`bare node start/exit: median ${median(n).toFixed(0)} ms (the anchor)`);
