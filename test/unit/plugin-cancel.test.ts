// The engine's cancel (a second Ctrl-C) reaches every vendor call the plugin makes: after it, a
// Computer's create is refused as aborted before anything is made. The Docker engine is a stand-in
// that logs every call: nothing is made when no call but a read reaches it.
import { afterAll, describe, expect, test } from "vitest";
import { makeProvider } from "../../provider/plugin.js";
import { engineStandIn, recordedInfo } from "../support/engine-stand-in.js";

const stand = await engineStandIn({ "GET /v1.41/info": { status: 200, body: recordedInfo() } });
afterAll(() => stand.close());

describe("the plugin's cancel", () => {
  test("aborts the steps that follow it, making nothing", async () => {
    const provider = makeProvider({ version: "0.0.0-test", schema: "{}", settings: { ok: true, value: { docker: { engine: stand.engine } } } });
    await provider.cancel!();
    const urn = "urn:pulumi:test::p::agentrun:index:Computer::c";
    const checked = await provider.check!(urn, {}, { image: "agentrun-base:cancel-test", lifetimeMs: 60_000, labels: { purpose: "cancel-test" } });
    expect(checked.failures ?? []).toEqual([]);
    await expect(provider.create!(urn, checked.inputs)).rejects.toThrow(/abort/i);
    expect(stand.calls.filter((call) => !call.startsWith("GET "))).toEqual([]);
  });
});
