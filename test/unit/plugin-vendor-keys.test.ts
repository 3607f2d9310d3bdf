// The plugin knows vendors only through the registry and capabilities() (STYLE.md): no file of
// provider/ but the generated SDK names a vendor's id as a key (an object's or a type's field, a
// property read, an index, an id given as a value) or a vendor's setting (modal.tokenId,
// agentrun:docker.image). A vendor's settings, their secret marks and its defaults live in its folder.
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, test } from "vitest";
import { PROVIDERS } from "../../src/registry/offers.js";
import { withoutSecrets } from "../../provider/vendors.js";
import { PROVIDER_SETTINGS, secretSettings, secretValues } from "../../src/registry/settings.js";
import { ROOT } from "../support/toolchain.js";

const PLUGIN = join(ROOT, "provider");
const GENERATED = join(PLUGIN, "sdk");
const IDS = PROVIDERS.map((p) => p.id);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (join(dir, e.name) === GENERATED ? [] : sources(join(dir, e.name))) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** The code with its comments blanked (a comment may say what a vendor does; code may not key on one). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " ")).replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Each place the text names a vendor's id as a key or a vendor's setting, as "line: what". */
export function vendorKeys(text: string, ids: readonly string[] = IDS): string[] {
  const id = `(?:${ids.map((i) => i.replace(/[-]/g, "\\-")).join("|")})`;
  const rules: Array<[string, RegExp]> = [
    ["a setting", new RegExp(`(?<![\\w.-])${id}\\.[A-Za-z]\\w*`, "g")],
    ["a field", new RegExp(`(?<![\\w.-])["']?${id}["']?\\??\\s*:(?!\\/)`, "g")],
    ["a property", new RegExp(`\\??\\.${id}(?![\\w-])`, "g")],
    ["an id as a value", new RegExp(`(["'\`])${id}\\1`, "g")],
  ];
  const found: string[] = [];
  code(text)
    .split("\n")
    .forEach((line, i) => {
      for (const [what, rule] of rules) for (const m of line.matchAll(rule)) found.push(`${i + 1}: ${what} ${m[0].trim()}`);
    });
  return found;
}

describe("provider/ names no vendor key", () => {
  test.each(sources(PLUGIN).map((f) => relative(ROOT, f)))("%s", (file) => {
    expect(vendorKeys(readFileSync(join(ROOT, file), "utf8"))).toEqual([]);
  });

  test("finds a vendor's key where there is one, and not in words or comments", () => {
    expect(vendorKeys('const s = { docker: { image: "x" } };')).toEqual(["1: a field docker:"]);
    expect(vendorKeys("type S = { docker?: DockerSettings };")).toEqual(["1: a field docker?:"]);
    expect(vendorKeys("if (settings.docker?.image) f();")).toEqual(["1: a property .docker"]);
    expect(vendorKeys('const keys = ["modal.tokenId", "modal.tokenSecret"];')).toEqual(["1: a setting modal.tokenId", "1: a setting modal.tokenSecret"]);
    expect(vendorKeys("const line = `pulumi config rm --path agentrun:docker.image`;")).toEqual(["1: a setting docker.image"]);
    expect(vendorKeys('configSet("docker", "image");')).toEqual(['1: an id as a value "docker"']);
    expect(vendorKeys('byId["phone-harness"]')).toEqual(['1: an id as a value "phone-harness"']);
    expect(vendorKeys("// settings.docker and agentrun:modal.tokenId, said in a comment\n/* docker: x */")).toEqual([]);
    expect(vendorKeys('reason: "provider is a registry id, such as docker"')).toEqual([]);
    expect(vendorKeys("an EgressProxy runs on docker; the docker CLI")).toEqual([]);
  });
});

describe("secret settings, as their vendors' schemas mark them", () => {
  test("are the marked fields of every provider's settings", () => {
    expect(secretSettings().sort()).toEqual([
      "browserbase.apiKey",
      "browserbase.projectId",
      "daytona.apiKey",
      "e2b.apiKey",
      "kernel.apiKey",
      "kubernetes.kubeconfig",
      "modal.tokenId",
      "modal.tokenSecret",
      "phone-harness.apiKey",
    ]);
  });

  // schema.json's config says the same: a stack's secret setting is a Pulumi secret there.
  test.each(Object.keys(PROVIDER_SETTINGS))("schema.json marks %s's secret settings, and only those", (id) => {
    const schema = JSON.parse(readFileSync(join(ROOT, "schema/schema.json"), "utf8"));
    const type = schema.types[schema.config.variables[id].$ref.replace("#/types/", "")];
    const declared = Object.entries(type.properties as Record<string, { secret?: boolean }>)
      .filter(([, p]) => p.secret === true)
      .map(([key]) => `${id}.${key}`);
    expect(declared.sort()).toEqual(
      secretSettings()
        .filter((s) => s.startsWith(`${id}.`))
        .sort(),
    );
  });

  test("take their values out of a refusal of the settings", () => {
    const settings = { modal: { tokenId: "ak-0123456789", tokenSecret: "as-abcdefghij", app: "computers" } };
    expect(secretValues(settings)).toEqual(["ak-0123456789", "as-abcdefghij"]);
    const refused = withoutSecrets(
      { code: "invalid", message: "modal: as-abcdefghij is no token", refusals: [{ field: "tokenId", message: "ak-0123456789?" }] },
      settings,
    );
    expect(JSON.stringify(refused)).not.toMatch(/ak-0123456789|as-abcdefghij/);
    expect(refused.message).toBe("modal: <secret> is no token");
  });
});
