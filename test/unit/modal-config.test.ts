// The stack's agentrun:modal config: the token, app and environment taken; the fake's setting
// refused unless the plugin's test flag is on; no message holds the token.
import { describe, expect, it } from "vitest";
import { settingsFrom } from "../../provider/config.js";
import { providerFromSettings } from "../../src/providers.js";

const token = { tokenId: "ak-0123456789abcdefghij", tokenSecret: "as-abcdefghij0123456789zz" };

describe("agentrun:modal", () => {
  it("takes the token, app and environment", () => {
    const config = JSON.stringify({ "agentrun:modal": JSON.stringify({ ...token, app: "computers", environment: "main" }) });
    expect(settingsFrom(config)).toEqual({ ok: true, value: { modal: { ...token, app: "computers", environment: "main" } } });
  });

  it("refuses testSdk unless the test flag is on, and then takes it", () => {
    const config = JSON.stringify({ "agentrun:modal": JSON.stringify({ app: "computers", testSdk: "/x/fake.js" }) });
    const refused = settingsFrom(config);
    expect(refused).toMatchObject({ ok: false });
    expect(refused.ok ? "" : refused.message).toMatch(/testSdk .* refused unless the plugin's test flag \(AGENTRUN_COMPUTER_TEST=1\) is on/);
    expect(settingsFrom(config, { test: true })).toEqual({ ok: true, value: { modal: { app: "computers", testSdk: "/x/fake.js" } } });
  });

  it("names a key it refuses, never its value", () => {
    const config = JSON.stringify({ "agentrun:modal": JSON.stringify({ ...token, tokenSecretTypo: token.tokenSecret }) });
    const refused = settingsFrom(config);
    expect(refused.ok ? "" : refused.message).toContain("agentrun:modal");
    expect(JSON.stringify(refused)).not.toContain(token.tokenSecret);
  });

  it("builds the provider through the registry from the token and app alone, or refuses in words without the token", async () => {
    const built = await providerFromSettings("modal", { ...token, app: "computers" });
    expect(built.ok && built.value.id).toBe("modal");
    const missing = await providerFromSettings("modal", { app: "computers", tokenSecret: token.tokenSecret });
    expect(missing).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(missing.ok ? "" : missing.error.message).toMatch(/needs tokenId/);
    expect(JSON.stringify(missing)).not.toContain(token.tokenSecret);
    expect(await providerFromSettings("modal", token)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/app is required/) } });
  });
});

describe("the Modal client", () => {
  it("refuses an ambient MODAL_SERVER_URL, and leaves none behind after it builds one", async () => {
    const { modalClient } = await import("../../src/modal/client.js");
    process.env.MODAL_SERVER_URL = "https://elsewhere.example:443";
    try {
      expect(() => modalClient({ ...token })).toThrow(/MODAL_SERVER_URL is set in this process; the Modal provider refuses/);
    } finally {
      delete process.env.MODAL_SERVER_URL;
    }
    const client = modalClient({ ...token, serverUrl: "https://api.modal.com:443" }) as unknown as { profile: { serverUrl: string; tokenId: string } };
    expect(client.profile.serverUrl).toBe("https://api.modal.com:443");
    expect(client.profile.tokenId).toBe(token.tokenId);
    expect(process.env.MODAL_SERVER_URL).toBeUndefined();
    expect(() => modalClient({ ...token, serverUrl: "http://plain.example" })).toThrow(/serverUrl is neither https nor http to this machine's loopback/);
    // Plaintext only on the loopback (the SDK dials a localhost server without TLS), never elsewhere.
    const local = modalClient({ ...token, serverUrl: "http://127.0.0.1:50051" }) as unknown as { profile: { serverUrl: string } };
    expect(local.profile.serverUrl).toBe("http://127.0.0.1:50051");
    expect(() => modalClient({ ...token, serverUrl: "http://10.0.0.1:50051" })).toThrow(/serverUrl is neither https nor http to this machine's loopback/);
    // gRPC dials an address alone: a path is refused, a trailing slash is dropped (the channel would read it as the host's).
    expect(() => modalClient({ ...token, serverUrl: "https://api.modal.com/v1" })).toThrow(/serverUrl holds a path/);
    const slash = modalClient({ ...token, serverUrl: "https://api.modal.com:443/" }) as unknown as { profile: { serverUrl: string } };
    expect(slash.profile.serverUrl).toBe("https://api.modal.com:443");
  });

  it("builds the client from its options alone: the SDK's MODAL_* profile variables apply none, and are put back", async () => {
    const { modalClient, PROFILE_VARIABLES } = await import("../../src/modal/client.js");
    const ambient = { MODAL_ENVIRONMENT: "elsewhere", MODAL_SANDBOX_V2: "0", MODAL_IMAGE_BUILDER_VERSION: "2023.12", MODAL_MAX_THROTTLE_WAIT: "5" };
    Object.assign(process.env, ambient);
    try {
      const client = modalClient({ ...token, serverUrl: "https://api.modal.com:443" }) as unknown as {
        profile: { environment?: string; sandboxV2: boolean; imageBuilderVersion?: string; maxThrottleWaitSecs?: number };
      };
      expect(client.profile).toMatchObject({ sandboxV2: true, environment: undefined, imageBuilderVersion: undefined, maxThrottleWaitSecs: 600 });
      const given = modalClient({ ...token, environment: "staging" }) as unknown as { profile: { environment?: string } };
      expect(given.profile.environment).toBe("staging");
      expect(Object.fromEntries(Object.keys(ambient).map((k) => [k, process.env[k]]))).toEqual(ambient);
      expect(PROFILE_VARIABLES).toEqual(expect.arrayContaining(Object.keys(ambient)));
    } finally {
      for (const key of Object.keys(ambient)) delete process.env[key];
    }
  });
});
