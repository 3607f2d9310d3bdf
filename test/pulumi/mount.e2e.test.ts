// The Mount resource through the real Pulumi engine, as a story: up, a second up with no
// changes, the folder removed by hand and brought back, its mode changed by hand and healed,
// destroy. Then the check refusals, each in its words, with nothing made.
import { chmod, lstat, mkdtemp, rm, stat, symlink, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { testStack, type TestStack } from "../support/stack.js";

const exists = (p: string) =>
  lstat(p).then(
    () => true,
    () => false,
  );

describe("Mount (bind) through the real engine", () => {
  let base: string;
  let folder: string;
  let s: TestStack;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-mount-"));
    folder = join(base, "runs/r1/work");
    s = await testStack(
      "mount",
      { run: { type: "agentrun:index:Mount", properties: { path: folder, user: "1000:1000" } } },
      {
        mount: "${run.mount}",
        drift: "${run.drift}",
      },
    );
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
    await rm(base, { recursive: true, force: true });
  }, 120_000);

  test("up makes the folder: canonical, owned by the user, mode 0700", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.result).toBe("succeeded");
    const st = await stat(folder);
    expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([1000, 1000, 0o700]);
    expect(up.outputs.mount?.value).toEqual({ kind: "bind", path: folder });
    expect(up.outputs.drift?.value).toEqual([]);
  });

  test("a second up reports no changes", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toEqual({ same: 2 });
  });

  test("the folder removed by hand: preview --refresh exits 7 and shows it made again; refresh drops it; up makes it", async () => {
    await rm(folder, { recursive: true });
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toMatch(/\+\s+agentrun:index:Mount\s+run\s+create/);

    const refresh = await s.stack.refresh({ color: "never" });
    expect(refresh.summary.resourceChanges).toMatchObject({ delete: 1 });
    const resources = (await s.stack.exportStack()).deployment.resources ?? [];
    expect(resources.filter((r: { type: string }) => r.type === "agentrun:index:Mount")).toEqual([]);

    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toMatchObject({ create: 1 });
    expect((await stat(folder)).mode & 0o7777).toBe(0o700);
  });

  test("chmod 0755 by hand: preview --refresh shows the mode drift; up heals it", async () => {
    await chmod(folder, 0o755);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toMatch(/mode\s*:\s*"0755" => "0700"/);
    expect(preview.stdout).toContain(`the run folder ${folder} has mode 0755, not 0700`);

    const up = await s.stack.up({ color: "never", refresh: true });
    expect(up.summary.resourceChanges).toMatchObject({ update: 1 });
    expect((await stat(folder)).mode & 0o7777).toBe(0o700);
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);
  });

  test("destroy removes the folder", async () => {
    await s.stack.destroy({ color: "never" });
    expect(await exists(folder)).toBe(false);
  });
});

describe("Mount check refusals through the real engine", () => {
  let base: string;
  let s: TestStack;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-refuse-"));
    await mkdir(join(base, "real"));
    await symlink(join(base, "real"), join(base, "link"));
    s = await testStack("refuse", {});
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
    await rm(base, { recursive: true, force: true });
  }, 120_000);

  const refused = async (properties: Record<string, unknown>, words: string) => {
    await s.program({ run: { type: "agentrun:index:Mount", properties } });
    const preview = await s.cli("preview");
    expect(preview.exitCode).not.toBe(0);
    expect(preview.stdout + preview.stderr).toContain(words);
  };

  test("a relative path", () => refused({ path: "runs/r1/work" }, `the run folder's path must be absolute (it is "runs/r1/work")`));
  test("a path through a symlink", () => refused({ path: `${base}/link/work` }, `the run folder's path passes through a symlink at ${base}/link`));
  test("a user that is not uid:gid", () => refused({ path: `${base}/real/w`, user: "agent" }, "user is a uid or uid:gid in numbers"));
  test("an unknown field", () => refused({ path: `${base}/real/w`, colour: "blue" }, "colour"));
  test("nothing was made", async () => {
    expect(await exists(`${base}/real/w`)).toBe(false);
    expect(await exists("runs")).toBe(false);
  });
});

describe("Mount settings and secrets through the real engine", () => {
  let base: string;
  let s: TestStack;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-cfg-"));
    s = await testStack("config", {
      plain: { type: "agentrun:index:Mount", properties: { path: join(base, "plain") } },
      hidden: { type: "agentrun:index:Mount", properties: { path: { "fn::secret": join(base, "hidden") } } },
    });
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
    await rm(base, { recursive: true, force: true });
  }, 120_000);

  test("the default user comes from the stack's agentrun:docker config", async () => {
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ user: "1234:1234" }) });
    await s.stack.up({ color: "never" });
    const st = await stat(join(base, "plain"));
    expect([st.uid, st.gid]).toEqual([1234, 1234]);
  });

  test("a path given as a secret is stored as one: never in clear in the state", async () => {
    const { stdout } = await execa("grep", ["-rl", "--", join(base, "plain"), join(s.dir, "state")], { reject: false });
    expect(stdout).toContain(".json");
    const leaks = await execa("grep", ["-rl", "--", join(base, "hidden"), join(s.dir, "state")], { reject: false });
    expect(leaks.stdout).toBe("");
    const hidden = (await s.stack.exportStack()).deployment.resources.find((r: { urn: string }) => r.urn.endsWith("::hidden"));
    for (const field of ["path", "mount", "drift"]) expect(Object.keys(hidden.outputs[field]), field).toContain("4dabf18193072939515e22adb298388d");
    expect((await stat(join(base, "hidden"))).mode & 0o7777).toBe(0o700);
  });

  test("a setting the plugin does not take fails the check in words, naming the key", async () => {
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ apiKey: "sk-never-shown" }) });
    const preview = await s.cli("preview");
    expect(preview.exitCode).not.toBe(0);
    expect(preview.stdout + preview.stderr).toContain("the stack's agentrun config has settings this plugin does not take or cannot read: agentrun:docker");
    expect(preview.stdout + preview.stderr).not.toContain("sk-never-shown");
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ user: "1234:1234" }) });
  });
});
