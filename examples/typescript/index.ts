// A TypeScript stack using the SDK: one run's folder, its claim, and two computers.
import * as pulumi from "@pulumi/pulumi";
import { Computer, Mount, RunEpoch } from "@agentrun/computer/pulumi";

const config = new pulumi.Config();
const run = config.get("run") ?? "r1";
const epoch = config.getNumber("epoch") ?? 1;

const work = new Mount("work", { path: `/var/tmp/agentrun/examples/typescript/${run}/work` });
const claim = new RunEpoch("claim", { run, epoch });

const computers = ["a", "b"].map(
  (n) =>
    new Computer(n, {
      lifetimeMs: 60 * 60 * 1000,
      network: "none",
      memoryMb: 1024,
      mount: work.mount,
      labels: claim.labels,
    }),
);

export const names = computers.map((c) => c.name);
export const drift = computers.map((c) => c.drift);
