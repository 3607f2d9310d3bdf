// No import loop among the library's and the plugin's modules, static or lazy: a contract
// (provider/resource.ts) never imports what implements it. The vendor folders are the registry's
// ids: src/contract/ imports none of them, and none imports another.
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { PROVIDER_IDS } from "../../src/providers.js";
import { graph, sources } from "../support/import-graph.js";

const ROOT = join(import.meta.dirname, "..", "..");

/** Every cycle, each as the files around it. */
function cycles(edges: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    path.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === "open") found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, "done");
  };
  for (const file of edges.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe("the modules' imports", () => {
  it("have no loop in src/ and provider/", () => {
    const edges = graph([...sources(join(ROOT, "src")), ...sources(join(ROOT, "provider"))]);
    expect(cycles(edges).map((c) => c.map((f) => relative(ROOT, f)).join(" → "))).toEqual([]);
  });

  const vendors: readonly string[] = PROVIDER_IDS;
  const inVendor = (file: string) => vendors.find((v) => file.startsWith(join(ROOT, "src", v) + "/"));

  it("never reach from src/contract/ into a vendor's folder", () => {
    const edges = graph(sources(join(ROOT, "src")));
    const reached = [...edges]
      .filter(([file]) => file.startsWith(join(ROOT, "src", "contract") + "/"))
      .flatMap(([file, targets]) => targets.filter(inVendor).map((t) => `${relative(ROOT, file)} → ${relative(ROOT, t)}`));
    expect(reached).toEqual([]);
  });

  it("never reach from one vendor's folder into another's", () => {
    const edges = graph(sources(join(ROOT, "src")));
    const crossings = [...edges].flatMap(([file, targets]) => {
      const from = inVendor(file);
      if (!from) return [];
      return targets.filter((t) => inVendor(t) !== undefined && inVendor(t) !== from).map((t) => `${relative(ROOT, file)} → ${relative(ROOT, t)}`);
    });
    expect(crossings).toEqual([]);
  });

  it("finds a loop where there is one", () => {
    const edges = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
    ]);
    expect(cycles(edges)).toEqual([["a", "b", "c", "a"]]);
  });
});
