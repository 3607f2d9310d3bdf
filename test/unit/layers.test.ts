// The library stands in floors, and its imports run one way: a module imports its own floor or
// those below it, never one above. The vendor folders are the registry's ids, all on one floor
// (none imports another: imports.test.ts). A folder of src/ on no floor fails here until it is
// given one, so a new layer is placed on purpose.
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { PROVIDER_IDS } from "../../src/providers.js";
import { graph, sources } from "../support/import-graph.js";

const SRC = join(import.meta.dirname, "..", "..", "src");

/** The floors from the ground up, each the folders and files of src/ that stand on it. */
const FLOORS: ReadonlyArray<{ floor: string; places: readonly string[] }> = [
  { floor: "the daemon's client, its protocol, the result and error types", places: ["daemon/", "package.ts", "load-module.ts"] },
  { floor: "the network and its allowlists", places: ["egress/"] },
  { floor: "the contract every vendor keeps", places: ["contract/"] },
  { floor: "the kits several vendors build on", places: ["kits/"] },
  { floor: "the vendors", places: PROVIDER_IDS.map((id) => `${id}/`) },
  { floor: "the registry", places: ["providers.ts"] },
  { floor: "what is built on the registry", places: ["registry/", "fleet/", "inside/", "conformance/"] },
  { floor: "the command and the public surface", places: ["cli/", "index.ts"] },
];

/** A file's place: its folder under src/ (with a slash), or its own name at the top. */
const placeOf = (file: string) => {
  const path = relative(SRC, file);
  return path.includes("/") ? `${path.slice(0, path.indexOf("/"))}/` : path;
};

/** Each import that runs up a floor, as "from → to (floor → floor)". */
export function upward(edges: Map<string, string[]>, floors: typeof FLOORS): string[] {
  const floorOf = (file: string) => floors.findIndex((f) => f.places.includes(placeOf(file)));
  return [...edges].flatMap(([file, targets]) =>
    targets
      .filter((t) => floorOf(t) > floorOf(file))
      .map((t) => `src/${relative(SRC, file)} → src/${relative(SRC, t)} (${floors[floorOf(file)]!.floor} → ${floors[floorOf(t)]!.floor})`),
  );
}

describe("the library's floors", () => {
  it("place every folder and file at the top of src/", () => {
    const placed = FLOORS.flatMap((f) => f.places);
    const tops = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory() || (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")))
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
    expect(tops.filter((top) => !placed.includes(top))).toEqual([]);
  });

  it("are kept: no import runs up a floor", () => {
    expect(upward(graph(sources(SRC)), FLOORS)).toEqual([]);
  });

  it("finds an import that runs up", () => {
    const edges = new Map([
      [join(SRC, "daemon", "client.ts"), [join(SRC, "contract", "result.ts")]],
      [join(SRC, "contract", "create.ts"), [join(SRC, "daemon", "client.ts")]],
    ]);
    expect(upward(edges, FLOORS)).toEqual([
      "src/daemon/client.ts → src/contract/result.ts (the daemon's client, its protocol, the result and error types → the contract every vendor keeps)",
    ]);
  });
});
