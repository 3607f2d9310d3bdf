// schema/schema.json is the contract: the plugin serves a resource for each one it declares, with
// the same input fields, and its config holds the settings the plugin reads.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { components, resources } from "../../provider/plugin.js";
import { PROVIDER_SETTINGS, settingsKeys, TEST_SETTINGS } from "../../src/registry/settings.js";
import { ROOT } from "../support/toolchain.js";

const schema = JSON.parse(readFileSync(`${ROOT}/schema/schema.json`, "utf8"));
const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8"));

describe("schema.json", () => {
  test("declares exactly the resources the plugin serves", () => {
    expect(Object.keys(schema.resources).sort()).toEqual([...Object.keys(resources), ...Object.keys(components)].sort());
  });

  test("declares as components exactly those the plugin constructs", () => {
    const declared = Object.keys(schema.resources).filter((t) => schema.resources[t].isComponent);
    expect(declared.sort()).toEqual(Object.keys(components).sort());
  });

  test.each(Object.keys(resources))("%s: the plugin takes the schema's inputs, and every field is described", async (type) => {
    const handler = await resources[type]!();
    const declared = schema.resources[type];
    expect(Object.keys(declared.inputProperties).sort()).toEqual([...handler.inputs].sort());
    for (const [name, p] of Object.entries({ ...declared.inputProperties, ...declared.properties })) {
      expect((p as { description?: string }).description, `${type}.${name}`).toBeTruthy();
    }
  });

  // One source: the library's schema of each provider's settings is what the plugin's config
  // declares (a test's seam may be left out of it).
  test.each(Object.keys(PROVIDER_SETTINGS))("its %s settings are the library's schema of them", (id) => {
    expect(Object.keys(schema.config.variables)).toContain(id);
    const type = schema.config.variables[id].$ref.replace("#/types/", "");
    const declared = Object.keys(schema.types[type].properties).filter((k) => !(`${id}.${k}` in TEST_SETTINGS));
    expect(declared.sort()).toEqual(settingsKeys()[id]!.sort());
  });

  test("has the package's version", () => {
    expect(schema.version).toBe(pkg.version);
  });
});
