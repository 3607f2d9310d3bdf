// The plugin's end closes what its vendors keep open: the engine ends a plugin when its operation
// is over (SIGINT, then a kill 5 s later), and a Docker engine's kept connections (an ssh engine's
// shared login among them, test/pulumi/remote-engine.e2e.test.ts) would otherwise outlive it.
// The engine is a stand-in that counts the connections held to it.
import { afterAll, describe, expect, test } from "vitest";
import { makeProvider } from "../../provider/plugin.js";
import { engineStandIn, recordedInfo } from "../support/engine-stand-in.js";

const stand = await engineStandIn({ "GET /v1.41/info": { status: 200, body: recordedInfo() } });
afterAll(() => stand.close());

const until = async (done: () => boolean, ms = 3_000) => {
  for (const end = Date.now() + ms; !done() && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
};

describe("the plugin's shutdown", () => {
  test("closes the Docker engine's kept connections, and aborts what is still in flight", async () => {
    const provider = makeProvider({ version: "0.0.0-test", schema: "{}", settings: { ok: true, value: { docker: { engine: stand.engine } } } });
    const urn = "urn:pulumi:test::p::agentrun:index:Computer::c";
    // A create reads the host first (docker info): the engine's connection is then kept.
    const checked = await provider.check!(urn, {}, { image: "agentrun-base:shutdown-test", lifetimeMs: 60_000, labels: { purpose: "shutdown-test" } });
    expect(checked.failures ?? []).toEqual([]);
    await provider.create!(urn, checked.inputs).catch(() => undefined);
    expect(stand.calls).toContain("GET /v1.41/info");
    expect(stand.open()).toBeGreaterThan(0);
    await provider.shutdown!();
    await until(() => stand.open() === 0);
    expect(stand.open()).toBe(0);
    // After it, a step is refused as aborted, making nothing.
    const before = stand.calls.length;
    await expect(provider.create!(urn, checked.inputs)).rejects.toThrow(/abort/i);
    expect(stand.calls.slice(before).filter((call) => !call.startsWith("GET "))).toEqual([]);
  });
});
