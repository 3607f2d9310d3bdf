// examples/run-folder/README.md followed literally, from a fresh copy to teardown: every line
// exits as the README says, and the folder it makes is there after destroy (retainOnDelete).
import { rm, stat } from "node:fs/promises";
import { afterAll, describe, expect, test } from "vitest";
import { followReadme } from "../support/readme.js";

const FOLDER = "/var/tmp/agentrun/examples/runs/r1/work";

describe("examples/run-folder as its README says", () => {
  let root = "";

  afterAll(async () => {
    await rm(FOLDER, { recursive: true, force: true });
    if (root) await rm(root, { recursive: true, force: true });
  });

  test("every line exits 0, and the folder is kept after destroy, 1000:1000 and 0700", async () => {
    const followed = await followReadme("run-folder");
    root = followed.root;
    const codes = [...followed.ran.stderr.matchAll(/^::step (\d+) (\d+)$/gm)].map((m) => [followed.steps[Number(m[1])], Number(m[2])]);
    expect(codes, followed.ran.all).toEqual(followed.steps.map((s) => [s, 0]));
    const st = await stat(FOLDER);
    expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([1000, 1000, 0o700]);
  }, 300_000);
});
