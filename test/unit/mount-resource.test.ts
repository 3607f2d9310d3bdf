// The Mount resource's handlers on a real filesystem, without the engine: every check refusal in
// its words (nothing made), and secrets kept secret from input to output.
import { lstat, mkdir, mkdtemp, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { mount } from "../../provider/resources/mount.js";
import { isSecret, secret } from "../../provider/secrets.js";
import { testContext } from "../support/context.js";

const ctx = testContext();
let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "agentrun-unit-mount-"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const reasons = async (news: Record<string, unknown>) => ((await mount.check(ctx, {}, news)).failures ?? []).map((f) => `${f.property}: ${f.reason}`);

describe("Mount check", () => {
  test.each([
    ["a relative path", { path: "runs/r1" }, `path: the run folder's path must be absolute (it is "runs/r1"); give the whole path from /`],
    ["a NUL byte", { path: "/var/tmp/a\0b" }, "path: the run folder's path has a NUL byte"],
    ["a path not canonical", { path: "/var/tmp/./a/../b/" }, "path: the run folder's path is not canonical: write it as /var/tmp/b"],
    [
      "a comma",
      { path: "/var/tmp/a,b" },
      "path: the run folder's path has a comma, a double quote or a line break, which a bind's options (Docker's --mount) cannot hold",
    ],
    ["no path", {}, "path: path is required: the run folder's absolute path on this host"],
    [
      "a user name",
      { path: "/var/tmp/x", user: "agent" },
      "user: user is a uid or uid:gid in numbers, such as 1000:1000 (a name is refused: the computer's image may not have it)",
    ],
    [
      "a user with a name for group",
      { path: "/var/tmp/x", user: "1000:staff" },
      "user: user is a uid or uid:gid in numbers, such as 1000:1000 (a name is refused: the computer's image may not have it)",
    ],
    [
      "an unknown field",
      { path: "/var/tmp/x", colour: "blue" },
      'colour: agentrun:index:Mount has no field "colour"; it takes kind, path, user, retainOnDelete',
    ],
    [
      "kind archil",
      { path: "/var/tmp/x", kind: "archil" },
      "kind: a Mount of kind archil is not built yet; this plugin makes bind mounts (a folder on this host)",
    ],
    ["a mode", { path: "/var/tmp/x", mode: "0755" }, 'mode: agentrun:index:Mount has no field "mode"; a run folder\'s mode is always 0700'],
  ])("refuses %s in words", async (_name, news, words) => {
    expect(await reasons(news)).toContain(words);
  });

  test("reports every bad field together", async () => {
    expect(await reasons({ path: "rel", user: "x", colour: 1 })).toHaveLength(3);
  });

  test("refuses a path through a symlink, naming the link", async () => {
    await mkdir(join(base, "real"));
    await symlink(join(base, "real"), join(base, "link"));
    expect(await reasons({ path: join(base, "link/work") })).toContain(
      `path: the run folder's path passes through a symlink at ${base}/link (to ${base}/real); give its canonical path, without links`,
    );
  });

  test("refuses a path through a file", async () => {
    await writeFile(join(base, "file"), "");
    expect(await reasons({ path: join(base, "file/work") })).toContain(`path: the run folder's path passes through ${base}/file, which is not a directory`);
  });

  test("never echoes a secret path it refuses", async () => {
    const out = await reasons({ path: secret("hunter2-not-absolute") });
    expect(out.join("\n")).not.toContain("hunter2");
    expect(out).toHaveLength(1);
  });

  test("normalizes the user and fills the defaults", async () => {
    const r = await mount.check(testContext({ docker: { user: "1234" } }), {}, { path: join(base, "w") });
    expect(r.inputs).toEqual({ kind: "bind", path: join(base, "w"), user: "1234:1234", mode: "0700", retainOnDelete: false });
  });

  test("takes its default user from the local provider, through the registry, and says so when that provider cannot be built", async () => {
    const r = await mount.check(testContext({ docker: { user: "0" } }), {}, { path: join(base, "w") });
    expect(r.failures).toEqual([
      {
        property: "user",
        reason: expect.stringMatching(
          /^no user was declared, and the local provider's cannot be read: the stack's agentrun:docker settings were refused: agentrun:docker\.user 0:0 is root.*`pulumi config rm --path agentrun:docker\.user`$/,
        ),
      },
    ]);
    expect((await mount.check(testContext({ docker: { user: "0" } }), {}, { path: join(base, "w"), user: "0" })).inputs?.user).toBe("0:0");
  });

  test("a refused spec makes nothing", async () => {
    await mount.check(ctx, {}, { path: join(base, "a/b"), user: "nobody" });
    await expect(lstat(join(base, "a"))).rejects.toThrow();
  });
});

describe("Mount secrets", () => {
  test("a secret path leaves as a secret, and the id does not hold it", async () => {
    const path = join(base, "secret-run");
    const checked = await mount.check(ctx, {}, { path: secret(path), user: "1000:1000" });
    expect(isSecret(checked.inputs.path)).toBe(true);
    const made = await mount.create(ctx, checked.inputs);
    expect(made.id).not.toContain(path);
    expect(isSecret(made.outs.path)).toBe(true);
    expect(isSecret(made.outs.mount)).toBe(true);
    expect(isSecret(made.outs.drift)).toBe(true);
    expect(made.outs.user).toBe("1000:1000");
    const read = await mount.read(ctx, made.id, made.outs);
    expect(read.id).toBe(made.id);
    expect(isSecret(read.props.path)).toBe(true);
    expect(isSecret(read.inputs.path)).toBe(true);
    await mount.delete(ctx, made.id, made.outs);
    await expect(stat(path)).rejects.toThrow();
  });
});

describe("Mount lifecycle edges", () => {
  test("a folder already there is given to the user and left in place on delete", async () => {
    const path = join(base, "existing");
    await mkdir(path, { mode: 0o755 });
    const checked = await mount.check(ctx, {}, { path, user: "1000:1000" });
    const made = await mount.create(ctx, checked.inputs);
    expect(made.outs).toMatchObject({ made: false, owner: "1000:1000", mode: "0700", drift: [] });
    await mount.delete(ctx, made.id, made.outs);
    expect((await stat(path)).isDirectory()).toBe(true);
  });

  test("delete removes the parent folders its create made, only those, and only while empty", async () => {
    const urn = `urn:pulumi:test::p::agentrun:index:Mount::parents-${process.pid}-${Date.now()}`;
    const owned = { ...ctx, urn };
    // base/kept is there before; base/kept/a/b are made with the folder.
    await mkdir(join(base, "kept"));
    const path = join(base, "kept", "a", "b", "work");
    const made = await mount.create(owned, (await mount.check(owned, {}, { path })).inputs);
    await mount.delete(owned, made.id, made.outs);
    await expect(lstat(join(base, "kept", "a"))).rejects.toThrow(/ENOENT/);
    expect((await stat(join(base, "kept"))).isDirectory()).toBe(true);
    // A parent someone put something in stays, and so does every one above it.
    const again = await mount.create(owned, (await mount.check(owned, {}, { path })).inputs);
    await writeFile(join(base, "kept", "a", "notes.md"), "x");
    await mount.delete(owned, again.id, again.outs);
    await expect(lstat(join(base, "kept", "a", "b"))).rejects.toThrow(/ENOENT/);
    expect((await stat(join(base, "kept", "a", "notes.md"))).isFile()).toBe(true);
  });

  test("retainOnDelete leaves the folder and what it holds", async () => {
    const path = join(base, "kept");
    const checked = await mount.check(ctx, {}, { path, retainOnDelete: true });
    const made = await mount.create(ctx, checked.inputs);
    await writeFile(join(path, "notes.md"), "x");
    await mount.delete(ctx, made.id, made.outs);
    expect((await stat(join(path, "notes.md"))).isFile()).toBe(true);
  });

  test("read of a folder that is gone returns no id", async () => {
    const path = join(base, "gone");
    const made = await mount.create(ctx, (await mount.check(ctx, {}, { path })).inputs);
    await rm(path, { recursive: true });
    expect((await mount.read(ctx, made.id, made.outs)).id).toBeUndefined();
  });

  test("diff: a new path replaces; an owner read back as changed updates; nothing changed is no diff", async () => {
    const path = join(base, "d");
    const inputs = (await mount.check(ctx, {}, { path, user: "1000:1000" })).inputs;
    const made = await mount.create(ctx, inputs);
    expect(await mount.diff(ctx, made.id, made.outs, inputs)).toMatchObject({ changes: false, replaces: [] });
    expect(await mount.diff(ctx, made.id, made.outs, { ...inputs, path: `${path}2` })).toMatchObject({ changes: true, replaces: ["path"] });
    expect(await mount.diff(ctx, made.id, { ...made.outs, owner: "0:0" }, inputs)).toMatchObject({ changes: true, replaces: [] });
  });
});
