// The planted-secret search can fail: a planted value in a file, an output or a container's
// environment is named by where it was found.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { leaks, plant } from "../support/planted-secrets.js";

test("names each place a planted secret is found in clear", async () => {
  const planted = plant();
  const dir = await mkdtemp(join(tmpdir(), "agentrun-leaks-"));
  try {
    await writeFile(join(dir, "state.json"), `{"key":"${planted.vendorKey}"}`);
    const found = await leaks(planted, { files: [dir], texts: { "up output": `label ${planted.label}` }, containers: [] });
    expect(found).toEqual([`${join(dir, "state.json")}: vendorKey`, "up output: label"]);
    expect(await leaks(planted, { files: [dir], texts: { clean: "nothing here" }, containers: [] })).toHaveLength(1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
