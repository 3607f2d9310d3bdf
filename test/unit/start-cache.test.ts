// The plugin's start cache (provider/start-cache.ts): modules compiled from V8's cached code only
// when the code was made from the very source loaded, found by their path inside node_modules or
// the cache's own folder, and a cache that is missing, unreadable or refused never stops a module
// from loading.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { recordStartCache, useStartCache } from "../../provider/start-cache.js";

// b's answer is a literal of fixed width, so the source changed below keeps its length.
const A = `const b = require("./b.js");\nmodule.exports = { answer: b.answer() + 1, here: __filename };\n`;
const B = (n: number) => `exports.answer = function () { return ${n}; };\n`;

describe("the start cache", () => {
  let dir: string;
  let cache: string;
  let n = 0;

  /** A package "fixture" in a node_modules of its own folder (each load a fresh folder, so Node's module cache never answers). */
  async function installed(b = B(41)): Promise<string> {
    const pkg = join(dir, `app${n++}`, "node_modules", "fixture");
    await mkdir(pkg, { recursive: true });
    await writeFile(join(pkg, "a.js"), A);
    await writeFile(join(pkg, "b.js"), b);
    return join(pkg, "a.js");
  }
  const load = (a: string) => createRequire(a)(a) as { answer: number; here: string };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentrun-start-cache-"));
    cache = join(dir, "start-cache.bin");
    const a = await installed();
    expect(await recordStartCache(cache, async () => load(a))).toBe(2);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("compiles what it recorded from the cached code, wherever the package is installed", async () => {
    const a = await installed();
    const end = useStartCache(cache);
    const loaded = load(a);
    expect(end()).toEqual({ used: 2, refused: 0, stale: 0 });
    expect(loaded).toEqual({ answer: 42, here: a });
  });

  test("a module whose source changed is compiled from its source, though V8 would take the code for a source of the same length", async () => {
    const a = await installed(B(98));
    const end = useStartCache(cache);
    const loaded = load(a);
    expect(end()).toEqual({ used: 1, refused: 0, stale: 1 });
    expect(loaded.answer).toBe(99);
  });

  test("code V8 refuses is compiled again, and the module loads", async () => {
    const entries = deserialize(readFileSync(cache)) as Array<{ code: Uint8Array }>;
    for (const e of entries) e.code = e.code.map((byte) => byte ^ 0xff);
    writeFileSync(cache, serialize(entries));
    const end = useStartCache(cache);
    const loaded = load(await installed());
    expect(end()).toEqual({ used: 0, refused: 2, stale: 0 });
    expect(loaded.answer).toBe(42);
  });

  test("a cache that is missing or unreadable is none, and the modules load as Node loads them", async () => {
    writeFileSync(cache, "not a cache");
    for (const file of [cache, join(dir, "missing.bin")]) {
      const end = useStartCache(file);
      const loaded = load(await installed());
      expect(end()).toEqual({ used: 0, refused: 0, stale: 0 });
      expect(loaded.answer).toBe(42);
    }
  });

  test("a module of the cache's own folder (the provider's bundle) is found by its path there, wherever that folder is", async () => {
    const bundle = (folder: string) => join(dir, folder, "start.bundle.cjs");
    await mkdir(join(dir, "built"));
    await writeFile(bundle("built"), B(41));
    const own = join(dir, "built", "start-cache.bin");
    expect(await recordStartCache(own, async () => createRequire(bundle("built"))(bundle("built")))).toBe(1);
    await mkdir(join(dir, "installed"));
    await writeFile(bundle("installed"), B(41));
    writeFileSync(own.replace("built", "installed"), readFileSync(own));
    const end = useStartCache(own.replace("built", "installed"));
    expect((createRequire(bundle("installed"))(bundle("installed")) as { answer(): number }).answer()).toBe(41);
    expect(end()).toEqual({ used: 1, refused: 0, stale: 0 });
  });

  test("once ended, Node compiles every module again", async () => {
    useStartCache(cache)();
    const a = await installed(B(98));
    expect(load(a).answer).toBe(99);
  });
});
