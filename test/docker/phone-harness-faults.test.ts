// The phone harness provider's faults, each in words and leaving no phone running at the fake:
// a refused key, a busy service, a phone that never gets ready, a lost answer and its recovery,
// a create cut off during its POST, a ledger that cannot be written, an adb link that drops
// mid-batch, a cancel. Through it all no key and no unlock code is in any process's argv.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ComputerRef } from "../../src/contract/provider.js";
import { fileLedger, memoryLedger, type Ledger } from "../../src/phone-harness/index.js";
import { PHONE_SPEC, phoneStand, watchArgv, type PhoneStand } from "../support/phone-harness-helpers.js";

let stand: PhoneStand;
let argv: { stop(): string[] };
beforeAll(async () => {
  stand = await phoneStand();
  argv = watchArgv(() => [stand.fake.key, ...stand.fake.codes]);
});
afterEach(async () => {
  stand.fake.faults = {};
  stand.fake.sessionLimit = 3;
  // Every test leaves no phone running (ending ones are gone within endMs).
  await until(() => stand.fake.running().length === 0);
  expect(stand.fake.running()).toEqual([]);
});
afterAll(async () => {
  const leaked = argv?.stop() ?? [];
  await stand?.close();
  expect(leaked).toEqual([]);
});

async function until(done: () => boolean, ms = 3000): Promise<void> {
  for (const end = Date.now() + ms; !done() && Date.now() < end;) await new Promise((r) => setTimeout(r, 25));
}

const noSecret = (words: string) => {
  expect(words).not.toContain(stand.fake.key);
  for (const code of stand.fake.codes) expect(words).not.toContain(code);
  expect(words).not.toMatch(/127\.0\.0\.1:\d+/);
};

describe("the phone harness provider's refusals", () => {
  it("keeps the service's refusals and their kinds, never the key: a refused key, phones_busy, session_limit", async () => {
    const wrong = await stand.provider({ apiKey: "ph_wrong_key_000" }).create(PHONE_SPEC);
    expect(wrong).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(!wrong.ok && wrong.error.message).toMatch(/refused \(401 invalid_api_key\): the API key was not accepted/);
    expect(JSON.stringify(wrong)).not.toContain("ph_wrong_key_000");
    stand.fake.faults.busy = true;
    const ledger = memoryLedger();
    const busy = await stand.provider({ ledger }).create(PHONE_SPEC);
    expect(busy).toMatchObject({ ok: false, error: { code: "limit", message: expect.stringMatching(/phones_busy.*every phone is busy/) } });
    stand.fake.faults.busy = false;
    stand.fake.sessionLimit = 0;
    const limit = await stand.provider({ ledger }).create(PHONE_SPEC);
    expect(limit).toMatchObject({ ok: false, error: { code: "limit", message: expect.stringMatching(/session_limit/) } });
    expect(await ledger.list()).toEqual([]);
    noSecret(JSON.stringify([busy, limit]));
  });

  it("refuses what a phone does not have, in words: platform ios, a spec it cannot take, exec, files, deadline.extend, apps.install, pinch, hold, a combo", async () => {
    expect(() => stand.provider({ platform: "ios" })).toThrow(/platform "ios" is not offered yet: a cloud iPhone .* is a later change/);
    const checked = stand.provider().check({ image: "ubuntu", lifetimeMs: 60 * 60_000, network: "none", cpus: 2 });
    expect(checked.ok ? [] : checked.error.refusals?.map((r) => r.field)).toEqual(["lifetimeMs", "image", "network", "cpus"]);
    const provider = stand.provider();
    const made = await provider.create(PHONE_SPEC);
    if (!made.ok) throw new Error(made.error.message);
    const connection = await provider.connect(made.value);
    if (!connection.ok) throw new Error(connection.error.message);
    const { client } = connection.value;
    try {
      await expect(client.request("exec.run", { argv: ["id"] })).rejects.toMatchObject({
        kind: "unsupported",
        message: expect.stringMatching(/a phone has no shell in the computer protocol/),
      });
      await expect(client.request("files.read", { path: "/x" })).rejects.toMatchObject({ kind: "unsupported" });
      await expect(client.request("deadline.extend", { at: "x" })).rejects.toMatchObject({ message: expect.stringMatching(/deadline cannot be extended/) });
      await expect(client.request("apps.install", { path: "/x.apk" })).rejects.toMatchObject({
        kind: "unsupported",
        message: expect.stringMatching(/installs an app only from the provider's installFrom folder, and none was given/),
      });
      for (const [action, words] of [
        [{ type: "pinch", point: [10, 10], scale: 2 }, /one finger .* cannot pinch/],
        [{ type: "hold", keys: ["a"], ms: 10 }, /cannot hold keys/],
        [{ type: "key", keys: ["ctrl", "a"] }, /cannot press a combination/],
      ] as const) {
        const result = await client.call("input.actions", { actions: [{ type: "tap", point: [1, 1] }, action] });
        expect(result).toMatchObject({ done: 0, failed: { index: 1, kind: "unsupported", message: expect.stringMatching(words) } });
      }
      expect(await client.call("input.actions", { actions: [{ type: "key", keys: ["Hyper_Q"] }] })).toMatchObject({
        done: 0,
        failed: { index: 0, kind: "invalid" },
      });
    } finally {
      await connection.value.close();
      await provider.release(made.value, "delete");
    }
  });
});

describe("the phone harness provider's faults", () => {
  it.each(["drop", "5xx", "empty"] as const)("finds the phone a POST made when its answer is lost (%s), never sending the POST twice", async (lost) => {
    stand.fake.faults.postAnswer = lost;
    const before = stand.fake.requests.length;
    const provider = stand.provider();
    const made = await provider.create(PHONE_SPEC);
    expect(made.ok, JSON.stringify(made)).toBe(true);
    const sent = stand.fake.requests.slice(before);
    expect(sent.filter((r) => r === "POST /sessions")).toHaveLength(1);
    expect(sent.filter((r) => r.startsWith("GET /sessions/requests/"))).toHaveLength(1);
    expect(stand.fake.running()).toHaveLength(1);
    if (made.ok) expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
  });

  it("keeps the pending entry when the answer and its recovery are both lost; list() then finds the phone by its key and release ends it", async () => {
    stand.fake.faults = { postAnswer: "5xx", recoveryLost: true };
    const ledger = memoryLedger();
    const provider = stand.provider({ ledger });
    const made = await provider.create(PHONE_SPEC);
    expect(made).toMatchObject({ ok: false, error: { code: "unreachable", message: expect.stringMatching(/did not say whether it made a phone/) } });
    expect((await ledger.list()).map((e) => e.id)).toEqual([expect.stringMatching(/^pending-/)]);
    stand.fake.faults = {};
    const other = await stand.fake.startOther();
    const listed = await provider.list();
    expect(listed.ok && listed.value.map((c) => c.ref.id)).toEqual([stand.fake.running().find((s) => s.id !== other.id)!.id]);
    if (listed.ok) expect(await provider.release(listed.value[0]!.ref, "delete")).toEqual({ ok: true, value: undefined });
    // Another client's session is never taken as this provider's.
    await until(() => stand.fake.running().length === 1);
    expect(stand.fake.running().map((s) => s.id)).toEqual([other.id]);
    await fetch(`${stand.fake.url}/sessions/${other.id}`, { method: "DELETE", headers: { authorization: `Bearer ${stand.fake.key}` } });
  });

  it("ends a phone that never gets ready within readyMs, in words", async () => {
    stand.fake.faults.neverReady = true;
    const made = await stand.provider({ readyMs: 1000 }).create(PHONE_SPEC);
    expect(made).toMatchObject({
      ok: false,
      error: { code: "timeout", message: expect.stringMatching(/the phone ses_\w+ was not ready within 1 s \(or before its deadline\); the phone was ended/) },
    });
  });

  it("asks a readiness read cut off by requestMs again while readyMs has time left", async () => {
    stand.fake.faults.slowReads = 2;
    const provider = stand.provider({ requestMs: 400, readyMs: 10_000 });
    const made = await provider.create(PHONE_SPEC);
    expect(made.ok, JSON.stringify(made)).toBe(true);
    expect(stand.fake.faults.slowReads).toBe(0);
    if (made.ok) await provider.release(made.value, "delete");
  });

  it("ends a phone that fails while booting", async () => {
    stand.fake.faults.bootFails = true;
    const made = await stand.provider().create(PHONE_SPEC);
    expect(made).toMatchObject({ ok: false, error: { code: "failed", message: expect.stringMatching(/failed to start \(failed\)/) } });
  });

  it("recovers a create cancelled during its POST by its key, and ends the phone the service made", async () => {
    stand.fake.faults.postDelayMs = 400;
    const made = await stand.provider().create(PHONE_SPEC, { signal: AbortSignal.timeout(100) });
    expect(made).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(stand.fake.requests.at(-2)).toMatch(/^GET \/sessions\/requests\//);
    expect(stand.fake.requests.at(-1)).toMatch(/^DELETE \/sessions\/ses_/);
  });

  it("ends the phone when the ledger cannot record it, and makes nothing when the ledger cannot be written at all", async () => {
    const inner = memoryLedger();
    const failing: Ledger = { ...inner, put: async (e) => (e.id.startsWith("pending-") || e.released ? inner.put(e) : Promise.reject(new Error("disk full"))) };
    const made = await stand.provider({ ledger: failing }).create(PHONE_SPEC);
    expect(made).toMatchObject({
      ok: false,
      error: { code: "failed", message: expect.stringMatching(/the phone ledger could not be written: disk full; the phone was ended/) },
    });
    const dir = mkdtempSync(join(tmpdir(), "phone-ledger-"));
    writeFileSync(join(dir, "file"), "");
    const posts = stand.fake.requests.filter((r) => r === "POST /sessions").length;
    const unwritable = await stand.provider({ ledger: fileLedger(join(dir, "file", "ledger.json")) }).create(PHONE_SPEC);
    expect(unwritable).toMatchObject({ ok: false, error: { code: "failed", message: expect.stringMatching(/the phone ledger could not be written/) } });
    expect(stand.fake.requests.filter((r) => r === "POST /sessions")).toHaveLength(posts);
  });

  it("answers a batch whose adb link drops mid-batch failed at the action it was on, and a cancel aborted at the wait it is on", async () => {
    const provider = stand.provider();
    const made = await provider.create(PHONE_SPEC);
    if (!made.ok) throw new Error(made.error.message);
    let ref: ComputerRef = made.value;
    const connection = await provider.connect(ref);
    if (!connection.ok) throw new Error(connection.error.message);
    const { client } = connection.value;
    try {
      const cancel = new AbortController();
      setTimeout(() => cancel.abort(), 150);
      const started = Date.now();
      const cancelled = await client.call(
        "input.actions",
        {
          actions: [
            { type: "tap", point: [5, 5] },
            { type: "wait", ms: 5000 },
            { type: "tap", point: [5, 5] },
          ],
        },
        { signal: cancel.signal },
      );
      expect(cancelled).toMatchObject({ done: 1, failed: { index: 1, kind: "aborted" } });
      // Ended by the cancel, not by the 5 s wait running out (a margin for a loaded machine).
      expect(Date.now() - started).toBeLessThan(4000);
      setTimeout(() => stand.fake.phone(ref.id)!.drop(), 150);
      const dropped = await client.call("input.actions", {
        actions: [
          { type: "tap", point: [5, 5] },
          { type: "wait", ms: 400 },
          { type: "tap", point: [5, 5] },
        ],
      });
      expect(dropped).toMatchObject({ done: 2, failed: { index: 2, kind: "not_found", message: expect.stringMatching(/adb link failed/) } });
      noSecret(JSON.stringify(dropped));
    } finally {
      await connection.value.close();
      ref = made.value;
      await provider.release(ref, "delete");
    }
  });
});
