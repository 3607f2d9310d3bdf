// The Modal sweep through the real `modal` SDK at the wire (the sweep's own client, built from the
// COMPUTER_MODAL_* settings): --before records the app's computers, --after terminates only those
// made since and reads each back; a before file of another app is refused (exit 2) having ended nothing.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sweepMain } from "../../src/modal/conformance/sweep.js";
import { spec, wires } from "../support/modal-helpers.js";

const wire = wires();
const dir = mkdtempSync(path.join(tmpdir(), "modal-sweep-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { COMPUTER_MODAL_TOKEN_ID: "ak-test", COMPUTER_MODAL_TOKEN_SECRET: "as-test", COMPUTER_MODAL_APP: "agentrun-test" };

describe("the Modal sweep", () => {
  it("terminates what a run made since --before, and never what was there", async () => {
    const { provider, fake: sdk, server, token } = await wire();
    const at = {
      COMPUTER_MODAL_TOKEN_ID: token.tokenId,
      COMPUTER_MODAL_TOKEN_SECRET: token.tokenSecret,
      COMPUTER_MODAL_APP: "agentrun-test",
      COMPUTER_MODAL_SERVER_URL: server.serverUrl,
    };
    const kept = await provider.create(spec());
    if (!kept.ok) throw new Error(kept.error.message);
    const file = path.join(dir, "before.json");
    const before = await sweepMain(["--before", file], at);
    expect(before).toEqual({ code: 0, out: JSON.stringify({ recorded: 1 }), err: "" });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ app: "agentrun-test", server: server.serverUrl, ids: [kept.value.id] });
    const made = await Promise.all([provider.create(spec()), provider.create(spec())]);
    const ids = made.map((m) => (m.ok ? m.value.id : m.error.message));

    const foreign = path.join(dir, "foreign.json");
    writeFileSync(foreign, JSON.stringify({ app: "another-app", server: server.serverUrl, ids: [] }));
    const refused = await sweepMain(["--after", foreign], at);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/of the app another-app, not agentrun-test/);
    expect((await sdk.running()).length).toBe(3);

    const after = await sweepMain(["--after", file], at);
    expect(after).toEqual({ code: 0, out: JSON.stringify({ swept: 2, gone: 2, stillThere: [] }), err: "" });
    expect(await sdk.running()).toEqual([kept.value.id]);
    expect(
      made.every((m) => m.ok),
      ids.join("; "),
    ).toBe(true);
    expect(await provider.release(kept.value, "delete")).toEqual({ ok: true, value: undefined });
  }, 180_000);

  it("refuses a usage error and a missing setting with exit 2, naming never a value", async () => {
    expect((await sweepMain(["--sideways", "x"], env)).code).toBe(2);
    const missing = await sweepMain(["--before", path.join(dir, "x.json")], {
      COMPUTER_MODAL_APP: "a",
      MODAL_TOKEN_ID: "ak-prod",
      MODAL_TOKEN_SECRET: "as-prod-secret",
    });
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/needs COMPUTER_MODAL_TOKEN_ID, COMPUTER_MODAL_TOKEN_SECRET \(MODAL_TOKEN_ID and MODAL_TOKEN_SECRET are never read/);
    expect(missing.err).not.toContain("as-prod-secret");
  });
});
