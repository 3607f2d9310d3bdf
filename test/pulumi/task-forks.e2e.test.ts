// examples/task-forks as its README says, through the real engine and Docker: a task environment
// prepared once, its ComputerSnapshot, five forks each graded by its verifier to a reward of 1; a
// clean preview; one fork paused by hand planned and healed as that fork's update alone (a
// resume, never a replace); destroy leaves no computer, no snapshot image and no volume of theirs.
import { expect } from "vitest";
import { docker } from "../support/docker.js";
import { computersNamed, expectGone, followedAsWritten } from "../support/readme.js";

followedAsWritten(
  "task-forks",
  "five forks of one snapshot each rewarded 1, a fork paused by hand resumed by an update alone, nothing left",
  async ({ ran }) => {
    expect(ran.stdout).toMatch(/\[\s*1,\s*1,\s*1,\s*1,\s*1\s*\]/);
    // The fork's update alone, planned by the preview after the pause and the heal's own preview.
    const planned = ran.stdout.split("Previewing update (dev)").filter((p) => /~ 1 to update/.test(p));
    expect(planned.length, ran.stdout).toBe(2);
    for (const p of planned) {
      expect(p).toMatch(/~\s+agentrun:index:Computer\s+forks-2\s+update\s+\[diff: ~[^\]]*\bstate\b/);
      expect(p).not.toMatch(/to replace/);
    }
    const healed = ran.stdout.split("Updating (dev)")[2] ?? "";
    expect(healed).toMatch(/agentrun:index:Computer\s+forks-2\s+updated\b.*\[diff: ~[^\]]*\bstate\b/);
    expect(healed).not.toMatch(/replaced/);
    const computers = computersNamed(ran.stdout);
    expect(computers).toHaveLength(6);
    await expectGone(computers);
    const image = /snapshot:\/\/docker\/(\S+?)["\s]/.exec(ran.stdout)?.[1];
    expect(image, ran.stdout).toBeDefined();
    expect((await docker("image", "inspect", image!)).exitCode).not.toBe(0);
    // No volume left that names one of its computers or its snapshot.
    const volumes = (await docker("volume", "ls", "--format", "{{.Name}} {{.Labels}}")).stdout;
    for (const left of [...computers, image!]) expect(volumes).not.toContain(left);
  },
  { timeoutMs: 900_000 },
);
