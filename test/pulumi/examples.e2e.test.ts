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
        // A Modal example previews with a stand-in token: preview's checks make no vendor call.
        for (const [key, value, secret] of [
          ["tokenId", "ak-example", true],
          ["tokenSecret", "as-example", true],
          ["app", "agentrun-example", false],
        ] as const) {
          expect(
            (await pulumi("config", "set", "--stack", "example", "--path", ...(secret ? ["--secret"] : []), `agentrun:modal.${key}`, value)).exitCode,
          ).toBe(0);
        }
        // A vendor's example needs its key to pass check; preview makes nothing and calls no vendor.
        if (dir === "examples/daytona" || dir === "examples/e2b") {
          const vendor = dir.slice("examples/".length);
          const set = await pulumi("config", "set", "--secret", "--path", `agentrun:${vendor}.apiKey`, "preview-only", "--stack", "example");
          expect(set.exitCode, set.stderr).toBe(0);
        }
        if (dir === "examples/allowlist") {
          // As its README says: the plugin runs in a container here, so the host's addresses are given.
          const set = await pulumi("config", "set", "--stack", "example", "--path", "agentrun:docker.egress.hostAddresses[0]", "192.0.2.1");
          expect(set.exitCode, set.stderr).toBe(0);
        }
        if (dir === "examples/browser") {
          for (const key of ["apiKey", "projectId"]) {
            const set = await pulumi("config", "set", "--secret", "--path", `agentrun:browserbase.${key}`, "preview-only", "--stack", "example");
            expect(set.exitCode, set.stderr).toBe(0);
          }
        }
        if (dir === "examples/phone") {
          for (const [key, value, secret] of [
            ["apiKey", "preview-only", true],
            ["ledger", join(work, "phones.json"), false],
          ] as const) {
            const set = await pulumi("config", "set", "--stack", "example", "--path", ...(secret ? ["--secret"] : []), `agentrun:phone-harness.${key}`, value);
            expect(set.exitCode, set.stderr).toBe(0);
          }
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
          for (const args of [
            ["--secret", "--path", "agentrun:kubernetes.kubeconfig", kubeconfig],
            ["image", `agentrun-base@sha256:${"0".repeat(64)}`],
          ]) {
            const set = await pulumi("config", "set", "--stack", "example", ...args);
            expect(set.exitCode, set.stderr).toBe(0);
          }
        }
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
