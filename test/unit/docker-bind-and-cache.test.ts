// The run folder's writability, as the kernel decides it, and the daemon copy's cache rules.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bindWritableProblem } from "../../src/docker/bind.js";
import { daemonCopy } from "../../src/docker/daemon-cache.js";

const root = mkdtempSync(path.join(tmpdir(), "agentrun-bind-"));
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;

function folder(name: string, uid: number, gid: number, mode: number): string {
  const p = path.join(root, name);
  mkdirSync(p);
  chownSync(p, uid, gid);
  chmodSync(p, mode);
  return p;
}

describe.skipIf(!isRoot)("the bind's writability check (needs root to give folders away)", () => {
  it("takes the owner's bits for the owner", async () => {
    expect(await bindWritableProblem(folder("own", 1000, 1000, 0o700), 1000, 1000)).toBeUndefined();
    expect(await bindWritableProblem(folder("own-ro", 1000, 1000, 0o577), 1000, 1000)).toMatch(/owned by 1000:1000 with mode 0577/);
  });
  it("takes the group's bits for the group, and never the others' when the group matches", async () => {
    expect(await bindWritableProblem(folder("grp", 0, 1000, 0o770), 1000, 1000)).toBeUndefined();
    expect(await bindWritableProblem(folder("grp-no", 0, 1000, 0o707), 1000, 1000)).toMatch(/not writable/);
  });
  it("takes the others' bits for everyone else, root included: root has no capability there", async () => {
    expect(await bindWritableProblem(folder("oth", 0, 0, 0o703), 1000, 1000)).toBeUndefined();
    const rootOwned = folder("root", 0, 0, 0o755);
    expect(await bindWritableProblem(rootOwned, 1000, 1000)).toBe(
      `the run folder ${rootOwned} is not writable by the computer's user 1000:1000: it is owned by 0:0 with mode 0755; give it to that user (chown 1000:1000, mode 0700) or ask for the user that owns it`,
    );
    expect(await bindWritableProblem(folder("user-own", 1000, 1000, 0o700), 0, 0)).toMatch(/computer's user 0:0/);
  });
  it("needs search as well as write", async () => {
    expect(await bindWritableProblem(folder("nosearch", 1000, 1000, 0o600), 1000, 1000)).toMatch(/mode 0600/);
  });
  it("refuses a file and a missing folder", async () => {
    const file = path.join(root, "file");
    writeFileSync(file, "x");
    expect(await bindWritableProblem(file, 1000, 1000)).toMatch(/is not a directory/);
    expect(await bindWritableProblem(path.join(root, "gone"), 1000, 1000)).toMatch(/does not exist/);
  });
});

describe("the daemon copy", () => {
  const daemon = path.join(root, "computerd");
  writeFileSync(daemon, "#!/bin/sh\necho daemon\n", { mode: 0o700 });

  it("copies the daemon as computerd-<sha256>, 0755, into a 0700 directory it makes, and reuses it", async () => {
    const cache = path.join(root, "private", "cache");
    mkdirSync(path.dirname(cache), { mode: 0o755 });
    const copy = await daemonCopy(daemon, cache);
    expect(path.basename(copy)).toMatch(/^computerd-[0-9a-f]{64}$/);
    expect(statSync(copy).mode & 0o7777).toBe(0o755);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    expect(readFileSync(copy, "utf8")).toBe(readFileSync(daemon, "utf8"));
    expect(await daemonCopy(daemon, cache)).toBe(copy);
    // A copy changed behind the provider's back is written again before the next bind.
    chmodSync(copy, 0o755);
    writeFileSync(copy, "tampered");
    expect(readFileSync(await daemonCopy(daemon, cache), "utf8")).toBe(readFileSync(daemon, "utf8"));
  });

  it("refuses a link, another mode, and a directory under one another user may write", async () => {
    const real = path.join(root, "real");
    mkdirSync(real, { mode: 0o700 });
    const link = path.join(root, "link");
    symlinkSync(real, link);
    await expect(daemonCopy(daemon, link)).rejects.toThrow(/is a symbolic link/);
    const wide = path.join(root, "wide");
    mkdirSync(wide, { mode: 0o755 });
    chmodSync(wide, 0o755);
    await expect(daemonCopy(daemon, wide)).rejects.toThrow(/has mode 0755, not 0700; the provider does not change it/);
    const open = path.join(root, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    await expect(daemonCopy(daemon, path.join(open, "cache"))).rejects.toThrow(/is below .*open, which another user may write/);
  });

  it.skipIf(!isRoot)("refuses another user's directory", async () => {
    const theirs = folder("theirs", 1000, 1000, 0o700);
    await expect(daemonCopy(daemon, theirs)).rejects.toThrow(/owned by uid 1000, not this process's 0/);
  });
});
