// A TypeScript stack using the SDK, run by `pulumi up` in this folder: the program is program.ts's,
// which the Automation API also runs inline; its settings come from the stack's config.
import * as pulumi from "@pulumi/pulumi";
import { program } from "./program.js";

const config = new pulumi.Config();
const run = config.get("run") ?? "r1";

export const { names, drift } = program({
  run,
  epoch: config.getNumber("epoch") ?? 1,
  folder: `/var/tmp/agentrun/examples/typescript/${run}/work`,
});
