// TestConnection's keys: each vendor's offered key names are exactly the settings fields its
// schema marks with them, and keys it does not take, or lacks, are refused in words that name
// keys, never their values. test/docker/test-connection.test.ts asks each vendor's fake.
import { describe, expect, it } from "vitest";
import { isSecretSetting } from "../../src/contract/setting-marks.js";
import { VENDORS } from "../../src/providers.js";
import { keySettings, TestConnection } from "../../src/registry/connection.js";
import type { z } from "zod";

describe("TestConnection's keys", () => {
  it.each(VENDORS.map((v) => [v.id, v] as const))("%s: its offered keys are its marked settings, each secret one still a secret", (id, vendor) => {
    const fields = keySettings(id);
    expect(Object.keys(fields).sort()).toEqual(vendor.offer.keys.map((k) => k.name).sort());
    const shape = vendor.settings.shape as Record<string, z.ZodType>;
    for (const field of Object.values(fields)) expect(shape[field], `${id}.${field}`).toBeDefined();
    if (id === "modal") expect(isSecretSetting(shape[fields.MODAL_TOKEN_SECRET!]!)).toBe(true);
  });

  it("refuses a key the provider does not take, and a required key missing, naming keys and never a value", async () => {
    const wrong = await TestConnection("modal", { keys: { MODAL_TOKEN_ID: "ak-abc", MODAL_TOKEN_SECRET: "as-secret-value", MODAL_KEY: "sk-other-value" } });
    expect(wrong).toEqual({
      ok: false,
      error: { code: "invalid", field: "keys", message: "modal has no key MODAL_KEY: it takes MODAL_TOKEN_ID, MODAL_TOKEN_SECRET" },
    });
    const missing = await TestConnection("e2b", { keys: {} });
    expect(missing).toMatchObject({ ok: false, error: { code: "invalid", message: "e2b needs E2B_API_KEY to test its connection" } });
    expect(await TestConnection("fly", { keys: { FLY_API_TOKEN: "fo-secret-value" } })).toMatchObject({
      ok: false,
      error: { code: "invalid", message: expect.stringMatching(/^there is no provider "fly": the registry holds docker, modal/) },
    });
    for (const answer of [wrong, missing]) expect(JSON.stringify(answer)).not.toMatch(/secret-value|other-value/);
  });

  it("answers unreachable for a vendor not reached within its bound, with no key in the words", async () => {
    // A loopback port nobody listens on answers at once; a held answer is the bound's case.
    const { createServer } = await import("node:http");
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const answer = await TestConnection("kernel", {
        keys: { KERNEL_API_KEY: "kernel-secret-value" },
        settings: { apiUrl: `http://127.0.0.1:${port}` },
        timeoutMs: 300,
      });
      expect(answer).toMatchObject({ ok: false, error: { code: "unreachable" } });
      expect(JSON.stringify(answer)).not.toContain("kernel-secret-value");
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
