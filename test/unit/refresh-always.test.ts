// `pulumi up` heals drift only when it reads every resource back first: every project this
// repository ships (the root stack, each example) and every Automation API stack asks the CLI for
// a refresh on each up, preview and destroy (the project's `options: refresh: always`).
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, test } from "vitest";
import { projectWithPlugin } from "../../src/fleet/automation.js";
import { ROOT } from "../support/toolchain.js";

async function projectFiles(): Promise<string[]> {
  const found = ["Pulumi.yaml"];
  const walk = async (dir: string) => {
    for (const entry of await readdir(join(ROOT, dir), { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const sub = join(dir, entry.name);
      if ((await readdir(join(ROOT, sub))).includes("Pulumi.yaml")) found.push(join(sub, "Pulumi.yaml"));
      await walk(sub);
    }
  };
  await walk("examples");
  return found;
}

describe("every up refreshes first", async () => {
  const files = await projectFiles();

  test("the root stack and every example are found", () => {
    expect(files).toEqual(
      expect.arrayContaining(["Pulumi.yaml", "examples/fleet/Pulumi.yaml", "examples/ci-deadline/run/Pulumi.yaml", "examples/typescript/Pulumi.yaml"]),
    );
  });

  test.each(files)("%s asks for refresh: always", async (file) => {
    expect(parse(await readFile(join(ROOT, file), "utf8")).options).toEqual({ refresh: "always" });
  });

  test("an Automation API stack's project asks for it too", () => {
    expect(projectWithPlugin("p")).toMatchObject({ options: { refresh: "always" } });
  });
});
