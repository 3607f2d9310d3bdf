// agentrun ls and exec against a real Docker computer, and the refusals a person meets first.
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { RUN_LABEL, EPOCH_LABEL } from "../../src/contract/labels.js";
import { ROOT } from "../support/toolchain.js";
import { agentrun, computers, labelFlags } from "../support/cli-helpers.js";
import { settingsKeys } from "../../src/registry/settings.js";

const fleet = computers();
let name: string;

beforeAll(async () => {
  name = await fleet.make({ labels: { [RUN_LABEL]: "cli-test", [EPOCH_LABEL]: "7" } });
}, 120_000);

describe("agentrun ls", () => {
  it("lists the computer in columns: name, kind, state, deadline, run, epoch and drift", async () => {
    const ls = await agentrun(["ls", ...labelFlags(fleet.label)]);
    expect(ls.exitCode).toBe(0);
    const [header, row, ...rest] = String(ls.stdout).trim().split("\n");
    expect(header!.split(/\s+/)).toEqual(["NAME", "KIND", "STATE", "DEADLINE", "RUN", "EPOCH", "DRIFT"]);
    expect(row!.split(/\s+/)).toEqual([name, "linux", "running", expect.stringMatching(/^\d{4}-\d\d-\d\dT/), "cli-test", "7", "ok"]);
    expect(rest).toEqual([]);
  });

  it("--json gives the same fields for a script", async () => {
    const ls = await agentrun(["ls", "--json", ...labelFlags(fleet.label)]);
    expect(ls.exitCode).toBe(0);
    const rows = JSON.parse(String(ls.stdout));
    expect(rows).toEqual([
      expect.objectContaining({ name, provider: "docker", kind: "linux", state: "running", run: "cli-test", epoch: "7", drift: "ok", driftWords: [] }),
    ]);
    expect(Date.parse(rows[0].deadline)).toBeGreaterThan(Date.now());
  });

  it("a computer stopped by hand reads stopped in its drift, in a word and in words, as a refresh shows it", async () => {
    const stopped = await fleet.make({ labels: { [RUN_LABEL]: "cli-test-stopped" } });
    await execa("docker", ["stop", "-t", "1", stopped]);
    const only = ["--label", `${RUN_LABEL}=cli-test-stopped`, ...labelFlags(fleet.label)];
    const ls = await agentrun(["ls", ...only]);
    expect(String(ls.stdout).trim().split("\n")[1]!.split(/\s+/)).toEqual([
      stopped,
      "linux",
      "stopped",
      expect.any(String),
      "cli-test-stopped",
      "-",
      "stopped",
    ]);
    const [row] = JSON.parse(String((await agentrun(["ls", "--json", ...only])).stdout));
    expect(row).toMatchObject({
      state: "stopped",
      drift: "stopped",
      driftWords: [expect.stringMatching(/^stopped before its deadline \S+ \(by hand, or its programs ended\)$/)],
    });
    const exec = await agentrun(["exec", stopped, "--", "true"]);
    expect(exec.stderr).toMatch(/^agentrun: computer-[0-9a-f]{12} is stopped before its deadline /);
  });

  it("a --label with no =value is refused in those words", async () => {
    const ls = await agentrun(["ls", "--label", "foo"]);
    expect(ls.exitCode).toBe(2);
    expect(ls.stderr).toContain('--label takes key=value; "foo" has no "=value"');
  });

  it("says so when no computer has the label", async () => {
    const ls = await agentrun(["ls", "--label", "agentrun.test=none-has-this"]);
    expect(ls.exitCode).toBe(0);
    expect(ls.stdout).toBe("no computers at docker with those labels");
  });
});

describe("agentrun exec", () => {
  it("exits 0 and prints stdout and stderr apart", async () => {
    const run = await agentrun(["exec", name, "--", "sh", "-c", "echo to-out; echo to-err >&2"]);
    expect({ code: run.exitCode, out: run.stdout, err: run.stderr }).toEqual({ code: 0, out: "to-out", err: "to-err" });
  });

  it("exits with the program's code", async () => {
    const run = await agentrun(["exec", name, "--", "sh", "-c", "echo before; exit 3"]);
    expect({ code: run.exitCode, out: run.stdout }).toEqual({ code: 3, out: "before" });
  });

  it("exits 124 on --timeout, as timeout(1) does, with what came before", async () => {
    const started = Date.now();
    const run = await agentrun(["exec", name, "--timeout", "1", "--", "sh", "-c", "echo started; sleep 30"]);
    expect({ code: run.exitCode, out: run.stdout, err: run.stderr }).toEqual({ code: 124, out: "started", err: "agentrun: sh was killed after --timeout 1 s" });
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("takes --env, --cwd and --user", async () => {
    const run = await agentrun([
      "exec",
      name,
      "--env",
      "GREETING=hi",
      "--cwd",
      "/tmp",
      "--user",
      "1000:1000",
      "--",
      "sh",
      "-c",
      'echo "$GREETING $(pwd) $(id -u)"',
    ]);
    expect({ code: run.exitCode, out: run.stdout }).toEqual({ code: 0, out: "hi /tmp 1000" });
  });

  it("gives a piped stdin to the program, and closes it at its end", async () => {
    const run = await agentrun(["exec", name, "--", "sh", "-c", "wc -l; cat"], { input: "one\ntwo\nthree\n" });
    expect({ code: run.exitCode, out: run.stdout }).toEqual({ code: 0, out: "3" });
  });

  it("streams output as it comes, before the program ends", async () => {
    const run = agentrun(["exec", name, "--", "sh", "-c", "echo first; sleep 4; echo second"]);
    const first = await new Promise<number>((resolve) => run.stdout!.once("data", () => resolve(Date.now())));
    const ended = await run;
    expect(ended.stdout).toBe("first\nsecond");
    // The first line arrived while the program still slept.
    expect(Date.now() - first).toBeGreaterThan(2_000);
  });
});

describe("bad input", () => {
  it("an unknown computer exits 2 and names what there is to do", async () => {
    const run = await agentrun(["exec", "computer-000000000000", "--", "true"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/^agentrun: there is no computer "computer-000000000000" at docker \(.*\); `agentrun ls` lists them$/);
  });

  it("a bad flag exits 2 in words, with where to read more", async () => {
    const run = await agentrun(["exec", name, "--bogus", "--", "true"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe("error: unknown option '--bogus'\n(see `agentrun exec --help`)");
  });

  it("a bad --timeout exits 2 in words", async () => {
    const run = await agentrun(["exec", name, "--timeout", "soon", "--", "true"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("give seconds, above 0 and at most a day (86400)");
  });

  it("an unknown provider exits 2 naming the registry's", async () => {
    const run = await agentrun(["ls", "--provider", "nimbus"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('there is no provider "nimbus": the registry holds docker');
  });

  it("--help on every subcommand exits 0 with its usage", async () => {
    for (const sub of ["ls", "exec", "shell", "cp", "sweep"]) {
      const help = await agentrun([sub, "--help"]);
      expect(help.exitCode, sub).toBe(0);
      expect(help.stdout, sub).toMatch(new RegExp(`^Usage: agentrun ${sub} `));
    }
    const conformance = await agentrun(["conformance", "--help"]);
    expect(conformance.exitCode).toBe(0);
    expect(conformance.stdout).toMatch(/^usage: npm run conformance -- --provider/);
  });
});

describe("settings refused", () => {
  it("a setting the provider refuses exits 2, naming the flag and the stack's line that change it", async () => {
    const run = await agentrun(["ls", "--set", "user=0"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/^agentrun: the docker provider could not be made from its settings: docker: .*user option 0:0 is root/);
    expect(run.stderr).toContain("change one with --set <key>=<value>, or in the stack with `pulumi config set --path agentrun:docker.<key> <value>`");
  });
});

describe("settings: the library's schema, and the engine as the plugin finds it", () => {
  it("a --set key the provider does not take exits 2, naming it and the keys it takes", async () => {
    const run = await agentrun(["ls", "--set", "imag=alpine", ...labelFlags(fleet.label)]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.startsWith(`agentrun: --set imag: docker has no setting imag: it takes ${settingsKeys().docker!.join(", ")}\n`)).toBe(true);
    expect(settingsKeys().docker).toEqual(expect.arrayContaining(["user", "image", "daemonPath", "daemonCache", "engine", "egress"]));
  });

  it("with no engine named, follows DOCKER_HOST as the plugin does; a named engine wins over it", async () => {
    const nowhere = "unix:///tmp/agentrun-no-engine-here/docker.sock";
    const followed = await agentrun(["ls", ...labelFlags(fleet.label)], { env: { DOCKER_HOST: nowhere } });
    expect(followed.exitCode).toBe(1);
    expect(followed.stderr).toContain(`Docker is not answering at ${nowhere} (from DOCKER_HOST`);
    const tcp = await agentrun(["ls", ...labelFlags(fleet.label)], { env: { DOCKER_HOST: "tcp://127.0.0.1:2375" } });
    expect(tcp.exitCode).toBe(2);
    // Plain TCP is refused: an engine that takes it is root on its host for anyone who reaches it.
    expect(tcp.stderr).toContain("DOCKER_HOST names an engine over TCP with no TLS material");
    const named = await agentrun(["ls", "--set", "engine=unix:///var/run/docker.sock", ...labelFlags(fleet.label)], { env: { DOCKER_HOST: nowhere } });
    expect(named.exitCode, named.stderr).toBe(0);
    expect(named.stdout).toContain(name);
  });
});

describe("the bin", () => {
  it("npx agentrun runs it from the project, as the set-up leaves it", async () => {
    const run = await execa("npx", ["--no-install", "agentrun", "--help"], { cwd: ROOT, reject: false });
    expect(run.exitCode, String(run.stderr)).toBe(0);
    expect(run.stdout).toMatch(/^Usage: agentrun /);
  });
});
