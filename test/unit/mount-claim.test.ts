// A Mount's create cut off after its mkdir: the next create of the same resource knows the folder
// is its own (made: true), so destroy removes it; a folder that was there before stays the
// user's. The cut is the state an interrupted create leaves: the claim written, the folder made,
// no answer returned to the engine.
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { dropFolderRecord, readFolderRecord, writeFolderRecord } from "../../provider/folder-record.js";
import { resourceOwner } from "../../provider/resource.js";
import { mount } from "../../provider/resources/mount.js";
import { testContext } from "../support/context.js";

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "agentrun-mount-claim-"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const step = () => ({ ...testContext(), urn: `urn:pulumi:test::claim::agentrun:index:Mount::m-${randomBytes(4).toString("hex")}` });
const there = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe("a Mount whose create was cut off after its mkdir", () => {
  test("is made again as its own, and destroy removes the folder and the claim", async () => {
    const ctx = step();
    const path = join(base, "run");
    // What the cut-off create left: its claim (the folder was not there), then the folder.
    await writeFolderRecord(resourceOwner(ctx)!, path, true, false);
    await mkdir(path, { mode: 0o700 });
    const checked = await mount.check(ctx, {}, { path, user: "1000:1000" });
    const made = await mount.create(ctx, checked.inputs!);
    expect(made.outs?.made).toBe(true);
    await mount.delete(ctx, made.id, made.outs!);
    expect(await there(path)).toBe(false);
    expect(await readFolderRecord(resourceOwner(ctx)!)).toBeUndefined();
  });

  test("a folder that was there before its first create stays the user's", async () => {
    const ctx = step();
    const path = join(base, "theirs");
    await mkdir(path, { mode: 0o700 });
    const checked = await mount.check(ctx, {}, { path, user: "1000:1000" });
    // The first create, cut off after its claim: the folder was already there.
    expect((await mount.create(ctx, checked.inputs!)).outs?.made).toBe(false);
    const again = await mount.create(ctx, checked.inputs!);
    expect(again.outs?.made).toBe(false);
    await mount.delete(ctx, again.id, again.outs!);
    expect(await there(path)).toBe(true);
    expect(await readFolderRecord(resourceOwner(ctx)!)).toBeUndefined();
  });

  test("a secret path's claim keeps only its hash", async () => {
    const ctx = step();
    const path = join(base, `secret-${randomBytes(6).toString("hex")}`);
    await writeFolderRecord(resourceOwner(ctx)!, path, true, true);
    const claim = await readFolderRecord(resourceOwner(ctx)!);
    await dropFolderRecord(resourceOwner(ctx)!);
    expect(JSON.stringify(claim)).not.toContain(path);
    expect(claim?.made).toBe(true);
  });
});
