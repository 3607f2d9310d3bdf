// agentrun --stack: the provider's settings read from a stack's agentrun: config through the Pulumi
// CLI, with the local backend and passphrase `npm run up` uses, and no environment variable.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentrun, computers, labelFlags } from "../support/cli-helpers.js";
import { toolchain } from "../support/docker-helpers.js";

const fleet = computers();
const project = mkdtempSync(path.join(tmpdir(), "agentrun-cli-stack-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** The Pulumi CLI in the project, as scripts/up.sh runs it. */
function pulumi(...args: string[]): string {
  return execFileSync(path.join(toolchain.pulumiBin, "pulumi"), args, {
    cwd: project,
    encoding: "utf8",
    env: {
      ...process.env,
      PULUMI_BACKEND_URL: `file://${project}/.pulumi`,
      PULUMI_CONFIG_PASSPHRASE: "agentrun-local",
      PULUMI_SKIP_UPDATE_CHECK: "true",
    },
  });
}

beforeAll(async () => {
  writeFileSync(path.join(project, "Pulumi.yaml"), "name: cli-stack-test\nruntime: yaml\n");
  mkdirSync(path.join(project, ".pulumi"));
  pulumi("stack", "init", "dev");
  // A daemon path no file is at: every drift check then says so, naming it, so the words show the setting was read.
  pulumi("config", "set", "--path", "agentrun:docker.daemonPath", "/nowhere/computerd");
  await fleet.make();
}, 120_000);

describe("agentrun --stack", () => {
  it("reads the provider's settings from the stack's agentrun: config", async () => {
    const ls = await agentrun(["ls", "--json", "--stack", "dev", ...labelFlags(fleet.label)], { cwd: project });
    expect(ls.exitCode, String(ls.stderr)).toBe(0);
    const [row] = JSON.parse(String(ls.stdout));
    expect(row.drift).toBe("unknown");
    expect(row.driftWords.join(" ")).toContain("/nowhere/computerd");
  });

  it("without --stack, the same command uses the packaged daemon and reads ok", async () => {
    const ls = await agentrun(["ls", "--json", ...labelFlags(fleet.label)], { cwd: project });
    expect(JSON.parse(String(ls.stdout))[0].drift).toBe("ok");
  });

  it("a --set flag stands over the stack's setting", async () => {
    const ls = await agentrun(["ls", "--json", "--stack", "dev", "--set", `daemonPath=${toolchain.daemon.amd64}`, ...labelFlags(fleet.label)], {
      cwd: project,
    });
    expect(JSON.parse(String(ls.stdout))[0].drift).toBe("ok");
  });

  it("a stack that is not there exits 2, naming where it looked and what to run", async () => {
    const ls = await agentrun(["ls", "--stack", "nope"], { cwd: project });
    expect(ls.exitCode).toBe(2);
    expect(ls.stderr).toContain(`the stack "nope" could not be read from file://${project}/.pulumi in ${project}`);
    expect(ls.stderr).toContain("`npm run up` makes the project's stack; `pulumi stack ls` lists the stacks there");
  });
});
