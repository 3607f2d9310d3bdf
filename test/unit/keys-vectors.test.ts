// One key table, two languages: src/daemon/actions.ts's KEYS held to daemon/internal/keys, which writes
// test/vectors/keys.json: the same names in the same order, and the same printable range.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isKey, KEYS } from "../../src/daemon/actions.js";

interface KeysVector {
  named: Array<{ name: string; keysym: number }>;
  printable: [number, number];
}
const vector = JSON.parse(readFileSync(join(import.meta.dirname, "..", "vectors", "keys.json"), "utf8")) as KeysVector;

describe("src/daemon/actions.ts's KEYS against the daemon's key table", () => {
  it("names the same keys in the same order", () => {
    expect([...KEYS]).toEqual(vector.named.map((k) => k.name));
  });

  it("gives every named key a keysym in the daemon", () => {
    for (const k of vector.named) expect(k.keysym).toBeGreaterThan(0);
  });

  it("takes one printable ASCII character in the same range, and nothing either side", () => {
    const [lo, hi] = vector.printable;
    for (let code = 0; code < 0x100; code++) {
      expect(isKey(String.fromCharCode(code)), `character ${code}`).toBe(code >= lo && code <= hi);
    }
  });
});
