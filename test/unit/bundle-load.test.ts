// The plugin takes the build's bundle only while it is as new as the compiled modules
// (provider/bundle-load.ts): a tsc run after the bundle was made leaves the bundle out.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { freshBundle } from "../../provider/bundle-load.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentrun-bundle-load-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, seconds: number) => {
  const path = join(dir, name);
  writeFileSync(path, "");
  utimesSync(path, seconds, seconds);
  return path;
};

it("takes a bundle made after the compiled modules or at the same time (a packed package's times are all one)", () => {
  expect(freshBundle(file("start.bundle.cjs", 2_000), file("bundle-load.js", 1_000))).toBe(true);
  expect(freshBundle(file("start.bundle.cjs", 1_000), file("bundle-load.js", 1_000))).toBe(true);
});

it("leaves out a bundle older than the compiled modules, and one that is not there", () => {
  expect(freshBundle(file("start.bundle.cjs", 1_000), file("bundle-load.js", 2_000))).toBe(false);
  expect(freshBundle(join(dir, "missing.cjs"), file("bundle-load.js", 1_000))).toBe(false);
});
