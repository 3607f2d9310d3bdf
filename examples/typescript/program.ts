// The stack's program as a function: index.ts runs it under `pulumi up` (the official CLI with the
// Node.js language host), and the Automation API runs the same function inline
// (@agentrun/computer/automation, test/pulumi/typescript.e2e.test.ts). One run's folder, its claim,
// and two computers.
import * as pulumi from "@pulumi/pulumi";
import { Computer, Mount, RunEpoch } from "@agentrun/computer/pulumi";

export interface RunOptions {
  /** The run's id: its computers carry it as a label, and its folder is named for it. */
  run: string;
  /** The claim's epoch: raise it and the run's older computers are released first. */
  epoch: number;
  /** The run's folder on this host, at /workspace in each computer. */
  folder: string;
}

export interface RunOutputs {
  names: pulumi.Output<string[]>;
  drift: pulumi.Output<string[][]>;
}

export function program({ run, epoch, folder }: RunOptions): RunOutputs {
  const work = new Mount("work", { path: folder });
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
  return {
    names: pulumi.all(computers.map((c) => c.name)),
    drift: pulumi.all(computers.map((c) => c.drift)),
  };
}
