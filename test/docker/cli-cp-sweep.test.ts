// agentrun cp both ways with a folder and a file, and agentrun sweep --dry-run changing nothing,
// against real Docker computers.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentrun, computers, labelFlags } from "../support/cli-helpers.js";

const fleet = computers();
let name: string;
const here = mkdtempSync(path.join(tmpdir(), "agentrun-cli-cp-"));
afterAll(() => rmSync(here, { recursive: true, force: true }));

beforeAll(async () => {
  name = await fleet.make();
}, 120_000);

const inside = async (script: string) => String((await agentrun(["exec", name, "--", "sh", "-c", script])).stdout);

describe("agentrun cp", () => {
  it("copies a folder in, with its tree and modes", async () => {
    const tree = path.join(here, "tree");
    mkdirSync(path.join(tree, "sub"), { recursive: true });
    writeFileSync(path.join(tree, "a.txt"), "alpha\n");
    writeFileSync(path.join(tree, "sub", "run.sh"), "#!/bin/sh\necho ran\n");
    chmodSync(path.join(tree, "sub", "run.sh"), 0o750);
    const cp = await agentrun(["cp", tree, `${name}:/work/tree`]);
    expect(cp.exitCode, String(cp.stderr)).toBe(0);
    expect(await inside("cat /work/tree/a.txt; /work/tree/sub/run.sh; stat -c %a /work/tree/sub/run.sh")).toBe("alpha\nran\n750");
  });

  it("copies a folder out, with its tree and modes", async () => {
    await agentrun([
      "exec",
      name,
      "--",
      "sh",
      "-c",
      "mkdir -p /work/out/deep && echo beta > /work/out/b.txt && echo gamma > /work/out/deep/c && chmod 600 /work/out/deep/c",
    ]);
    const local = path.join(here, "out");
    const cp = await agentrun(["cp", `${name}:/work/out`, local]);
    expect(cp.exitCode, String(cp.stderr)).toBe(0);
    expect(readFileSync(path.join(local, "b.txt"), "utf8")).toBe("beta\n");
    expect(readFileSync(path.join(local, "deep", "c"), "utf8")).toBe("gamma\n");
    expect(statSync(path.join(local, "deep", "c")).mode & 0o777).toBe(0o600);
  });

  it("copies a folder as cp -r does: into an existing folder under its own name, both ways", async () => {
    const kit = path.join(here, "kit");
    mkdirSync(kit);
    writeFileSync(path.join(kit, "k.txt"), "kappa\n");
    expect((await agentrun(["cp", kit, `${name}:/work`])).exitCode).toBe(0);
    expect(await inside("cat /work/kit/k.txt")).toBe("kappa");
    const back = path.join(here, "back-kit");
    mkdirSync(back);
    expect((await agentrun(["cp", `${name}:/work/kit`, back])).exitCode).toBe(0);
    expect(readFileSync(path.join(back, "kit", "k.txt"), "utf8")).toBe("kappa\n");
  });

  it("copies a file in and out again, into a folder under its own name", async () => {
    const file = path.join(here, "note.txt");
    writeFileSync(file, "a note\n");
    expect((await agentrun(["cp", file, `${name}:/tmp`])).exitCode).toBe(0);
    mkdirSync(path.join(here, "back"));
    expect((await agentrun(["cp", `${name}:/tmp/note.txt`, path.join(here, "back")])).exitCode).toBe(0);
    expect(readFileSync(path.join(here, "back", "note.txt"), "utf8")).toBe("a note\n");
  });

  it("refuses two local sides, and a computer's path that is not there, with exit 2 in words", async () => {
    const both = await agentrun(["cp", here, path.join(here, "x")]);
    expect({ code: both.exitCode, err: both.stderr }).toEqual({
      code: 2,
      err: "agentrun: one side is a computer's (name:/path) and the other a local path\n(see `agentrun cp --help`)",
    });
    const missing = await agentrun(["cp", `${name}:/work/nothing-here`, path.join(here, "y")]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("there is no /work/nothing-here in the computer to copy");
  });
});

// A lifetime that a loaded machine's docker run still fits in (2 s did not, once), waited out.
const DUE_MS = 5_000;

describe("agentrun sweep", () => {
  it("--dry-run names the computer past its deadline, keeps the other, and changes nothing", async () => {
    const due = await fleet.make({ lifetimeMs: DUE_MS });
    // Past its deadline: init has stopped it (or will); either way the sweep's rule says due.
    await new Promise((resolve) => setTimeout(resolve, DUE_MS + 500));
    const dry = await agentrun(["sweep", "--dry-run", ...labelFlags(fleet.label)]);
    expect(dry.exitCode, String(dry.stderr)).toBe(0);
    expect(dry.stdout).toBe(`would release ${due}; kept 1 (deadline ahead)`);
    const json = await agentrun(["sweep", "--dry-run", "--json", ...labelFlags(fleet.label)]);
    expect(JSON.parse(String(json.stdout))).toEqual({ dryRun: true, wouldRelease: [due], kept: 1 });
    // Both are still there.
    const names = execFileSync("docker", ["ps", "--all", "--format", "{{.Names}}", "--filter", `label=agentrun.test=${fleet.label["agentrun.test"]}`], {
      encoding: "utf8",
    });
    expect(names.trim().split("\n").sort()).toEqual([due, name].sort());
  }, 120_000);

  it("without --dry-run releases the computer past its deadline and says so", async () => {
    const due = await fleet.make({ lifetimeMs: DUE_MS });
    await new Promise((resolve) => setTimeout(resolve, DUE_MS + 500));
    const swept = await agentrun(["sweep", ...labelFlags(fleet.label)]);
    expect(swept.exitCode, String(swept.stderr)).toBe(0);
    // The first test's due computer is released here too; the one with time left is kept.
    expect(swept.stdout).toMatch(new RegExp(`^released (.*, )?${due}(, .*)?; kept 1 \\(deadline ahead\\)$`));
    const names = execFileSync("docker", ["ps", "--all", "--format", "{{.Names}}", "--filter", `label=agentrun.test=${fleet.label["agentrun.test"]}`], {
      encoding: "utf8",
    });
    expect(names.trim()).toBe(name);
  }, 120_000);
});
