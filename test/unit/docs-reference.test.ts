// The reference pages (docs/reference/) are generated from schema/schema.json by
// scripts/gen-docs.mjs: every field of the schema carries a description, and the committed pages
// are what the script gives from the schema now. No Docker, no dist/.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { ROOT } from "../support/toolchain.js";

type Field = { description?: string };
type Props = Record<string, Field> | undefined;
const schema = JSON.parse(readFileSync(`${ROOT}/schema/schema.json`, "utf8"));

/** Every field of the schema as "where: name" with its description. */
function fields(): Array<[string, string | undefined]> {
  const out: Array<[string, string | undefined]> = [];
  const add = (where: string, props: Props) => {
    for (const [k, p] of Object.entries(props ?? {})) out.push([`${where}: ${k}`, p.description]);
  };
  for (const [token, r] of Object.entries<{ description?: string; inputProperties?: Props; properties?: Props }>(schema.resources)) {
    out.push([`${token}: (the resource)`, r.description]);
    add(`${token} input`, r.inputProperties);
    add(`${token} output`, r.properties);
  }
  for (const [token, f] of Object.entries<{ description?: string; inputs?: { properties?: Props }; outputs?: { properties?: Props } }>(schema.functions)) {
    out.push([`${token}: (the function)`, f.description]);
    add(`${token} argument`, f.inputs?.properties);
    add(`${token} result`, f.outputs?.properties);
  }
  for (const [token, t] of Object.entries<{ description?: string; properties?: Props }>(schema.types)) {
    out.push([`${token}: (the type)`, t.description]);
    add(token, t.properties);
  }
  add("config", schema.config.variables);
  return out;
}

function gen(root: string, ...args: string[]) {
  return spawnSync("node", [join(root, "scripts/gen-docs.mjs"), ...args], { encoding: "utf8" });
}

// A copy of what the script reads and writes, for the cases that change a page or the schema.
const scratch: string[] = [];
function copy(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentrun-docs-"));
  scratch.push(dir);
  for (const part of ["scripts/gen-docs.mjs", "schema/schema.json", "docs/reference"]) {
    mkdirSync(join(dir, part, ".."), { recursive: true });
    cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  }
  return dir;
}
afterAll(() => scratch.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("the reference pages", () => {
  test.each(fields())("%s has a description", (_, description) => {
    expect(description?.trim()).toBeTruthy();
  });

  test("are what scripts/gen-docs.mjs makes from schema.json today", () => {
    const r = gen(ROOT, "--check");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  test("a page per resource and per function", () => {
    const listed = readFileSync(`${ROOT}/docs/reference/README.md`, "utf8");
    for (const token of [...Object.keys(schema.resources), ...Object.keys(schema.functions)]) {
      const name = token.split(":").pop()!;
      const file = `${name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase()}.md`;
      expect(readFileSync(`${ROOT}/docs/reference/${file}`, "utf8")).toContain(`\`${token}\``);
      expect(listed).toContain(`](${file})`);
    }
  });

  test("the check fails on a page edited by hand, naming it", () => {
    const dir = copy();
    writeFileSync(join(dir, "docs/reference/computer.md"), readFileSync(join(dir, "docs/reference/computer.md"), "utf8") + "\nedited\n");
    const r = gen(dir, "--check");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("computer.md");
  });

  test("the check fails when the schema's text changed and the pages were not made again", () => {
    const dir = copy();
    const changed = JSON.parse(readFileSync(join(dir, "schema/schema.json"), "utf8"));
    changed.resources["agentrun:index:Mount"].inputProperties.path.description = "Another text.";
    writeFileSync(join(dir, "schema/schema.json"), JSON.stringify(changed));
    const r = gen(dir, "--check");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("mount.md");
  });

  test("the script refuses a field with no description, naming it", () => {
    const dir = copy();
    const changed = JSON.parse(readFileSync(join(dir, "schema/schema.json"), "utf8"));
    delete changed.resources["agentrun:index:Computer"].properties.drift.description;
    writeFileSync(join(dir, "schema/schema.json"), JSON.stringify(changed));
    const r = gen(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("agentrun:index:Computer output: drift");
  });
});
