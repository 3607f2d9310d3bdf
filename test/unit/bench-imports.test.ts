// Every bench's imports still resolve, and every name it takes from a module is still exported
// there: a move in src/ that breaks a bench fails here at once, not on the day someone measures.
// A shared bench module's imports are followed too, and a gap in one is said under each bench that
// loads it (screen-shot.mjs and input-click.mjs failed through screen-desktop.mjs's import of a
// moved dist/src/files.js). And every bench reaches bench/stop.mjs, so a stop removes its work.
// The benches are read, not run (each makes computers at its top level): their static imports and
// their import() calls are followed through the few path forms they build (join, resolve, dirname,
// fileURLToPath, new URL, import.meta), and a form this cannot follow fails in words.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const BENCH = resolve(import.meta.dirname, "../../bench");
const BENCHES = readdirSync(BENCH).filter((f) => f.endsWith(".mjs"));

type Value = string | URL | ((arg: Value) => Value) | { loader: (arg: Value) => string };

interface Taken {
  /** The specifier as resolved: a file path, or a package's or node's name. */
  target: string;
  names: string[];
}

/** The names an import binds: `{ a, b as c }` → a, b; a namespace or default import binds none to check. */
function namesOf(binding: ts.BindingName | ts.NamedImportBindings | undefined): string[] {
  if (!binding) return [];
  if (ts.isObjectBindingPattern(binding)) return binding.elements.map((e) => (e.propertyName ?? e.name).getText());
  if (ts.isNamedImports(binding)) return binding.elements.map((e) => (e.propertyName ?? e.name).text);
  return [];
}

type Imports = { taken: Taken[]; problems: string[]; scope: Map<string, Value> };
const read = new Map<string, Imports>();

/** A module's imports, read once: the shared bench modules are walked under every bench that loads them. */
function importsOf(file: string): Imports {
  if (!read.has(file)) read.set(file, importsRead(file));
  return read.get(file)!;
}

/** What one bench imports, with every path form it builds evaluated; a form not followed is a problem. */
function importsRead(file: string): Imports {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const here = pathToFileURL(file);
  const scope = new Map<string, Value>();
  const taken: Taken[] = [];
  const problems: string[] = [];
  const where = (node: ts.Node) => `${basename(file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const path = (v: Value | undefined): string | undefined => (typeof v === "string" ? v : v instanceof URL ? fileURLToPath(v) : undefined);

  const evaluate = (node: ts.Expression, locals: Map<string, Value> = new Map()): Value | undefined => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isParenthesizedExpression(node)) return evaluate(node.expression, locals);
    if (ts.isIdentifier(node)) return locals.get(node.text) ?? scope.get(node.text);
    if (ts.isPropertyAccessExpression(node)) {
      const text = node.getText();
      if (text === "import.meta.url") return here;
      if (text === "import.meta.dirname") return dirname(file);
      const of = evaluate(node.expression, locals);
      return node.name.text === "pathname" && of instanceof URL ? of.pathname : undefined;
    }
    if (ts.isNewExpression(node) && node.expression.getText() === "URL") {
      const [a, b] = (node.arguments ?? []).map((x) => evaluate(x, locals));
      return typeof a === "string" && (b instanceof URL || typeof b === "string") ? new URL(a, b) : undefined;
    }
    if (ts.isCallExpression(node)) {
      const args = node.arguments.map((x) => evaluate(x, locals));
      const callee = node.expression.getText();
      const paths = args.map(path);
      if (paths.some((p) => p === undefined)) return undefined;
      if (callee === "join") return join(...(paths as string[]));
      if (callee === "resolve") return resolve(...(paths as string[]));
      if (callee === "dirname") return dirname(paths[0]!);
      if (callee === "fileURLToPath") return paths[0];
    }
    return undefined;
  };

  /** An import of target: a relative path or a file, a package, or node's own. */
  const take = (node: ts.Node, specifier: Value | undefined, names: string[]) => {
    const spec = specifier instanceof URL ? fileURLToPath(specifier) : specifier;
    if (typeof spec !== "string") return problems.push(`${where(node)}: an import whose path this test cannot follow: ${node.getText().slice(0, 120)}`);
    const target = spec.startsWith(".") ? resolve(dirname(file), spec) : spec;
    taken.push({ target, names });
  };

  /** An import() call, or a call of a local loader (`const load = (p) => import(resolve(root, p))`). */
  const dynamic = (call: ts.Expression, names: string[]): boolean => {
    const inner = ts.isAwaitExpression(call) ? call.expression : call;
    if (!ts.isCallExpression(inner)) return false;
    if (inner.expression.kind === ts.SyntaxKind.ImportKeyword) {
      take(inner, evaluate(inner.arguments[0]!), names);
      return true;
    }
    const loader = ts.isIdentifier(inner.expression) ? scope.get(inner.expression.text) : undefined;
    if (loader && typeof loader === "object" && "loader" in loader) {
      const arg = evaluate(inner.arguments[0]!);
      take(inner, arg === undefined ? undefined : loader.loader(arg), names);
      return true;
    }
    return false;
  };

  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const names = node.importClause?.isTypeOnly ? [] : namesOf(node.importClause?.namedBindings);
      take(node, node.moduleSpecifier.text, names);
      // A path another bench module exports (pulumi-stack.mjs's root) is followed through it.
      const from = resolve(dirname(file), node.moduleSpecifier.text);
      if (node.moduleSpecifier.text.startsWith("./") && from.endsWith(".mjs") && existsSync(from)) {
        const theirs = importsOf(from).scope;
        for (const n of names) if (theirs.has(n)) scope.set(n, theirs.get(n)!);
      }
    } else if (ts.isVariableDeclaration(node) && node.initializer) {
      const init = node.initializer;
      // A loader: one parameter, its body an import() of a path built from it.
      if (
        ts.isArrowFunction(init) &&
        init.parameters.length === 1 &&
        ts.isCallExpression(init.body) &&
        init.body.expression.kind === ts.SyntaxKind.ImportKeyword
      ) {
        const param = init.parameters[0]!.name.getText();
        const body = init.body.arguments[0]!;
        scope.set(node.name.getText(), { loader: (arg) => path(evaluate(body, new Map([[param, arg]]))) ?? "" });
        return;
      }
      if (dynamic(init, namesOf(node.name))) return;
      if (ts.isIdentifier(node.name)) {
        const value = evaluate(init);
        if (value !== undefined) scope.set(node.name.text, value);
      }
    } else if (ts.isCallExpression(node) && dynamic(node, [])) return;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { taken, problems, scope };
}

/** The names a bench's own .mjs module exports (read, not run: it may make computers). */
function exportsOfBench(file: string): Set<string> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const names = new Set<string>();
  for (const s of source.statements) {
    const exported = ts.canHaveModifiers(s) && ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (exported && (ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name) names.add(s.name.text);
    if (exported && ts.isVariableStatement(s)) for (const d of s.declarationList.declarations) names.add(d.name.getText());
    if (ts.isExportDeclaration(s) && s.exportClause && ts.isNamedExports(s.exportClause)) for (const e of s.exportClause.elements) names.add(e.name.text);
  }
  return names;
}

/** What is missing of one import: its file, or names its module does not export. A bench module (under benches) is read, not run. */
async function missing({ target, names }: Taken, benches = BENCH): Promise<string[]> {
  const file = target.startsWith("/");
  if (file && !existsSync(target)) return [`${target} is not there${target.includes("/dist/") ? " (npm run build makes dist/)" : ""}`];
  const exported = file && target.startsWith(benches) ? exportsOfBench(target) : new Set(Object.keys(await import(file ? pathToFileURL(target).href : target)));
  return names.filter((n) => !exported.has(n)).map((n) => `${target} exports no ${n}`);
}

/** The bench modules (under benches) one bench module loads. */
const sharedOf = (file: string, benches: string) =>
  importsOf(file)
    .taken.map((t) => t.target)
    .filter((t) => t.startsWith(benches) && t.endsWith(".mjs") && existsSync(t));

/** What is missing of a bench's imports and of every bench module under it, each gap said through the module that has it. */
async function gapsOf(file: string, benches = BENCH, seen = new Set([file])): Promise<string[]> {
  const { taken, problems } = importsOf(file);
  const gaps = [...problems];
  for (const t of taken) gaps.push(...(await missing(t, benches)));
  for (const shared of sharedOf(file, benches)) {
    if (seen.has(shared)) continue;
    seen.add(shared);
    gaps.push(...(await gapsOf(shared, benches, seen)).map((gap) => `through ${basename(shared)}: ${gap}`));
  }
  return gaps;
}

/** A bench module and every bench module it loads, at any depth. */
function loadedBy(file: string, benches = BENCH, seen = new Set([file])): Set<string> {
  for (const shared of sharedOf(file, benches))
    if (!seen.has(shared)) {
      seen.add(shared);
      loadedBy(shared, benches, seen);
    }
  return seen;
}

describe("the benches' imports", () => {
  it.each(BENCHES)("%s's resolve, each name taken exported", async (bench) => {
    expect(await gapsOf(join(BENCH, bench))).toEqual([]);
  });

  it("name the bench whose shared module's import moved", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrun-bench-imports-"));
    try {
      writeFileSync(
        join(dir, "screen.mjs"),
        'import { join } from "node:path";\nawait import(join(import.meta.dirname, "files.js"));\nexport const shot = 1;\n',
      );
      writeFileSync(join(dir, "shot.mjs"), 'import { shot } from "./screen.mjs";\n');
      expect(await gapsOf(join(dir, "shot.mjs"), dir)).toEqual([`through screen.mjs: ${join(dir, "files.js")} is not there`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("say a file moved, a name no longer exported and a path they cannot follow", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrun-bench-imports-"));
    try {
      const file = join(dir, "moved.mjs");
      writeFileSync(
        file,
        [
          'import { join } from "node:path";',
          'import { readFile, notAFunction } from "node:fs/promises";',
          'const ROOT = join(import.meta.dirname, "..");',
          'const { writeFile } = await import(join(ROOT, "dist", "src", "files.js"));',
          "const where = process.argv[2];",
          "await import(where);",
        ].join("\n"),
      );
      const { taken, problems } = importsOf(file);
      expect(problems).toEqual([`moved.mjs:6: an import whose path this test cannot follow: import(where)`]);
      const gaps = (await Promise.all(taken.map((t) => missing(t)))).flat();
      expect(gaps).toEqual([
        `node:fs/promises exports no notAFunction`,
        `${join(dir, "..", "dist", "src", "files.js")} is not there (npm run build makes dist/)`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Modules that make nothing, so have nothing to remove: stop.mjs itself, proc-memory.mjs (reads /proc) and zeros.mjs (writes a body).
const MAKE_NOTHING = ["stop.mjs", "proc-memory.mjs", "zeros.mjs"];

describe("a bench stopped half-way", () => {
  it.each(BENCHES.filter((b) => !MAKE_NOTHING.includes(b)))("%s registers what it makes with bench/stop.mjs", (bench) => {
    const loaded = [...loadedBy(join(BENCH, bench))].map((f) => basename(f)).filter((f) => f !== bench);
    expect(loaded, `${bench} loads ${loaded.join(", ") || "no bench module"}, not stop.mjs: a SIGINT or SIGTERM would leave what it made`).toContain(
      "stop.mjs",
    );
  });
});
