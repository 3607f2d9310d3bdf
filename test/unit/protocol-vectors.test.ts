// One table, two languages: src/daemon/protocol.ts held to the method table computerd's Go types write
// (test/vectors/methods.json): the same methods, fields, optionality and types, both ways.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ERROR_KINDS, MAX_LINE_BYTES, METHODS, type Method } from "../../src/daemon/protocol.js";

interface VectorField {
  name: string;
  type: string;
  optional?: boolean;
  fields?: VectorField[];
}
interface Vector {
  maxLineBytes: number;
  errorKinds: string[];
  methods: Array<{ name: string; params: VectorField[]; result: VectorField[] }>;
}

const vector = JSON.parse(readFileSync(join(import.meta.dirname, "..", "vectors", "methods.json"), "utf8")) as Vector;

/** The phone's methods: a provider answers them in-process; computerd has none. */
const EXTENSION = ["apps.list", "apps.launch", "apps.terminate", "apps.install", "apps.ui_tree"];

type Def = { type: string; innerType?: z.ZodType; element?: z.ZodType; valueType?: z.ZodType; shape?: Record<string, z.ZodType>; items?: z.ZodType[] };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** A zod schema in the table's words: "string", "base64", "number|null", "string[]", "object" with fields. */
function describeType(schema: z.ZodType): { type: string; optional: boolean; fields?: VectorField[] } {
  let optional = false;
  let nullable = false;
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if (def.type === "optional") optional = true;
    else if (def.type === "nullable") nullable = true;
    else break;
    s = def.innerType!;
  }
  const def = defOf(s);
  let type: string;
  let fields: VectorField[] | undefined;
  switch (def.type) {
    case "string":
      type = s.description === "base64" ? "base64" : "string";
      break;
    case "enum":
    case "literal":
      type = "string";
      break;
    case "number":
    case "boolean":
      type = def.type;
      break;
    case "record":
      type = `record<string,${describeType(def.valueType!).type}>`;
      break;
    case "object":
      type = "object";
      fields = fieldsOf(s);
      break;
    case "array": {
      const element = describeType(def.element!);
      type = `${element.type}[]`;
      fields = element.fields;
      break;
    }
    case "tuple":
      // A point: Go's [2]int, a list of one type.
      type = `${describeType(def.items![0]!).type}[]`;
      break;
    default:
      type = def.type;
  }
  // An optional field may be left out or null alike (nullish), as Go's omitempty pointer is.
  return { type: nullable && !optional ? `${type}|null` : type, optional, ...(fields ? { fields } : {}) };
}

function fieldsOf(schema: z.ZodType): VectorField[] {
  const shape = defOf(schema).shape ?? {};
  return Object.entries(shape)
    .map(([name, field]) => {
      const { type, optional, fields } = describeType(field);
      return { name, type, ...(optional ? { optional } : {}), ...(fields ? { fields } : {}) };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

const sorted = (fields: VectorField[]): VectorField[] =>
  [...fields].map((f) => ({ ...f, ...(f.fields ? { fields: sorted(f.fields) } : {}) })).sort((a, b) => a.name.localeCompare(b.name));

describe("src/daemon/protocol.ts against the daemon's method table", () => {
  it("has the same line bound and error kinds", () => {
    expect(MAX_LINE_BYTES).toBe(vector.maxLineBytes);
    expect([...ERROR_KINDS]).toEqual(vector.errorKinds);
  });

  it("has every method the daemon serves, and the daemon every method but the extension's", () => {
    const daemon = vector.methods.map((m) => m.name).sort();
    const ours = Object.keys(METHODS)
      .filter((m) => !EXTENSION.includes(m))
      .sort();
    expect(ours).toEqual(daemon);
  });

  it.each(vector.methods.map((m) => [m.name, m] as const))("%s: params and result field by field", (name, method) => {
    const spec = METHODS[name as Method];
    expect(fieldsOf(spec.params)).toEqual(sorted(method.params));
    expect(fieldsOf(spec.result)).toEqual(sorted(method.result));
  });
});
