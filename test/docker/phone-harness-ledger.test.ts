// The phone harness provider's ledger and adb, against the fake: testConnection is one listing
// joined to the ledger; a pending entry is kept while its create may run and forgotten after its
// deadline; an unnamed session is never ended, and its release is ok once it is gone; adbCli
// starts its own server, on its own port, when none answers there.
import { execFile } from "node:child_process";
import { createServer } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adbCli, hostReply } from "../../src/phone-harness/adb.js";
import { memoryLedger } from "../../src/phone-harness/index.js";
import { PHONE_SPEC, phoneStand, type PhoneStand } from "../support/phone-harness-helpers.js";

let stand: PhoneStand;
beforeAll(async () => void (stand = await phoneStand()));
afterAll(async () => stand?.close());

const entry = (id: string, deadline: Date) => ({ id, labels: {}, image: "android", deadline: deadline.toISOString(), requestKey: id.replace("pending-", "") });

describe("the phone harness provider's ledger", () => {
  it("answers testConnection from one listing joined to the ledger, and a refused key as unauthorized", async () => {
    const ledger = memoryLedger();
    const provider = stand.provider({ ledger });
    const before = stand.fake.requests.length;
    expect(await provider.testConnection()).toEqual({ ok: true, value: { detail: "the phone harness answers; 0 phones of this provider" } });
    expect(stand.fake.requests.slice(before)).toEqual(["GET /sessions"]);
    expect(await stand.provider({ apiKey: "ph_refused" }).testConnection()).toMatchObject({ ok: false, error: { code: "unauthorized" } });
  });

  it("keeps a pending entry while its create may run, and forgets it after its deadline", async () => {
    const ledger = memoryLedger();
    await ledger.put(entry("pending-a", new Date(Date.now() + 60_000)));
    await ledger.put(entry("pending-b", new Date(Date.now() - 1000)));
    const listed = await stand.provider({ ledger }).list();
    expect(listed).toEqual({ ok: true, value: [] });
    expect((await ledger.list()).map((e) => e.id)).toEqual(["pending-a"]);
  });

  it("never ends a session it does not name, and answers its release ok once it is gone", async () => {
    const provider = stand.provider();
    const other = await stand.fake.startOther();
    const ref = { id: other.id, name: other.id, provider: "phone-harness" };
    expect(await provider.release(ref, "delete")).toMatchObject({ ok: false, error: { code: "not_found" } });
    await fetch(`${stand.fake.url}/sessions/${other.id}`, { method: "DELETE", headers: { authorization: `Bearer ${stand.fake.key}` } });
    for (const end = Date.now() + 3000; stand.fake.running().length > 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 25));
    expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
  });

  it("keeps a released phone's entry until its own GET is a 404: a second release is ok, list leaves it out, attach is not_found", async () => {
    const ledger = memoryLedger();
    stand.fake.timing.endMs = 1500;
    try {
      const provider = stand.provider({ ledger });
      const made = await provider.create(PHONE_SPEC);
      if (!made.ok) throw new Error(made.error.message);
      expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
      expect(await ledger.get(made.value.id)).toMatchObject({ released: true });
      expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
      expect(await provider.list()).toEqual({ ok: true, value: [] });
      expect(await provider.attach({ id: made.value.id })).toMatchObject({ ok: false, error: { code: "not_found" } });
      for (const end = Date.now() + 4000; stand.fake.running().length > 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
      await provider.list();
      expect(await ledger.list()).toEqual([]);
    } finally {
      stand.fake.timing.endMs = 100;
    }
  });
});

describe("adbCli", () => {
  it("starts a server of its own on its port when none answers there, and speaks to it", async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const port = (free.address() as { port: number }).port;
    await new Promise((resolve) => free.close(resolve));
    const adb = adbCli("adb", { port, env: { ...process.env, ADB_SERVER_SOCKET: "tcp:127.0.0.1:1", ANDROID_SERIAL: "nothing" } });
    try {
      expect(hostReply(await adb.server(["host:version"]))).toMatch(/^[0-9a-f]{4}$/);
    } finally {
      await promisify(execFile)("adb", ["-P", String(port), "kill-server"]).catch(() => undefined);
    }
  });
});
