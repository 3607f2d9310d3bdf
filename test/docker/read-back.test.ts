// The files' read-back from inside (src/inside/load.ts readBack): `computerd sums`, the daemon's
// own binary, gives each regular file's mode and sha256 on the base image (no python3) and on the
// provider's default image alike, and no hasher of the image's is asked (a python3 and a sha256sum
// that fail, ahead on PATH, change nothing). Each computer is removed by its exact name.
import { createHash, randomBytes } from "node:crypto";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBack } from "../../src/inside/load.js";
import { openSession, type Session } from "../../src/inside/session.js";
import { dockerRecipe, recipeTag } from "../../src/docker/image.js";
import { docker, inside, makeComputer } from "../support/inside-helpers.js";
import { IMAGE } from "../support/docker-helpers.js";

const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");
const big = randomBytes(3 << 20);
const PATHS = ["a.txt", "dir with space/b.bin", "suid", "link", "adir", "missing", "locked"];
// Regular files alone, each by its mode and bytes; a link, a folder, a missing path and one the
// user may not read are left out.
const WANT = {
  "a.txt": { mode: "644", sha256: sha("hello\n") },
  "dir with space/b.bin": { mode: "600", sha256: sha(big) },
  suid: { mode: "4755", sha256: sha("run\n") },
};
// As the computer's user (the owner of its home), so "locked" is unreadable to the read-back too.
const FIXTURE = `cd ~ && printf 'hello\\n' > a.txt && mkdir -p 'dir with space' adir && base64 -d > 'dir with space/b.bin' && chmod 600 'dir with space/b.bin'
printf 'run\\n' > suid && chmod 4755 suid && ln -s a.txt link && echo no > locked && chmod 000 locked`;

const computers: Array<{ name: string; remove(): Promise<void> }> = [];
const sessions: Session[] = [];
afterAll(async () => {
  for (const s of sessions) await s.close();
  for (const c of computers) await c.remove();
}, 60_000);

/** A script as root (the image's /usr/local/bin is root's): its stderr. */
const asRoot = async (name: string, script: string) => (await execa("docker", ["exec", "-u", "0", name, "sh", "-c", script], { reject: false })).stderr;

async function withFixture(image: string): Promise<{ name: string; session: Session }> {
  const c = await makeComputer({ image });
  computers.push(c);
  const session = await openSession(docker, c.name);
  if (!session.ok) throw new Error(session.error.message);
  sessions.push(session.value);
  const { home } = session.value;
  const user = (await inside(c.name, `stat -c %u:%g ${home}`)).stdout;
  const made = await execa("docker", ["exec", "-i", "-u", user, "-e", `HOME=${home}`, c.name, "sh", "-c", FIXTURE], {
    input: big.toString("base64"),
    reject: false,
  });
  expect(made.stderr).toBe("");
  return { name: c.name, session: session.value };
}

describe("the read-back from inside", () => {
  let plain: { name: string; session: Session };
  let withPython: { name: string; session: Session };

  beforeAll(async () => {
    [plain, withPython] = await Promise.all([withFixture(IMAGE), withFixture(recipeTag(dockerRecipe(IMAGE)))]);
  }, 600_000);

  it("gives each regular file's mode and sha256 by the daemon's own sums in an image with no python3", async () => {
    expect((await inside(plain.name, "command -v python3 || echo none")).stdout).toBe("none");
    expect(await readBack(plain.session, PATHS)).toEqual({ ok: true, value: WANT });
  }, 60_000);

  it("asks no hasher of the image's: a python3 and a sha256sum that fail change nothing", async () => {
    const failing = (tool: string) => `printf '#!/bin/sh\\ntouch /tmp/${tool}-ran\\nexit 1\\n' > /usr/local/bin/${tool} && chmod 755 /usr/local/bin/${tool}`;
    expect(await asRoot(withPython.name, `${failing("python3")} && ${failing("sha256sum")}`)).toBe("");
    try {
      expect(await readBack(withPython.session, PATHS)).toEqual({ ok: true, value: WANT });
      expect((await inside(withPython.name, "ls /tmp/*-ran 2>/dev/null || echo none")).stdout).toBe("none");
    } finally {
      await asRoot(withPython.name, "rm -f /usr/local/bin/python3 /usr/local/bin/sha256sum /tmp/python3-ran /tmp/sha256sum-ran");
    }
  }, 60_000);
});
