// The plugin's resource handlers take their inputs and props as the schemas parse them: no type
// assertion (`x as T`, `<T>x`) in provider/resources/ says a value is what nothing checked. `as
// const` only narrows a literal, so it stays.
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sources } from "../support/import-graph.js";

const ROOT = join(import.meta.dirname, "..", "..");

/** Each type assertion in a file's text, as `line: text`. */
function assertions(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const asserted = ts.isAsExpression(node) || ts.isTypeAssertionExpression(node);
    const toConst = asserted && ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(source) === "const";
    if (asserted && !toConst) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${relative(ROOT, file)}:${line + 1}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("provider/resources/", () => {
  it("asserts no type: inputs and props are what the schemas parsed", () => {
    expect(sources(join(ROOT, "provider", "resources")).flatMap(assertions)).toEqual([]);
  });

  it("is read by a check that finds an assertion (a file with one, planted)", () => {
    const planted = join(ROOT, "dist", "resource-casts-planted.ts");
    ts.sys.writeFile(planted, "const a: unknown = 1;\nexport const b = a as number;\nexport const c = [1] as const;\n");
    expect(assertions(planted)).toEqual(["dist/resource-casts-planted.ts:2: a as number"]);
  });
});
