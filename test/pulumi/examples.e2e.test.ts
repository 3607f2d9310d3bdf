// Every YAML example and the root stack pass the real engine's preview (schema, types and the
// plugin's checks) with the plugin from this work tree: an example that rots fails here. Each is
// copied to a temporary folder with its plugin path made absolute; preview makes nothing. The
// root stack then goes up, and a plain `pulumi up` heals a computer stopped by hand.
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { parse, stringify } from "yaml";
import { describe, expect, test } from "vitest";
import { randomBytes } from "node:crypto";
import { docker, exists } from "../support/docker.js";
import { pulumiEnv } from "../support/stack.js";
import { ROOT, toolchain } from "../support/toolchain.js";

const examples = (await readdir(`${ROOT}/examples`, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => `examples/${d.name}`);

async function yamlProjects(): Promise<string[]> {
  const found = ["."];
  for (const dir of examples) {
    const text = await readFile(`${ROOT}/${dir}/Pulumi.yaml`, "utf8").catch(() => undefined);
    if (text !== undefined && parse(text).runtime === "yaml") found.push(dir);
  }
  return found;
}

type Run = (...args: string[]) => Promise<{ exitCode?: number; stdout: string; stderr: string }>;

/**
 * The root stack, as `npm run up` keeps it, on a run of its own: up, one computer stopped by
 * hand, and a plain `pulumi up` (no --refresh) that makes it again; then destroy, pass or fail.
 */
async function rootStackHeals(pulumi: Run): Promise<void> {
  const run = `heal-${randomBytes(4).toString("hex")}`;
  expect((await pulumi("config", "set", "--stack", "example", "run", run)).exitCode).toBe(0);
  try {
    const up = await pulumi("up", "--yes", "--stack", "example");
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    const [first] = JSON.parse((await pulumi("stack", "output", "computers", "--json", "--stack", "example")).stdout) as string[];
    expect((await docker("stop", "-t", "1", first!)).exitCode).toBe(0);
    const healed = await pulumi("up", "--yes", "--stack", "example");
    expect(healed.exitCode, healed.stdout + healed.stderr).toBe(0);
    expect(healed.stdout).toMatch(/agentrun:index:Computer\s+agent1\s+replaced\b.*\[diff: ~state\]/);
    expect(await exists(first!)).toBe(false);
    expect((await pulumi("preview", "--expect-no-changes", "--stack", "example")).exitCode).toBe(0);
  } finally {
    const down = await pulumi("destroy", "--yes", "--stack", "example");
    expect(down.exitCode, down.stdout + down.stderr).toBe(0);
  }
}

describe("the YAML examples and the root stack", async () => {
  test.each(await yamlProjects())(
    "%s previews cleanly through the real engine",
    async (dir) => {
      const tools = toolchain();
      const work = await mkdtemp(join(tmpdir(), "agentrun-example-"));
      try {
        const doc = parse(await readFile(`${ROOT}/${dir}/Pulumi.yaml`, "utf8"));
        doc.plugins.providers = doc.plugins.providers.map((p: { name: string }) => ({ ...p, path: `${ROOT}/provider/bin` }));
        // An example is its folder (the files and folders its program reads as assets, links
        // followed); the root stack is its Pulumi.yaml alone.
        await mkdir(join(work, "project"));
        if (dir !== ".")
          await cp(`${ROOT}/${dir}`, join(work, "project"), { recursive: true, dereference: true, filter: (from) => !from.endsWith("/.pulumi") });
        await writeFile(join(work, "project/Pulumi.yaml"), stringify(doc));
        // The vendors' examples preview with stand-in keys, which no vendor is asked about here (these
        // machines reach none): the plugin's connection test is off, a seam under its test flag.
        const env = { ...pulumiEnv(work, join(work, "home")), AGENTRUN_COMPUTER_TEST: "1", AGENTRUN_COMPUTER_TEST_KEYS_UNCHECKED: "1" };
        const pulumi = (...args: string[]) =>
          execa(`${tools.pulumiBin}/pulumi`, [...args, "--non-interactive"], { cwd: join(work, "project"), env, reject: false });
        expect((await pulumi("stack", "init", "example")).exitCode).toBe(0);
        // Each example's settings, set in one command: [key, value, secret].
        // A Modal example previews with a stand-in token: preview's checks make no vendor call.
        const config: Array<readonly [string, string, boolean]> = [
          ["agentrun:modal.tokenId", "ak-example", true],
          ["agentrun:modal.tokenSecret", "as-example", true],
          ["agentrun:modal.app", "agentrun-example", false],
        ];
        // A vendor's example needs its key to pass check; preview makes nothing and calls no vendor.
        if (dir === "examples/daytona" || dir === "examples/e2b") config.push([`agentrun:${dir.slice("examples/".length)}.apiKey`, "preview-only", true]);
        // As its README says: the plugin runs in a container here, so the host's addresses are given.
        if (dir === "examples/allowlist" || dir === "examples/api-key") config.push(["agentrun:docker.egress.hostAddresses[0]", "192.0.2.1", false]);
        // The stand-in API's key, as its README sets it.
        if (dir === "examples/api-key") config.push(["apiKey", "preview-only", true]);
        if (dir === "examples/browser") for (const key of ["apiKey", "projectId"]) config.push([`agentrun:browserbase.${key}`, "preview-only", true]);
        if (dir === "examples/phone") {
          config.push(["agentrun:phone-harness.apiKey", "preview-only", true], ["agentrun:phone-harness.ledger", join(work, "phones.json"), false]);
        }
        if (dir === "examples/kubernetes") {
          // A kubeconfig that parses, for a server nothing answers at: preview's checks ask no API server.
          const kubeconfig = stringify({
            apiVersion: "v1",
            clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:1" } }],
            users: [{ name: "u", user: { token: "preview-only" } }],
            contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
            "current-context": "x",
          });
          config.push(["agentrun:kubernetes.kubeconfig", kubeconfig, true], ["image", `agentrun-base@sha256:${"0".repeat(64)}`, false]);
        }
        const set = await pulumi(
          "config",
          "set-all",
          "--stack",
          "example",
          "--path",
          ...config.flatMap(([key, value, secret]) => [secret ? "--secret" : "--plaintext", `${key}=${value}`]),
        );
        expect(set.exitCode, set.stderr).toBe(0);
        const preview = await pulumi("preview", "--stack", "example");
        expect(preview.stderr + preview.stdout).not.toMatch(/error:/);
        expect(preview.exitCode).toBe(0);
        if (dir === ".") await rootStackHeals(pulumi);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
