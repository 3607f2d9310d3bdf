#!/usr/bin/env node
// The Settings rule: nothing under src/ reads the environment, outside the conformance suite
// (src/conformance/) and each vendor's conformance module (src/<vendor>/conformance/). Every
// file is read with TypeScript's parser, and any way to reach process.env fails the check:
// dotted, bracketed, destructured, aliased, through globalThis, or an import of node:process.
// These uses are allowed, each by its variable, its file and its function: guards against a vendor
// SDK that reads the environment on its own, and the API server's address Kubernetes sets in a Pod
// (in-cluster credentials). And one hand-over of the environment whole, by its file and function:
// a host's (the plugin's, the CLI's) to the registry, named by "*". A variable ending "_*" allows,
// in its function alone, a name of that prefix or a computed one: the guard that hides a vendor's
// listed variables while its client is built.
//
// Usage: node scripts/check-env.mjs [--root <dir>] [--json]
// Exits 0 when the rule holds, 1 when it does not, 2 on a usage error.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The allowed uses: [file, function, variable], "*" for the environment handed on whole. */
export const ALLOWED = [
  ["src/modal/client.ts", "modalClient", "MODAL_SERVER_URL"],
  ["src/modal/client.ts", "hidingProfile", "MODAL_*"],
  ["src/e2b/client.ts", "ambientProblem", "E2B_SANDBOX_URL"],
  ["src/contract/host.ts", "hostEnvironment", "*"],
  // In-cluster credentials: the API server's address as Kubernetes sets it in every Pod.
  ["src/kubernetes/in-cluster.ts", "serviceAddress", "KUBERNETES_SERVICE_HOST"],
  ["src/kubernetes/in-cluster.ts", "serviceAddress", "KUBERNETES_SERVICE_PORT"],
];

const GLOBALS = new Set(["globalThis", "global", "self", "window"]);
const PROCESS_MODULES = new Set(["process", "node:process"]);
const SOURCE = /\.(ts|mts|cts|tsx|js|mjs|cjs|jsx)$/;

/** Every source file under root/src, outside src/conformance/ and src/<vendor>/conformance/, relative to root with "/". */
export function sourceFiles(root) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(root, path).split(sep).join("/");
      if (/^src\/(?:[^/]+\/)?conformance$/.test(rel)) continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (SOURCE.test(name)) files.push(rel);
    }
  };
  walk(join(root, "src"));
  return files;
}

const unwrap = (node) => {
  while (
    node.parent &&
    (ts.isParenthesizedExpression(node.parent) ||
      ts.isAsExpression(node.parent) ||
      ts.isNonNullExpression(node.parent) ||
      ts.isSatisfiesExpression(node.parent) ||
      ts.isTypeAssertionExpression(node.parent))
  ) {
    node = node.parent;
  }
  return node;
};

const literalName = (node) => (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined);

/** The name of the function a node sits in (a declaration's, or the variable a function is given to). */
function functionName(node) {
  for (let n = node.parent; n; n = n.parent) {
    if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) return n.name?.getText();
    if (ts.isFunctionExpression(n) || ts.isArrowFunction(n)) {
      if (n.name) return n.name.getText();
      const holder = unwrap(n).parent;
      if (holder && (ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder)) && holder.name) return holder.name.getText();
      return undefined;
    }
  }
  return undefined;
}

/** Every use of the environment in one file that the rule does not allow. */
export function findingsIn(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const findings = [];
  const aliases = new Set(["process"]);
  const report = (node, how) => {
    const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
    findings.push({ file, line: line + 1, column: character + 1, how, text: node.getText(source).slice(0, 80) });
  };

  // Is this expression the process object itself?
  const isProcess = (node) => {
    if (ts.isIdentifier(node)) return aliases.has(node.text);
    if (ts.isPropertyAccessExpression(node)) return node.name.text === "process" && ts.isIdentifier(node.expression) && GLOBALS.has(node.expression.text);
    if (ts.isElementAccessExpression(node)) {
      return literalName(node.argumentExpression) === "process" && ts.isIdentifier(node.expression) && GLOBALS.has(node.expression.text);
    }
    return false;
  };
  const isDeclarationName = (node) => {
    const p = node.parent;
    if (!p) return false;
    if ((ts.isVariableDeclaration(p) || ts.isParameter(p) || ts.isBindingElement(p) || ts.isFunctionDeclaration(p)) && p.name === node) return true;
    if (ts.isPropertyAccessExpression(p) && p.name === node) return true;
    if ((ts.isPropertyAssignment(p) || ts.isMethodDeclaration(p) || ts.isPropertyDeclaration(p)) && p.name === node) return true;
    if (ts.isImportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p) || ts.isExportSpecifier(p)) return true;
    if (ts.isShorthandPropertyAssignment(p)) return false;
    if (ts.isTypeReferenceNode(p) || ts.isQualifiedName(p) || ts.isTypeQueryNode(p)) return true;
    return false;
  };

  // First pass: the names process goes by (imports of node:process, const p = process).
  const collect = (node) => {
    if (ts.isImportDeclaration(node) && PROCESS_MODULES.has(literalName(node.moduleSpecifier))) {
      const clause = node.importClause;
      if (clause?.name) aliases.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) aliases.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) {
        for (const spec of bindings.elements) {
          const imported = (spec.propertyName ?? spec.name).text;
          if (imported === "default") aliases.add(spec.name.text);
          if (imported === "env") report(spec, "env imported from node:process");
        }
      }
    }
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      let init = node.initializer;
      while (ts.isParenthesizedExpression(init) || ts.isAsExpression(init) || ts.isNonNullExpression(init)) init = init.expression;
      if (isProcess(init)) aliases.add(node.name.text);
    }
    ts.forEachChild(node, collect);
  };
  collect(source);

  const allowed = (access) => {
    const outer = unwrap(access).parent;
    let name;
    if (outer && ts.isPropertyAccessExpression(outer) && outer.expression === unwrap(access)) name = outer.name.text;
    else if (outer && ts.isElementAccessExpression(outer) && outer.expression === unwrap(access)) name = literalName(outer.argumentExpression);
    const whole = outer && ts.isPropertyAssignment(outer) && outer.initializer === unwrap(access);
    const computed = name === undefined && !whole && outer && ts.isElementAccessExpression(outer) && outer.expression === unwrap(access);
    if (name === undefined && !whole && !computed) return false;
    if (whole) name = "*";
    const fn = functionName(access);
    const prefixed = (variable) => variable.endsWith("_*") && (computed || (name !== undefined && name.startsWith(variable.slice(0, -1))));
    return ALLOWED.some(([f, func, variable]) => f === file && func === fn && (variable === name || prefixed(variable)));
  };

  // Second pass: every place the process object is used, judged by what is done with it.
  const visit = (node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const arg = literalName(node.arguments[0]);
      if ((callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require")) && PROCESS_MODULES.has(arg)) {
        report(node, "node:process loaded at run time");
      }
    }
    if (ts.isVariableDeclaration(node) && node.initializer && ts.isObjectBindingPattern(node.name)) {
      let init = node.initializer;
      while (ts.isParenthesizedExpression(init) || ts.isAsExpression(init) || ts.isNonNullExpression(init)) init = init.expression;
      if (isProcess(init)) {
        for (const element of node.name.elements) {
          const key = element.propertyName
            ? ts.isIdentifier(element.propertyName)
              ? element.propertyName.text
              : literalName(element.propertyName)
            : element.name.getText();
          if (key === undefined || key === "env" || element.dotDotDotToken) report(element, "env destructured from process");
        }
      }
    }
    if (isProcess(node) && !(ts.isIdentifier(node) && isDeclarationName(node))) {
      const outer = unwrap(node);
      const parent = outer.parent;
      if (ts.isPropertyAccessExpression(parent) && parent.expression === outer) {
        if (parent.name.text === "env" && !allowed(parent)) report(parent, "process.env read");
      } else if (ts.isElementAccessExpression(parent) && parent.expression === outer) {
        const key = literalName(parent.argumentExpression);
        if (key === undefined) report(parent, "process read by a computed key");
        else if (key === "env" && !allowed(parent)) report(parent, "process.env read (bracketed)");
      } else if (ts.isVariableDeclaration(parent) && parent.initializer === outer) {
        // An alias or a destructuring: the alias's uses and the bindings are judged on their own.
      } else {
        report(node, "process handed on, where its env can be read");
      }
      return; // the chain is judged; globalThis.process's own identifiers are not process
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

function main(argv) {
  let root = resolve(fileURLToPath(new URL("..", import.meta.url)));
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--root" && argv[i + 1]) root = resolve(argv[++i]);
    else if (argv[i] === "--json") json = true;
    else {
      process.stderr.write(`check-env: unknown argument ${argv[i]}\nusage: node scripts/check-env.mjs [--root <dir>] [--json]\n`);
      return 2;
    }
  }
  let files;
  try {
    files = sourceFiles(root);
  } catch (error) {
    process.stderr.write(`check-env: cannot read ${join(root, "src")}: ${error.message}\n`);
    return 2;
  }
  const findings = files.flatMap((file) => findingsIn(file, readFileSync(join(root, file), "utf8")));
  if (json) process.stdout.write(JSON.stringify({ files, findings }) + "\n");
  else {
    for (const f of findings) process.stdout.write(`${f.file}:${f.line}:${f.column}: ${f.how}: ${f.text}\n`);
    process.stdout.write(
      findings.length === 0
        ? `check-env: ${files.length} files under src/ read no environment\n`
        : `check-env: ${findings.length} use${findings.length > 1 ? "s" : ""} of the environment under src/; the library takes options only (see Settings)\n`,
    );
  }
  return findings.length === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
