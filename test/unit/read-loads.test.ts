// A refresh's read loads the read-back alone: the plugin's read of a Computer, through the provider
// entry (makeProvider, the registry, the Docker provider), loads none of what only a create, an
// image's build or a warm pool needs. Each such module is counted as it loads; a create through the
// same plugin then loads them, so the count can fail. The engine is a stand-in answering a
// recorded docker inspect.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test, vi } from "vitest";
import { makeProvider } from "../../provider/plugin.js";
import { engineStandIn, recordedInfo } from "../support/engine-stand-in.js";

const loaded = vi.hoisted(() => new Set<string>());
vi.mock("../../src/contract/create.js", async (original) => {
  loaded.add("the create flow (src/contract/create.ts)");
  return original();
});
vi.mock("../../src/docker/make/hooks.js", async (original) => {
  loaded.add("Docker's create hooks (src/docker/make/)");
  return original();
});
vi.mock("../../src/docker/claims.js", async (original) => {
  loaded.add("warm pools' claims (src/docker/claims.ts)");
  return original();
});
vi.mock("execa", async (original) => {
  loaded.add("execa (the docker CLI's runner, for an image's build or pull)");
  return original();
});

// A computer made on this engine with network none, recorded, as it reads once stopped: the read
// goes through the whole read-back and drift check with no connection to its daemon.
const recorded = JSON.parse(readFileSync(new URL("../fixtures/docker/inspect-none.json", import.meta.url), "utf8")) as {
  inspected: { Id: string; Name: string; State: Record<string, unknown> };
};
const inspected = { ...recorded.inspected, State: { ...recorded.inspected.State, Status: "exited", Running: false, Pid: 0 } };
const name = inspected.Name.slice(1);
const stand = await engineStandIn((call) => {
  if (call === "GET /v1.41/info") return { status: 200, body: recordedInfo() };
  if (call === `GET /v1.41/containers/${inspected.Id}/json`) return { status: 200, body: inspected };
  return undefined;
});
afterAll(() => stand.close());

// A daemon of the test's own: the unit project runs before any build, with no dist/.
const folder = mkdtempSync(join(tmpdir(), "read-loads-"));
writeFileSync(join(folder, "computerd"), "a daemon's bytes", { mode: 0o755 });
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const docker = { engine: stand.engine, daemonPath: join(folder, "computerd"), daemonCache: join(folder, "cache") };
const provider = makeProvider({ version: "0.1.0", schema: "{}", settings: { ok: true, value: { docker } } });
afterAll(() => provider.shutdown!());
const urn = "urn:pulumi:test::p::agentrun:index:Computer::c";

describe("a refresh's read", () => {
  test("loads no module of a create, an image's build or a warm pool", async () => {
    const read = await provider.read!(name, urn, { name, vendorId: inspected.Id, lifetimeMs: 600_000, network: "none" }, { lifetimeMs: 600_000 });
    // Read back whole: the stopped computer, found by its id.
    expect(stand.calls).toContain(`GET /v1.41/containers/${inspected.Id}/json`);
    expect(read.id).toBe(name);
    expect(read.props).toMatchObject({ state: "stopped", vendorId: inspected.Id });
    expect([...loaded]).toEqual([]);
  });

  test("while a create through the same plugin loads them", async () => {
    const checked = await provider.check!(urn, {}, { image: "agentrun-base:read-loads-test", lifetimeMs: 60_000, network: "none" });
    expect(checked.failures ?? []).toEqual([]);
    // The stand-in answers no create: it fails once its flow has loaded.
    await provider.create!(urn, checked.inputs).catch(() => undefined);
    expect(loaded).toContain("the create flow (src/contract/create.ts)");
    expect(loaded).toContain("Docker's create hooks (src/docker/make/)");
  });
});
