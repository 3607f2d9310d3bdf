// ComputerApp against a real Docker computer: a small HTTP service (perl, on the loopback)
// installed from an archive, started with its settings, waited on by its port; a service killed
// inside is drift and update restarts it; a service that never answers fails the create with its
// last words and leaves nothing; delete stops the services and all they started, and removes the
// folder.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { computerApp } from "../../provider/resources/computer-app.js";
import { computerCommand } from "../../provider/resources/computer-command.js";
import { secret } from "../../provider/secrets.js";
import { docker, inside, makeComputer, stepContext } from "../support/inside-helpers.js";
import { provider, toolchain } from "../support/docker-helpers.js";
import { pipWheel, TINYAPP_GREETING, writeTinyapp } from "../support/python-wheel.js";

const SIG = "4dabf18193072939515e22adb298388d";
const text = (t: string) => ({ [SIG]: "c44067f5952c0a294b673a41bacd8c17", text: t, hash: t.length.toString() });
const archive = (assets: Record<string, unknown>) => ({ [SIG]: "0def7320c3a5731c473e5ecbe6d01bc7", assets, hash: "a" });

// Answers every request with its settings, on the port its env names, on the loopback alone.
// The request is read to its blank line: a close with a line left unread resets the connection,
// which can reach the client before the answer does.
const SERVE = `use IO::Socket::INET;
my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $ENV{PORT}, Listen => 5, ReuseAddr => 1) or die "listen: $!";
while (my $c = $s->accept) { while (my $l = <$c>) { last if $l =~ /^\\r?$/ } print $c "HTTP/1.0 200 OK\\r\\n\\r\\n$ENV{AGENTRUN_APP_SETTINGS}\\n"; close $c; }
`;
const GET = (port: number) => `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && tail -n 1 <&3`;
const schema = { type: "object", properties: { greeting: { type: "string" }, token: { type: "string", writeOnly: true } }, required: ["greeting"] };

let computer: { name: string; remove(): Promise<void> };
beforeAll(async () => {
  computer = await makeComputer();
}, 120_000);
afterAll(async () => {
  await computer?.remove();
}, 60_000);

const make = async (news: Record<string, unknown>) => {
  const checked = await computerApp.check(stepContext(), {}, { computer: computer.name, ...news });
  expect(checked.failures ?? []).toEqual([]);
  return checked.inputs!;
};

describe("ComputerApp on a real computer", () => {
  let outs: Record<string, unknown>;
  let inputs: Record<string, unknown>;

  test("create installs its files, starts its service with its settings, and waits for its port", async () => {
    inputs = await make({
      name: "notes",
      files: archive({ "serve.pl": text(SERVE) }),
      // The service leaves a daemon of its own in another session, which delete must end too.
      services: { web: { argv: ["sh", "-c", "setsid sleep 300 & exec perl serve.pl"], env: { PORT: "8080" } } },
      settings: { greeting: "hello", token: secret("t0k3n") },
      settingsSchema: schema,
      port: 8080,
      ready: { port: 8080, timeoutSeconds: 30 },
    });
    outs = (await computerApp.create(stepContext(), inputs)).outs!;
    expect(outs).toMatchObject({
      folder: ".agentrun/apps/notes",
      address: "http://127.0.0.1:8080",
      running: { web: { id: expect.stringMatching(/^p\d+$/), pid: expect.any(Number) } },
      drift: [],
    });
    expect(Object.keys(outs.written as object)).toEqual([".agentrun/apps/notes/serve.pl"]);
    expect(JSON.parse((await inside(computer.name, GET(8080))).stdout)).toEqual({ greeting: "hello", token: "t0k3n" });
  }, 120_000);

  test("a command given the app reaches it at its address, from its variable, with no network", async () => {
    const checked = await computerCommand.check(
      stepContext(),
      {},
      {
        computer: computer.name,
        command: [
          "bash",
          "-c",
          'a=${AGENTRUN_APP_NOTES_URL#http://}; exec 3<>/dev/tcp/${a%:*}/${a##*:} && printf "GET / HTTP/1.0\\r\\n\\r\\n" >&3 && tail -n 1 <&3',
        ],
        apps: { notes: outs.address },
      },
    );
    expect(checked.failures ?? []).toEqual([]);
    const ran = await computerCommand.create(stepContext(), checked.inputs!);
    expect(JSON.parse(String(ran.outs!.stdout))).toEqual({ greeting: "hello", token: "t0k3n" });
  }, 120_000);

  test("read finds it as installed; a service killed inside is drift; update restarts it", async () => {
    expect((await computerApp.read(stepContext(), "app-x", outs)).props).toMatchObject({ drift: [] });
    const pid = (outs.running as { web: { pid: number } }).web.pid;
    await inside(computer.name, `kill -9 ${pid}`);
    let drifted: Record<string, unknown> = {};
    for (let i = 0; i < 50; i++) {
      drifted = (await computerApp.read(stepContext(), "app-x", outs)).props as Record<string, unknown>;
      if ((drifted.drift as string[]).length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(drifted.drift).toEqual(["the service web is not running (ended on KILL)"]);
    expect(await computerApp.diff(stepContext(), "app-x", drifted, inputs)).toMatchObject({ changes: true, replaces: [] });
    outs = (await computerApp.update(stepContext(), "app-x", drifted, inputs)).outs!;
    expect((outs.running as { web: { pid: number } }).web.pid).not.toBe(pid);
    expect(JSON.parse((await inside(computer.name, GET(8080))).stdout)).toMatchObject({ greeting: "hello" });
    expect((await computerApp.read(stepContext(), "app-x", outs)).props).toMatchObject({ drift: [] });
  }, 120_000);

  test("delete stops its services and what they started, and removes its folder", async () => {
    await computerApp.delete(stepContext(), "app-x", outs);
    expect(
      (
        await inside(
          computer.name,
          "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -qE '^(sleep 300|perl serve.pl)' && echo $p; done; true",
        )
      ).stdout,
    ).toBe("");
    expect((await inside(computer.name, "ls -A ~/.agentrun/apps")).stdout).toBe("");
  }, 120_000);

  test("a service that cannot start fails the create, and the one started before it is stopped", async () => {
    const half = await make({ name: "half", services: { first: { argv: ["sleep", "300"] }, second: { argv: ["/no/such/program"] } } });
    await expect(computerApp.create(stepContext(), half)).rejects.toThrow(`${computer.name}: the service second could not start: `);
    expect(
      (await inside(computer.name, "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q '^sleep 300' && echo $p; done; true")).stdout,
    ).toBe("");
    expect((await inside(computer.name, "ls -A ~/.agentrun/apps")).stdout).toBe("");
  }, 120_000);

  test("a service that never answers fails the create with its state and last words, and leaves nothing", async () => {
    const broken = await make({
      name: "broken",
      services: { web: { argv: ["sh", "-c", "echo no config found >&2; exit 2"] } },
      ready: { port: 8099, timeoutSeconds: 2 },
    });
    await expect(computerApp.create(stepContext(), broken)).rejects.toThrow(
      `${computer.name}: port 8099 on the loopback did not answer within 2 s; its services were stopped: web exited 2 (no config found)`,
    );
    expect((await inside(computer.name, "ls -A ~/.agentrun/apps")).stdout).toBe("");
  }, 120_000);
});

describe("ComputerApp as the seed declares it, on a real computer", () => {
  const other = process.arch === "arm64" ? "amd64" : "arm64";
  const here = process.arch === "arm64" ? "arm64" : "amd64";
  const appsThere = async () => (await inside(computer.name, "ls -A ~/.agentrun/apps 2>/dev/null; true")).stdout;

  test("supports that exclude the computer refuse the app in words, with nothing written", async () => {
    const inputs = await make({ name: "elsewhere", services: { web: { argv: ["sleep", "300"] } }, supports: { os: ["linux"], arch: [other] } });
    await expect(computerApp.create(stepContext(), inputs)).rejects.toThrow(
      `${computer.name}: the app elsewhere does not run on this computer, which is arch ${here} (it supports ${other}); nothing of it was written`,
    );
    expect(await appsThere()).toBe("");
  }, 120_000);

  test("supports changed to exclude the computer refuse the update in words, with the app left as it was", async () => {
    const inputs = await make({ name: "stays", services: { web: { argv: ["sleep", "303"] } } });
    const outs = (await computerApp.create(stepContext(), inputs)).outs!;
    const narrowed = await make({ name: "stays", services: { web: { argv: ["sleep", "303"] } }, supports: { arch: [other] } });
    await expect(computerApp.update(stepContext(), "app-s", outs, narrowed)).rejects.toThrow(
      `${computer.name}: the app stays does not run on this computer, which is arch ${here} (it supports ${other}); the app is left as it was`,
    );
    expect((await computerApp.read(stepContext(), "app-s", outs)).props).toMatchObject({ drift: [] });
    await computerApp.delete(stepContext(), "app-s", outs);
  }, 120_000);

  test("install steps run once, in order, as the computer's user, from its folder; the skill and permissions are given back; the launch runs", async () => {
    const said: string[] = [];
    const inputs = await make({
      name: "tool",
      files: archive({ "tool.sh": text("echo tool") }),
      supports: { os: ["linux"], arch: [here] },
      permissions: ["reads ~/Documents", "listens on the loopback"],
      skill: text("# tool\nRun tool.sh to see it work.\n"),
      installSteps: [
        { name: "first", command: "echo first >> steps.log; id -u; pwd" },
        { name: "second", command: ["sh", "-c", "echo second >> steps.log; echo built > built.txt"] },
      ],
      launch: { argv: ["sleep", "300"] },
    });
    const outs = (await computerApp.create(stepContext(said), inputs)).outs!;
    const uid = (await inside(computer.name, "id -u")).stdout;
    const home = (await inside(computer.name, "echo $HOME")).stdout;
    expect(outs.installed).toEqual([
      { name: "first", exitCode: 0, stdout: `${uid}\n${home}/.agentrun/apps/tool\n`, stderr: "" },
      { name: "second", exitCode: 0, stdout: "", stderr: "" },
    ]);
    expect((await inside(computer.name, "cat ~/.agentrun/apps/tool/steps.log")).stdout).toBe("first\nsecond");
    expect(outs.skillText).toBe("# tool\nRun tool.sh to see it work.\n");
    expect(Object.keys(outs.written as object).sort()).toEqual([".agentrun/apps/tool/SKILL.md", ".agentrun/apps/tool/tool.sh"]);
    expect(outs.permissions).toEqual(["reads ~/Documents", "listens on the loopback"]);
    expect(said).toContain("tool asks for: reads ~/Documents; listens on the loopback");
    expect(outs.launched).toMatchObject({ id: expect.stringMatching(/^p\d+$/), pid: expect.any(Number) });

    // A launch killed inside is drift; update starts it again and runs no install step again.
    await inside(computer.name, `kill -9 ${(outs.launched as { pid: number }).pid}`);
    let drifted: Record<string, unknown> = {};
    for (let i = 0; i < 50; i++) {
      drifted = (await computerApp.read(stepContext(), "app-t", outs)).props as Record<string, unknown>;
      if ((drifted.drift as string[]).length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(drifted.drift).toEqual(["the launch is not running (ended on KILL)"]);
    const healed = (await computerApp.update(stepContext(), "app-t", drifted, inputs)).outs!;
    expect((healed.launched as { pid: number }).pid).not.toBe((outs.launched as { pid: number }).pid);
    expect(healed.installed).toEqual(outs.installed);
    expect((await inside(computer.name, "cat ~/.agentrun/apps/tool/steps.log")).stdout).toBe("first\nsecond");
    expect((await computerApp.read(stepContext(), "app-t", healed)).props).toMatchObject({ drift: [] });

    await computerApp.delete(stepContext(), "app-t", healed);
    expect(
      (await inside(computer.name, "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q '^sleep 300' && echo $p; done; true")).stdout,
    ).toBe("");
    expect(await appsThere()).toBe("");
  }, 120_000);

  test("an install step that fails fails the create, naming it; what the install wrote is removed and nothing was started", async () => {
    const inputs = await make({
      name: "broken-install",
      files: archive({ "a.txt": text("a") }),
      installSteps: [
        { name: "fetch", command: "echo fetched > fetched.txt" },
        { name: "build", command: "echo missing compiler >&2; exit 4" },
        { name: "never", command: "echo never > never.txt" },
      ],
      services: { web: { argv: ["sleep", "301"] } },
    });
    await expect(computerApp.create(stepContext(), inputs)).rejects.toThrow(
      `${computer.name}: install step 2 of 3 (build) exited 4: missing compiler; what the install wrote in .agentrun/apps/broken-install is removed`,
    );
    expect(await appsThere()).toBe("");
    expect(
      (await inside(computer.name, "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q '^sleep 301' && echo $p; done; true")).stdout,
    ).toBe("");
  }, 120_000);
});

describe("ComputerApp's Python requirements, on a real computer", () => {
  let wheels = "";
  // The provider's own image, which has python3 (and no pip); the set-up's base has neither.
  let computer: { name: string; remove(): Promise<void> };
  beforeAll(async () => {
    const image = await docker.image!();
    if (!image.ok) throw new Error(image.error.message);
    computer = await makeComputer({ image: image.value });
    // A folder of wheels as an app would send: a small pure-Python one made here, and pip's own (Debian's python3-pip-whl).
    wheels = await mkdtemp(join(tmpdir(), "agentrun-seed-wheels-"));
    const pip = await pipWheel();
    await copyFile(pip, join(wheels, basename(pip)));
    await writeTinyapp(wheels);
  }, 600_000);
  afterAll(async () => {
    if (wheels) await rm(wheels, { recursive: true, force: true });
    await computer?.remove();
  }, 60_000);
  const make = async (news: Record<string, unknown>) => {
    const checked = await computerApp.check(stepContext(), {}, { computer: computer.name, ...news });
    expect(checked.failures ?? []).toEqual([]);
    return checked.inputs!;
  };

  const wheelsArchive = () => ({ [SIG]: "0def7320c3a5731c473e5ecbe6d01bc7", path: wheels, hash: "w" });

  test("installs them into a venv in the app's folder from the wheels sent, offline, and its service runs on it", async () => {
    const inputs = await make({
      name: "py",
      requirements: { python: { packages: ["tinyapp==1.0"], wheels: wheelsArchive() } },
      services: { web: { argv: [".venv/bin/python", "-c", "import tinyapp, time; open('said.txt', 'w').write(tinyapp.GREETING); time.sleep(300)"] } },
      ready: { command: ["test", "-s", ".agentrun/apps/py/said.txt"], timeoutSeconds: 30 },
    });
    const outs = (await computerApp.create(stepContext(), inputs)).outs!;
    expect(outs.pythonPackages).toEqual(["tinyapp==1.0"]);
    expect((await inside(computer.name, "cat ~/.agentrun/apps/py/said.txt")).stdout).toBe(TINYAPP_GREETING);
    await computerApp.delete(stepContext(), "app-py", outs);
    expect((await inside(computer.name, "ls -A ~/.agentrun/apps")).stdout).toBe("");
  }, 180_000);

  test("with no wheels and no pip in the image, the create fails in words, the network untouched and nothing left", async () => {
    const inputs = await make({ name: "py-no-pip", requirements: { python: { packages: ["tinyapp==1.0"] } }, services: { web: { argv: ["sleep", "304"] } } });
    await expect(computerApp.create(stepContext(), inputs)).rejects.toThrow(
      `${computer.name}: the app's Python requirements could not be installed through the computer's network as declared (exit 3): there is no pip: the computer's python3 has none, and no pip wheel was sent (put pip's wheel among the wheels: Debian's python3-pip-whl has one); what the install wrote in .agentrun/apps/py-no-pip is removed`,
    );
    expect((await inside(computer.name, "ls -A ~/.agentrun/apps")).stdout).toBe("");
  }, 180_000);

  test("a requirement that cannot be had fails the create in words, and nothing is left half-installed", async () => {
    const inputs = await make({
      name: "py-missing",
      requirements: { python: { packages: ["tinyapp==1.0", "nosuchthing==9"], wheels: wheelsArchive() } },
      services: { web: { argv: ["sleep", "302"] } },
    });
    await expect(computerApp.create(stepContext(), inputs)).rejects.toThrow(
      new RegExp(
        `^${computer.name}: the app's Python requirements could not be installed from the wheels sent with the app \\(exit 1\\): .*No matching distribution found for nosuchthing==9.*; what the install wrote in \\.agentrun/apps/py-missing is removed$`,
      ),
    );
    expect((await inside(computer.name, "ls -A ~/.agentrun/apps")).stdout).toBe("");
  }, 180_000);
});

describe("ComputerApp's launch window, on a real desktop", () => {
  const desktops = provider({ desktop: {} });
  let desk: { name: string; remove(): Promise<void> };
  let folder = "";
  // The desktop fixture (a pure-Go X client) as the app's program: a window titled as asked.
  beforeAll(async () => {
    const image = await desktops.image();
    if (!image.ok) throw new Error(image.error.message);
    desk = await makeComputer({ image: image.value, kind: "desktop" });
    folder = await mkdtemp(join(tmpdir(), "agentrun-seed-viewer-"));
    await copyFile(join(toolchain.root, "dist", "computerd-fixture-linux-amd64"), join(folder, "viewer"));
  }, 600_000);
  afterAll(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
    await desk?.remove();
  }, 60_000);
  const viewer = (title: string, timeoutSeconds: number) => ({
    files: { [SIG]: "0def7320c3a5731c473e5ecbe6d01bc7", path: folder, hash: "v" },
    launch: { argv: ["./viewer", "--log", "events.log", "--title", "Scores viewer"], window: { title, timeoutSeconds } },
  });
  const makeOn = async (on: string, news: Record<string, unknown>) => {
    const checked = await computerApp.check(stepContext(), {}, { computer: on, ...news });
    expect(checked.failures ?? []).toEqual([]);
    return checked.inputs!;
  };
  const viewers = async () =>
    (await inside(desk.name, "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q '^./viewer' && echo $p; done; true")).stdout;

  test("the launch's window is found by its title and raised; its launch killed is drift twice over; update shows it again", async () => {
    const inputs = await makeOn(desk.name, { name: "viewer", ...viewer("Scores", 20) });
    const outs = (await computerApp.create(stepContext(), inputs)).outs!;
    expect(outs.window).toEqual({ id: expect.any(Number), title: "Scores viewer" });
    expect((await inside(desk.name, "head -n 1 ~/.agentrun/apps/viewer/events.log")).stdout).toBe('{"event":"ready","height":200,"width":200}');
    expect((await computerApp.read(stepContext(), "app-v", outs)).props).toMatchObject({ drift: [] });

    await inside(desk.name, `kill -9 ${(outs.launched as { pid: number }).pid}`);
    let drifted: Record<string, unknown> = {};
    for (let i = 0; i < 50; i++) {
      drifted = (await computerApp.read(stepContext(), "app-v", outs)).props as Record<string, unknown>;
      if ((drifted.drift as string[]).length === 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(drifted.drift).toEqual(["the launch is not running (ended on KILL)", 'the launch\'s window titled "Scores" is gone']);
    const healed = (await computerApp.update(stepContext(), "app-v", drifted, inputs)).outs!;
    expect(healed.window).toEqual({ id: expect.any(Number), title: "Scores viewer" });
    expect((await computerApp.read(stepContext(), "app-v", healed)).props).toMatchObject({ drift: [] });
    await computerApp.delete(stepContext(), "app-v", healed);
    expect(await viewers()).toBe("");
  }, 180_000);

  test("a launch whose window never shows fails the create in words, with its launch stopped and nothing left", async () => {
    const inputs = await makeOn(desk.name, { name: "no-window", ...viewer("Settings", 2) });
    await expect(computerApp.create(stepContext(), inputs)).rejects.toThrow(
      `${desk.name}: no window titled "Settings" showed within 2 s; its services and launch were stopped: the launch running`,
    );
    expect(await viewers()).toBe("");
    expect((await inside(desk.name, "ls -A ~/.agentrun/apps")).stdout).toBe("");
  }, 180_000);

  test("a launch with a window is refused on a computer that is no desktop, before anything is written", async () => {
    const inputs = await makeOn(computer.name, { name: "viewer", ...viewer("Scores", 5) });
    await expect(computerApp.create(stepContext(), inputs)).rejects.toThrow(
      `${computer.name}: the app viewer does not run on this computer, which is kind linux, not a desktop, where a launch's window shows; nothing of it was written`,
    );
    expect((await inside(computer.name, "ls -A ~/.agentrun/apps 2>/dev/null; true")).stdout).toBe("");
  }, 120_000);
});
