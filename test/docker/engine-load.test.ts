// What a process loads to call the engine: undici's Pool and its request API, not the package's
// index (its fetch, cookies, WebSocket and mocks), which brings Node's own undici in with it.
// Every plugin process that reads or makes a computer pays this (127-141 ms for the index, 61-71
// for what src/docker/undici.ts loads). A fresh node runs the built library against the real engine.
import { execa } from "execa";
import { expect, it } from "vitest";
import { ROOT } from "../support/toolchain.js";

it("calls the engine with undici's Pool loaded alone: neither undici's index nor Node's own undici", async () => {
  const script = `
    import { createRequire } from "node:module";
    const { DockerEngine } = await import(${JSON.stringify(`${ROOT}/dist/src/docker/api.js`)});
    const engine = new DockerEngine();
    const info = await engine.call("GET", "/info", { timeoutMs: 30000 });
    await engine.close();
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes("/node_modules/undici/"));
    const internal = process.moduleLoadList.filter((m) => m.includes("undici"));
    console.log(JSON.stringify({ ok: info.ok, loaded, internal }));`;
  const ran = await execa(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT });
  const { ok, loaded, internal } = JSON.parse(ran.stdout) as { ok: boolean; loaded: string[]; internal: string[] };
  expect(ok).toBe(true);
  expect(loaded).toContain(`${ROOT}/node_modules/undici/lib/dispatcher/pool.js`);
  expect(loaded).not.toContain(`${ROOT}/node_modules/undici/index.js`);
  expect(internal).toEqual([]);
});
