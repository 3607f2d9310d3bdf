// The Kernel provider against its fake (test/support/fake-kernel.ts): a loopback server whose
// browsers are real headless Chromium, so create with tags, CDP through the URL connect gives,
// list by tags (status=all, the deleted dropped), the live view, DELETE read back, the idle
// timeout's end and every cut-off create run as they would at Kernel.
import { beforeAll, describe, expect, it } from "vitest";
import { evaluateLoaded, openCdp, openPage } from "../../src/conformance/cdp.js";
import { orThrow } from "../../src/daemon/result.js";
import { create } from "../../src/kernel/create.js";
import type { KernelProvider } from "../../src/kernel/provider.js";
import { useKernelFake } from "../support/browser-helpers.js";

const KEY = `kernel_test_${process.pid}_key`;
const held = useKernelFake(KEY);
let provider: KernelProvider;

beforeAll(() => {
  provider = create({ apiKey: KEY, apiUrl: held.fake.apiUrl, pollMs: 50 });
});

const spec = { image: "chromium", lifetimeMs: 300_000, network: "open" as const, labels: { "agentrun.test": "kernel-fake" } };

describe("Kernel against the fake, with real Chromium", () => {
  it("create with the labels as tags, CDP through the URL connect gives, release by DELETE read back; nothing is left", async () => {
    const ref = orThrow(await provider.create(spec));
    try {
      expect(held.fake.browsers.get(ref.id)!.answer).toMatchObject({
        timeout_seconds: 300,
        tags: { "agentrun.test": "kernel-fake", "agentrun.computer.name": ref.name },
      });
      expect(ref.spec?.deadline).toBeUndefined();
      const conn = orThrow(await provider.connect(ref));
      const cdp = await openCdp(conn.cdp!.url);
      try {
        const page = await openPage(cdp, "<title>kernel</title>");
        expect(await evaluateLoaded(cdp, page.sessionId, "document.title + (1+1)")).toBe("kernel2");
      } finally {
        cdp.close();
        await conn.close();
      }
    } finally {
      expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    }
    expect(held.fake.live()).toEqual([]);
    expect(held.fake.browsers.get(ref.id)!.answer.deleted_at).toBeDefined();
    expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
  }, 120_000);

  it("lists by tags with no deadline (an idle timeout), the deleted left out; gives the live view", async () => {
    const a = orThrow(await provider.create({ ...spec, labels: { ...spec.labels, run: "k1" } }));
    const b = orThrow(await provider.create({ ...spec, labels: { ...spec.labels, run: "k2" } }));
    try {
      orThrow(await provider.release(b, "delete"));
      const listed = orThrow(await provider.list({ "agentrun.test": "kernel-fake" }));
      expect(listed.map((c) => c.ref.id)).toEqual([a.id]);
      expect(listed[0]!.deadline).toBeUndefined();
      const { url } = orThrow(await provider.stream!(a));
      expect((await fetch(url)).status).toBe(200);
    } finally {
      orThrow(await provider.release(a, "delete"));
    }
  }, 120_000);

  it("a browser left idle past its timeout is deleted by Kernel, and gone", async () => {
    held.fake.timeScale = 100; // its 10 s of idleness end after 1 s
    try {
      const ref = orThrow(await provider.create({ ...spec, lifetimeMs: 10_000 }));
      await new Promise((r) => setTimeout(r, 2000));
      const conn = await provider.connect(ref);
      expect(conn.ok ? "" : conn.error.code).toBe("gone");
      expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    } finally {
      held.fake.timeScale = 1000;
    }
  }, 60_000);

  it("refuses a wrong key as unauthorized, in words with no key, and makes nothing", async () => {
    const wrong = create({ apiKey: "kernel_wrong_0123456789abcdef", apiUrl: held.fake.apiUrl });
    const before = held.fake.browsers.size;
    const made = await wrong.create(spec);
    expect(made.ok ? "" : made.error.message).toBe("POST /browsers: Kernel answered HTTP 401 (unauthorized: check the API key)");
    expect(JSON.stringify(made)).not.toContain("kernel_wrong");
    expect(held.fake.browsers.size).toBe(before);
    expect(orThrow(await provider.testConnection!()).detail).toBe("Kernel answers; 0 browsers of this provider running");
  });

  it("refuses before any call what Kernel cannot be asked: a lifetime past 72 h or under 10 s, another image, a tag key it cannot take", async () => {
    const sent = held.fake.creates.length;
    for (const extra of [{ lifetimeMs: 72 * 3_600_000 + 1 }, { lifetimeMs: 9_999 }, { image: "firefox" }, { labels: { "bad key": "x" } }]) {
      expect((await provider.create({ ...spec, ...extra })).ok).toBe(false);
    }
    expect(held.fake.creates.length).toBe(sent);
  });

  it.each(["drop-reply", "answer-500", "answer-no-body"] as const)(
    "a create whose outcome is unknown (%s) finds what its label made and deletes it",
    async (fault) => {
      held.fake.createFault = fault;
      const sent = held.fake.creates.length;
      const made = await provider.create(spec);
      expect(made.ok ? "" : made.error.message).toMatch(
        /^POST \/browsers: .*; its outcome was unknown; it found 1 browser it made by its create label and released it$/,
      );
      expect(held.fake.creates.length).toBe(sent + 1);
      expect(held.fake.live()).toEqual([]);
    },
    60_000,
  );
});
