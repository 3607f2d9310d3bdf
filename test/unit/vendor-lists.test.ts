// The registry (src/providers.ts) is the one list of vendors: no other source keeps a list of
// their ids by hand, and the maps of the docs name exactly the registry's vendor folders. A new
// vendor is its folder and its registry line; a list kept elsewhere would drift from them.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { PROVIDER_IDS } from "../../src/providers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const IDS: ReadonlySet<string> = new Set(PROVIDER_IDS);
/** Where a list could be kept: the library, the plugin, the tests and the scripts (the generated SDK is the schema's). */
const PLACES = ["src", "provider", "test", "scripts"];
const GENERATED = join(ROOT, "provider", "sdk");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return path === GENERATED || e.name === "node_modules" || e.name === "fixtures" ? [] : sources(path);
    return /\.(ts|mts|mjs|js)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

const text = (node: ts.Node): string | undefined => (ts.isStringLiteralLike(node) ? node.text : undefined);
const keyOf = (p: ts.ObjectLiteralElementLike): string | undefined =>
  p.name && (ts.isIdentifier(p.name) || ts.isStringLiteralLike(p.name)) ? p.name.text : undefined;

/**
 * The ids a literal lists: an array's items that are ids, an object's keys that are ids, or a
 * string's ids joined by ", " (as a message that names them all is written).
 */
function listed(node: ts.Node, ids: ReadonlySet<string>): string[] {
  if (ts.isArrayLiteralExpression(node)) return node.elements.map(text).filter((t): t is string => t !== undefined && ids.has(t));
  if (ts.isObjectLiteralExpression(node)) return node.properties.map(keyOf).filter((k): k is string => k !== undefined && ids.has(k));
  const words = ts.isStringLiteralLike(node) ? node.text : ts.isTemplateExpression(node) ? node.head.text : undefined;
  if (words === undefined) return [];
  return words.split(/,\s*/).flatMap((part) =>
    part
      .trim()
      .split(/\s+/)
      .filter((w) => ids.has(w)),
  );
}

/** A test's input that names vendors on purpose says so in a comment before its statement, with why. */
const ON_PURPOSE = "not a list of vendors:";

/** Whether the statement that holds the node says, in a comment before it, that it names vendors on purpose. */
function onPurpose(node: ts.Node, source: string): boolean {
  let statement: ts.Node = node;
  while (statement.parent && !ts.isSourceFile(statement.parent) && !ts.isBlock(statement.parent)) statement = statement.parent;
  const comments = ts.getLeadingCommentRanges(source, statement.getFullStart()) ?? [];
  return comments.some((c) => source.slice(c.pos, c.end).includes(ON_PURPOSE));
}

/**
 * Each literal of the source that names two or more registry ids (three in a string), as "line:
 * ids": a list kept by hand, unless a comment before its statement says it is not one.
 */
export function handKeptLists(file: string, source: string, ids: ReadonlySet<string> = IDS): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const named = new Set(listed(node, ids));
    if (named.size >= 2 && onPurpose(node, source)) return;
    const least = ts.isStringLiteralLike(node) || ts.isTemplateExpression(node) ? 3 : 2;
    if (named.size >= least) found.push(`${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${[...named].join(", ")}`);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** The vendor folders a map names: each `<id>/` it writes as a folder of src/ (not under another folder). */
function foldersNamed(map: string): string[] {
  return [...new Set([...map.matchAll(/(?<=^|[\s`(])(?:src\/)?([a-z0-9-]+)\/(?=[\s`),]|$)/gm)].map((m) => m[1]!))].filter((name) => IDS.has(name));
}

/** A markdown section's text, from its heading to the next of its level. */
function section(text: string, heading: string): string {
  const doc = `\n${text}`;
  const at = doc.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`no section ${heading}`);
  const next = doc.indexOf(`\n${heading.split(" ")[0]} `, at + heading.length + 2);
  return doc.slice(at, next < 0 ? undefined : next);
}

describe("the registry, the one list of vendors", () => {
  it("is the only place a list of vendor ids is kept (src/, provider/, test/, scripts/)", () => {
    const registry = join(ROOT, "src", "providers.ts");
    const lists = PLACES.flatMap((place) => sources(join(ROOT, place)))
      .filter((file) => file !== registry)
      .flatMap((file) => handKeptLists(file, readFileSync(file, "utf8")).map((at) => `${relative(ROOT, file)}:${at}`));
    expect(lists).toEqual([]);
  });

  it("finds a list where there is one, and no list in one id or in prose", () => {
    const ids = new Set(["alpha", "beta", "gamma"]);
    expect(handKeptLists("a.ts", 'const v = ["alpha", "beta"];', ids)).toEqual(["1: alpha, beta"]);
    expect(handKeptLists("a.ts", 'const v = { alpha: 1, "beta": 2, c: 3 };', ids)).toEqual(["1: alpha, beta"]);
    expect(handKeptLists("a.ts", 'const m = "it holds alpha, beta, gamma";', ids)).toEqual(["1: alpha, beta, gamma"]);
    expect(handKeptLists("a.ts", 'const v = ["alpha", "delta"]; const w = { alpha: 1 }; const m = "alpha and beta";', ids)).toEqual([]);
    expect(handKeptLists("a.ts", `// ${ON_PURPOSE} alpha's and beta's own inputs\nconst v = { alpha: 1, beta: 2 };`, ids)).toEqual([]);
  });

  it("is what README.md's Layout and src/README.md's map name as vendor folders", () => {
    const layout = section(readFileSync(join(ROOT, "README.md"), "utf8"), "## Layout");
    expect(foldersNamed(layout).sort()).toEqual([...PROVIDER_IDS].sort());
    const map = section(readFileSync(join(ROOT, "src", "README.md"), "utf8"), "# The library");
    expect(foldersNamed(map).sort()).toEqual([...PROVIDER_IDS].sort());
  });
});
