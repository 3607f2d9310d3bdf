// The library's and the plugin's import graph as the guard tests read it: each module's relative
// imports (import ... from, export ... from, and import()), as files.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Every .ts file under dir (not .d.ts). */
export function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : [],
  );
}

/** Each module's relative imports, static or lazy, as the files among files they name. */
export function graph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*)["'](\.[^"']+)["']/g)].map((m) => m[1]!);
    edges.set(
      file,
      specs.map((s) => resolve(dirname(file), s).replace(/\.js$/, ".ts")).filter((t) => known.has(t)),
    );
  }
  return edges;
}
