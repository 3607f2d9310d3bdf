// program.ts run inline through the Automation API (@agentrun/computer/automation): no project
// file and no language host. It makes the run's folder, its claim and two computers, prints their
// names, and destroys them. From the repository's root, after `npm run setup`:
//
//   . dist/toolchain.env
//   npx tsc -p examples/typescript/tsconfig.json --noEmit false --outDir examples/typescript/build
//   STATE_PASSPHRASE=local node examples/typescript/build/automation.js
//
// State is kept in ~/.agentrun/state, or in the folder STATE names.
import { computerStack } from "@agentrun/computer/automation";
import { program } from "./program.js";

const run = process.argv[2] ?? "r1";
const passphrase = process.env.STATE_PASSPHRASE;
if (!passphrase) throw new Error("set STATE_PASSPHRASE: it encrypts the stack's secrets in state, and opens the stack again");
// The image this machine's set-up made (dist/toolchain.env says it), else the provider's own.
const image = process.env.AGENTRUN_BASE_IMAGE;

const opened = await computerStack({
  stack: run,
  program: () => program({ run, epoch: 1, folder: `/var/tmp/agentrun/examples/typescript/${run}/work` }),
  passphrase,
  ...(process.env.STATE ? { state: process.env.STATE } : {}),
  ...(image ? { settings: { docker: { image } } } : {}),
});
if (!opened.ok) throw new Error(opened.error.message);
const stack = opened.value;

const up = await stack.up();
if (!up.ok) throw new Error(up.error.message);
console.log(`made ${up.value.outputs.names.join(", ")}; drift: ${JSON.stringify(up.value.outputs.drift)}`);

const down = await stack.destroy({ remove: true });
if (!down.ok) throw new Error(down.error.message);
console.log(`destroyed run ${run}`);
