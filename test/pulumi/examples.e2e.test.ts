// Every YAML example and the root stack pass the real engine's preview (schema, types and the
// plugin's checks) with the plugin from this work tree: an example that rots fails here. Each is
// copied to a temporary folder with its plugin path made absolute; preview makes nothing.
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { parse, stringify } from "yaml";
import { describe, expect, test } from "vitest";
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
        const env = pulumiEnv(work, join(work, "home"));
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
        if (dir === "examples/allowlist") config.push(["agentrun:docker.egress.hostAddresses[0]", "192.0.2.1", false]);
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
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
