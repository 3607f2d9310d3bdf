// node out/main.js <run> -- <command...>: five computers, the command on each, then none.
// The state's passphrase comes from STATE_PASSPHRASE.
import { runHarness } from "./harness.js";

const [run, dashes, ...argv] = process.argv.slice(2);
const passphrase = process.env.STATE_PASSPHRASE;
if (!run || dashes !== "--" || argv.length === 0 || !passphrase) {
  console.error("usage: STATE_PASSPHRASE=... node out/main.js <run> -- <command...>");
  process.exit(2);
}
const ran = await runHarness({
  run,
  argv,
  passphrase,
  // State in ~/.agentrun/state, or the folder STATE names.
  ...(process.env.STATE ? { state: process.env.STATE } : {}),
  onProgress: (p) => {
    if (p.kind === "step" && p.status !== "started" && p.type === "agentrun:index:Computer") console.error(`${p.name}: ${p.op} ${p.status}`);
  },
});
for (const r of ran) console.log(`${r.computer} exited ${r.exitCode}: ${r.stdout.trim()}`);
process.exitCode = ran.every((r) => r.exitCode === 0) ? 0 : 1;
