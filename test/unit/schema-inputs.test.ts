// schema/schema.json's input types against the zod schemas the plugin's handlers take (each
// resource's `given`, provider/inputs.ts) and the library's settings schemas: field by field and
// type by type, required or not, an enum's values included, so the SDK says what the check takes.
import { readFileSync } from "node:fs";
import { z } from "zod";
import { describe, expect, test } from "vitest";
import { PULUMI_TYPE } from "../../provider/inputs.js";
import { components, functions, resources } from "../../provider/plugin.js";
import { FLEET_GIVEN } from "../../provider/resources/fleet.js";
import { PROVIDER_SETTINGS, TEST_SETTINGS } from "../../src/registry/settings.js";
import { ROOT } from "../support/toolchain.js";

type Json = Record<string, any>;
const schema: Json = JSON.parse(readFileSync(`${ROOT}/schema/schema.json`, "utf8"));

/** A type, as both sides can say it: a name, or a struct's fields and which are required. */
type Shape = string | { fields: Record<string, Shape>; required: string[] } | { map: Shape } | { array: Shape } | { enum: string[] };

/** schema.json's type. */
function pulumiShape(t: Json): Shape {
  if (t.$ref?.startsWith("pulumi.json#/")) return t.$ref;
  if (t.$ref) return pulumiShape(schema.types[t.$ref.replace("#/types/", "")]);
  if (t.enum) return { enum: t.enum.map((e: Json) => e.value).sort() };
  if (t.type === "array") return { array: pulumiShape(t.items) };
  if (t.type === "object" && t.properties) return struct(t.properties, t.required ?? [], pulumiShape);
  if (t.type === "object" && t.additionalProperties) return { map: pulumiShape(t.additionalProperties) };
  return t.type;
}

/** The zod schema's type, through its JSON schema (a Pulumi type JSON has no word for carries its name). */
function zodShape(t: Json): Shape {
  if (t[PULUMI_TYPE]) return t[PULUMI_TYPE];
  if (t.enum) return { enum: [...t.enum].sort() };
  if (t.type === "array") return { array: zodShape(t.items) };
  if (t.type === "object" && t.properties) return struct(t.properties, t.required ?? [], zodShape);
  if (t.type === "object" && typeof t.additionalProperties === "object") return { map: zodShape(t.additionalProperties) };
  if (t.type === undefined) return "pulumi.json#/Any";
  return t.type;
}

function struct(props: Json, required: string[], shape: (t: Json) => Shape): Shape {
  return { fields: Object.fromEntries(Object.entries(props).map(([k, p]) => [k, shape(p)])), required: [...required].sort() };
}

/**
 * The zod side as schema.json should say it. One allowance: a number the zod schema takes as any
 * number may be an integer in schema.json, where the check says "a whole number" in its own words.
 */
function asDeclared(want: Shape, declared: Shape): Shape {
  if (want === "number" && declared === "integer") return declared;
  if (typeof want !== "object" || typeof declared !== "object") return want;
  if ("fields" in want && "fields" in declared)
    return {
      ...want,
      fields: Object.fromEntries(Object.entries(want.fields).map(([k, v]) => [k, declared.fields[k] ? asDeclared(v, declared.fields[k]) : v])),
    };
  if ("map" in want && "map" in declared) return { map: asDeclared(want.map, declared.map) };
  if ("array" in want && "array" in declared) return { array: asDeclared(want.array, declared.array) };
  return want;
}

const shapeOf = (given: z.ZodType) => zodShape(z.toJSONSchema(given, { io: "input", unrepresentable: "any" }) as Json);

function expectSame(given: z.ZodType, declared: Shape) {
  expect(asDeclared(shapeOf(given), declared)).toEqual(declared);
}

describe("schema.json's input types are the handlers' zod schemas", () => {
  test.each(Object.keys(resources))("%s", async (type) => {
    const r = schema.resources[type];
    expectSame((await resources[type]!()).given, struct(r.inputProperties, r.requiredInputs ?? [], pulumiShape));
  });

  test.each(Object.keys(components))("%s", (type) => {
    const r = schema.resources[type];
    expectSame(FLEET_GIVEN, struct(r.inputProperties, r.requiredInputs ?? [], pulumiShape));
  });

  test.each(Object.keys(functions))("%s", async (token) => {
    const f = schema.functions[token].inputs;
    expectSame((await functions[token]!()).given, struct(f.properties, f.required ?? [], pulumiShape));
  });

  // A test's seam (TEST_SETTINGS) is the library's, not the stack's: schema.json may leave it out.
  test.each(Object.keys(PROVIDER_SETTINGS))("the %s settings", (id) => {
    const settings = (PROVIDER_SETTINGS as Record<string, z.ZodObject>)[id]!;
    const type = schema.types[schema.config.variables[id].$ref.replace("#/types/", "")];
    const offered = settings.omit(
      Object.fromEntries(
        Object.keys(settings.shape)
          .filter((k) => `${id}.${k}` in TEST_SETTINGS && !(k in type.properties))
          .map((k) => [k, true]),
      ) as never,
    );
    expectSame(offered, struct(type.properties, type.required ?? [], pulumiShape));
  });

  test("tells a type that differs", () => {
    const declared = struct({ network: { type: "string" }, size: { type: "integer" } }, ["size"], pulumiShape);
    expect(asDeclared(shapeOf(z.strictObject({ network: z.enum(["none", "open"]), size: z.number() })), declared)).not.toEqual(declared);
    expect(asDeclared(shapeOf(z.strictObject({ network: z.string().optional(), size: z.number() })), declared)).toEqual(declared);
    expect(asDeclared(shapeOf(z.strictObject({ network: z.string().optional(), size: z.number().optional() })), declared)).not.toEqual(declared);
  });
});
