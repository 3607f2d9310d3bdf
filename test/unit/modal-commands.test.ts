// The Modal entrypoint and upload as sent, run under BusyBox sh and dash, with the daemon's path
// moved into a temporary directory (the only change): the wait, the exec of init with its
// arguments and HOME, the exit 3 when no daemon comes, and the rename only on the right sha256.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BRIDGE, ENTRYPOINT, imageEntrypoint, imageLayer, modalCommands, UPLOAD } from "../../src/modal/commands.js";
import { DAEMON_PART } from "../../src/kits/daemon-upload/scripts.js";
import { DAEMON_IN_COMPUTER } from "../../src/contract/daemon-path.js";

const SHELLS: Array<[string, string[]]> = [
  ["BusyBox sh", ["busybox", "sh"]],
  ["dash", ["dash"]],
];
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "modal-commands-"));
  dirs.push(dir);
  return dir;
}

function moved(script: string, dir: string): string {
  return script.replaceAll(DAEMON_PART, `${dir}/.computerd.part`).replaceAll(DAEMON_IN_COMPUTER, `${dir}/computerd`);
}

describe("modalCommands", () => {
  it("sends the entrypoint, upload and bridge with their arguments, and the image's own start", () => {
    const c = modalCommands({ deadline: "2026-12-01T00:00:00.000Z", user: "2510:2510", waitSeconds: 360, sha256: "ab".repeat(32) });
    expect(c.entrypoint).toEqual(["sh", "-c", ENTRYPOINT, "sh", "2026-12-01T00:00:00.000Z", "2510:2510", "360"]);
    expect(c.upload).toEqual(["sh", "-c", UPLOAD, "sh", DAEMON_IN_COMPUTER, "ab".repeat(32)]);
    expect(c.bridge).toEqual([...BRIDGE]);
    expect(BRIDGE).toEqual(["/opt/agentrun/computerd", "stdio"]);
    expect(imageEntrypoint("D", "1:1")).toEqual([DAEMON_IN_COMPUTER, "init", "--deadline", "D", "--user", "1:1", "--own-network"]);
    expect(imageLayer("/work")).toEqual(["ENV HOME=/work", "WORKDIR /work"]);
    expect(imageLayer("/srv", "r/d@sha256:" + "0".repeat(64))[0]).toBe(`COPY --from=r/d@sha256:${"0".repeat(64)} /computerd ${DAEMON_IN_COMPUTER}`);
  });
});

describe.each(SHELLS)("under %s", (_name, shell) => {
  it("waits for the daemon, then execs init as the user with its own network and HOME=/work", () => {
    const dir = scratch();
    const daemon = `${dir}/computerd`;
    // The daemon arrives 0.5 s after the start, as the upload's rename.
    const script = `( sleep 0.5; printf '#!/bin/sh\\necho "$HOME|$*"\\n' > ${dir}/x; chmod 755 ${dir}/x; mv ${dir}/x ${daemon} ) & ${moved(ENTRYPOINT, dir)}`;
    const ran = spawnSync(shell[0]!, [...shell.slice(1), "-c", script, "sh", "2026-12-01T00:00:00.000Z", "2510:2510", "5"], {
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(ran.stderr).toBe("");
    expect(ran.status).toBe(0);
    expect(ran.stdout.trim()).toBe("/work|init --deadline 2026-12-01T00:00:00.000Z --user 2510:2510 --own-network");
  });

  it("says so and exits 3 when no daemon comes within its wait", () => {
    const dir = scratch();
    const started = Date.now();
    const ran = spawnSync(shell[0]!, [...shell.slice(1), "-c", moved(ENTRYPOINT, dir), "sh", "D", "2510:2510", "1"], { encoding: "utf8", timeout: 15_000 });
    expect(ran.status).toBe(3);
    expect(ran.stderr).toMatch(/no daemon at .*computerd after 1 s, so the computer ends/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("puts the daemon in place, 0755, only when the sha256 it prints is the one given", () => {
    const dir = scratch();
    const bytes = Buffer.from("#!/bin/sh\necho daemon\n".repeat(1000));
    const sha = createHash("sha256").update(bytes).digest("hex");
    const ran = spawnSync(shell[0]!, [...shell.slice(1), "-c", moved(UPLOAD, dir), "sh", `${dir}/computerd`, sha], {
      input: bytes,
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(ran.status).toBe(0);
    expect(ran.stdout).toBe(`sha256 ${sha}\n`);
    expect(readFileSync(`${dir}/computerd`)).toEqual(bytes);
    expect(statSync(`${dir}/computerd`).mode & 0o777).toBe(0o755);
    expect(existsSync(`${dir}/.computerd.part`)).toBe(false);
  });

  it("refuses a daemon whose sha256 is not the one given: exit 4, nothing in place, no part left", () => {
    const dir = scratch();
    writeFileSync(`${dir}/keep`, "");
    chmodSync(`${dir}/keep`, 0o644);
    const ran = spawnSync(shell[0]!, [...shell.slice(1), "-c", moved(UPLOAD, dir), "sh", `${dir}/computerd`, "0".repeat(64)], {
      input: "other",
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(ran.status).toBe(4);
    expect(ran.stdout).toMatch(/^sha256 [0-9a-f]{64}\n$/);
    expect(ran.stderr).toMatch(/the upload's sha256 is [0-9a-f]{64}, not 0{64}/);
    expect(existsSync(`${dir}/computerd`)).toBe(false);
    expect(existsSync(`${dir}/.computerd.part`)).toBe(false);
  });
});
