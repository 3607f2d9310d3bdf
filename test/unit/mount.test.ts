import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WORKSPACE, checkMount, readBackOf } from "../../src/contract/mount.js";

const base = mkdtempSync(join(tmpdir(), "agentrun-mount-"));
const folder = join(base, "runs", "r1", "work");
mkdirSync(folder, { recursive: true });
writeFileSync(join(base, "file"), "x");
symlinkSync(folder, join(base, "link"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const TOKEN = "archil-token-s3cr3t-value-0123456789";
const archil = { kind: "archil", disk: "d1", region: "aws-us-east-1", folder: "agents/a/runs/r/work", token: TOKEN } as const;

describe("checkMount", () => {
  it("takes a canonical existing folder for bind, and a whole Archil mount", () => {
    expect(WORKSPACE).toBe("/workspace");
    expect(checkMount({ kind: "bind", path: folder }, ["bind"])).toEqual([]);
    expect(checkMount(archil, ["archil"])).toEqual([]);
  });

  it("refuses a kind the provider does not declare, naming what it takes", () => {
    expect(checkMount(archil, ["bind"])).toEqual([{ field: "mount", message: "this provider does not take a mount of kind archil; it takes bind" }]);
    expect(checkMount({ kind: "bind", path: folder }, undefined)).toEqual([
      { field: "mount", message: "this provider does not take a mount of kind bind; it takes no mount" },
    ]);
  });

  it.each([
    ["a relative path", "runs/r1", `the run folder's path must be absolute (it is "runs/r1"); give the whole path from /`],
    ["a missing folder", join(base, "missing"), `the run folder ${join(base, "missing")} does not exist on the host; make it first`],
    [
      "a symlink",
      join(base, "link"),
      `the run folder's path passes through a symlink at ${join(base, "link")} (to ${folder}); give its canonical path, without links`,
    ],
    ["a path with ..", `${folder}/../work`, `the run folder's path is not canonical: write it as ${folder}`],
    ["a file", join(base, "file"), `the run folder ${join(base, "file")} is not a directory`],
    ["a path through a file", join(base, "file", "w"), `the run folder's path passes through ${join(base, "file")}, which is not a directory`],
    ["a NUL byte", "/tmp/a\0b", "the run folder's path has a NUL byte"],
    ["an empty path", "", "the run folder's path is a non-empty string"],
    ["a comma", "/tmp/a,b", "the run folder's path has a comma, a double quote or a line break, which a bind's options (Docker's --mount) cannot hold"],
    ["a trailing slash", "/tmp/", "the run folder's path is not canonical: write it as /tmp"],
  ])("refuses a bind of %s", (_, path, message) => {
    expect(checkMount({ kind: "bind", path }, ["bind"])).toEqual([{ field: "mount.path", message }]);
  });

  it("refuses an Archil folder that is absolute or has a .. part", () => {
    expect(checkMount({ ...archil, folder: "/abs" }, ["archil"])).toEqual([
      { field: "mount.folder", message: "mount.folder is relative to the disk's root, not absolute" },
    ]);
    expect(checkMount({ ...archil, folder: "a/../b" }, ["archil"])).toEqual([{ field: "mount.folder", message: "mount.folder has no .. part" }]);
  });

  it("refuses every bad Archil field together, and a field the kind does not have", () => {
    const refusals = checkMount({ kind: "archil", disk: "", region: 3, folder: "f", token: "a\0b", path: "/x" }, ["archil"]);
    expect(refusals).toEqual([
      { field: "mount.path", message: "mount.path is not a field of an archil mount (it has disk, region, folder, token)" },
      { field: "mount.disk", message: "mount.disk is a non-empty string" },
      { field: "mount.region", message: "mount.region is a non-empty string" },
      { field: "mount.token", message: "mount.token has a NUL byte" },
    ]);
    expect(checkMount({ kind: "bind", path: folder, token: TOKEN }, ["bind"])).toEqual([
      { field: "mount.token", message: "mount.token is not a field of a bind mount (it has path)" },
    ]);
  });

  it("never echoes a token, even one put in the wrong field", () => {
    const all = [
      ...checkMount({ ...archil, disk: `${TOKEN}\0` }, ["archil"]),
      ...checkMount({ ...archil, folder: `/${TOKEN}` }, ["archil"]),
      ...checkMount({ ...archil, folder: `${TOKEN}/..` }, ["archil"]),
      ...checkMount(archil, ["bind"]),
      ...checkMount({ kind: "bind", path: folder, token: TOKEN }, ["bind"]),
    ];
    expect(all.length).toBeGreaterThan(0);
    for (const r of all) expect(r.message).not.toContain("s3cr3t");
  });

  it("refuses what is no mount at all", () => {
    expect(checkMount("bind", ["bind"])).toEqual([{ field: "mount", message: "mount is an object with a kind (bind or archil); it takes bind" }]);
    expect(checkMount({ kind: "nfs" }, ["bind"])).toEqual([{ field: "mount.kind", message: "mount.kind is bind or archil; it takes bind" }]);
  });
});

describe("readBackOf", () => {
  it("reads back kind and source, never the token", () => {
    expect(readBackOf({ kind: "bind", path: folder })).toEqual({ kind: "bind", path: folder });
    const back = readBackOf(archil, 3);
    expect(back).toEqual({ kind: "archil", disk: "d1", region: "aws-us-east-1", folder: "agents/a/runs/r/work", exclusive: true, epoch: 3 });
    expect(JSON.stringify(back)).not.toContain(TOKEN);
  });

  it("reads an Archil mount with no epoch as other, in words", () => {
    const back = readBackOf(archil);
    expect(back).toEqual({ other: expect.stringMatching(/^an Archil mount with no epoch/) });
    expect(JSON.stringify(back)).not.toContain(TOKEN);
  });
});
