// ComputerFiles through the real Pulumi engine, as a story: up loads a string and a local file
// (its path relative to the program) into a computer; a second up changes nothing; a file edited
// inside shows as drift (preview --refresh exits 7) and up --refresh writes it again; the files
// taken out of the program are removed from inside; destroy leaves no computer.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker, exists } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

const csv = "id,score\n1,0.5\n2,0.75\n";
const inside = async (name: string, script: string) => (await docker("exec", name, "sh", "-c", script)).stdout;

describe("ComputerFiles through the real engine", () => {
  let s: TestStack;
  let name = "";
  const box = { type: "agentrun:index:Computer", properties: { lifetimeMs: 900_000, memoryMb: 256 } };
  const files = {
    type: "agentrun:index:ComputerFiles",
    properties: {
      computer: "${box.name}",
      destination: "Documents",
      files: { "scores.csv": { "fn::stringAsset": csv }, "notes/readme.txt": { "fn::fileAsset": "readme.txt" } },
    },
  };

  beforeAll(async () => {
    s = await testStack("computer-files", { box, files }, { name: "${box.name}", written: "${files.written}", drift: "${files.drift}" });
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ image: toolchain().baseImage }) });
    await writeFile(join(s.dir, "readme.txt"), "read me\n");
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("up loads the files into the computer's home, each read back by sha256", async () => {
    const up = await s.stack.up({ color: "never" });
    name = String(up.outputs.name?.value);
    s.made.add(name);
    expect(Object.keys(up.outputs.written?.value as object).sort()).toEqual(["Documents/notes/readme.txt", "Documents/scores.csv"]);
    expect(await inside(name, "cat ~/Documents/scores.csv ~/Documents/notes/readme.txt")).toBe(`${csv}read me`);
  }, 300_000);

  test("a second up changes nothing, and preview --refresh finds no drift", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toEqual({ same: 3 });
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);
  }, 300_000);

  test("a file edited inside: preview --refresh exits 7 naming it; up --refresh writes it again", async () => {
    await inside(name, "echo 3,1 >> ~/Documents/scores.csv");
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toContain("Documents/scores.csv was changed inside the computer");
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(up.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(await inside(name, "cat ~/Documents/scores.csv")).toBe(csv.trim());
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);
  }, 300_000);

  test("taken out of the program, its files are removed from inside; destroy leaves no computer", async () => {
    await s.program({ box }, { name: "${box.name}" });
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toMatchObject({ delete: 1 });
    expect(await inside(name, "find ~/Documents -type f")).toBe("");
    await s.stack.destroy({ color: "never" });
    expect(await exists(name)).toBe(false);
  }, 300_000);
});
