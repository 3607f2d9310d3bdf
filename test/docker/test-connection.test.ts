// TestConnection(providerId, { keys, signal }), the serve side's signature, at each vendor's fake
// (Docker: the real engine): keys by their serve-side names answer { detail }, a wrong key answers
// unauthorized, and no answer carries a key. Each fake counts what it was asked: a test makes nothing.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestConnection } from "../../src/registry/connection.js";
import { useBrowserbaseFake, useKernelFake } from "../support/browser-helpers.js";
import { useDaytonaFake } from "../support/daytona-helpers.js";
import { startFakePhoneHarness, type FakePhoneHarness } from "../support/fake-phone-harness.js";
import { tokenKubeconfigAt } from "../support/kubeconfig.js";
import { ModalWireServer, newToken } from "../support/modal-wire/server.js";
import { tlsStandIn, type TlsStandIn } from "../support/tls-stand-in.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const dir = mkdtempSync(path.join(tmpdir(), "agentrun-test-connection-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const wrong = (what: string) => `${what}_wrong_${randomBytes(8).toString("hex")}`;

/** The answer for the right keys, and for the same with one key wrong: unauthorized, in words with no key. */
async function story(id: string, keys: Record<string, string>, wrongKey: string, settings: Record<string, unknown> = {}) {
  const right = await TestConnection(id, { keys, settings });
  const bad = { ...keys, [wrongKey]: wrong(id) };
  const refused = await TestConnection(id, { keys: bad, settings });
  expect(refused).toMatchObject({ ok: false, error: { code: "unauthorized" } });
  for (const value of [...Object.values(keys), bad[wrongKey]!]) expect(JSON.stringify([right, refused])).not.toContain(value);
  expect(right.ok, JSON.stringify(right)).toBe(true);
  return right.ok ? right.value.detail : "";
}

describe("TestConnection at each vendor", () => {
  it("docker: one docker ps on the real engine, no keys", async () => {
    const answer = await TestConnection("docker", {});
    expect(answer.ok ? answer.value.detail : answer.error.message).toMatch(/Docker/);
  });

  describe("modal", () => {
    const token = newToken();
    let server: ModalWireServer;
    beforeAll(async () => void (server = await new ModalWireServer({ run: `test-${randomBytes(6).toString("hex")}`, token }).start()), 60_000);
    afterAll(async () => {
      await server?.stop();
      await server?.fake.remove();
    }, 60_000);

    it("reads the app without making it", async () => {
      const keys = { MODAL_TOKEN_ID: token.tokenId, MODAL_TOKEN_SECRET: token.tokenSecret };
      const detail = await story("modal", keys, "MODAL_TOKEN_SECRET", { app: "agentrun-test-connection", serverUrl: server.serverUrl });
      expect(detail).toMatch(/^Modal answers; the app agentrun-test-connection is (there|not made yet)/);
    });
  });

  describe("daytona", () => {
    const key = `dtn_${randomBytes(12).toString("hex")}`;
    const held = useDaytonaFake(key);
    it("reads one listing page", async () => {
      const detail = await story("daytona", { DAYTONA_API_KEY: key, DAYTONA_API_URL: held.fake.apiUrl }, "DAYTONA_API_KEY");
      expect(detail).toMatch(/^Daytona answers; 0 computers of this provider/);
    });
  });

  describe("e2b", () => {
    const key = `e2b_${randomBytes(12).toString("hex")}`;
    beforeAll(() => {
      process.env.AGENTRUN_E2B_FAKE_RUN = `test-${randomBytes(6).toString("hex")}`;
      process.env.AGENTRUN_E2B_FAKE_KEY = key;
    });
    afterAll(() => {
      delete process.env.AGENTRUN_E2B_FAKE_RUN;
      delete process.env.AGENTRUN_E2B_FAKE_KEY;
    });
    it("reads one listing page", async () => {
      const detail = await story("e2b", { E2B_API_KEY: key }, "E2B_API_KEY", { testSdk: `${ROOT}dist/test/support/fake-e2b-docker.js` });
      expect(detail).toBe("E2B answers; 0 computers of this provider");
    });
  });

  describe("browserbase", () => {
    const key = `bb_live_${randomBytes(12).toString("hex")}`;
    const project = `proj_${randomBytes(6).toString("hex")}`;
    const held = useBrowserbaseFake(key, project);
    it("lists the running sessions", async () => {
      const keys = { BROWSERBASE_API_KEY: key, BROWSERBASE_PROJECT_ID: project };
      const detail = await story("browserbase", keys, "BROWSERBASE_API_KEY", { apiUrl: held.fake.apiUrl });
      expect(detail).toBe("Browserbase answers; 0 browsers of this provider running");
    });
  });

  describe("kernel", () => {
    const key = `kernel_${randomBytes(12).toString("hex")}`;
    const held = useKernelFake(key);
    it("lists the browsers", async () => {
      const detail = await story("kernel", { KERNEL_API_KEY: key }, "KERNEL_API_KEY", { apiUrl: held.fake.apiUrl });
      expect(detail).toBe("Kernel answers; 0 browsers of this provider running");
    });
  });

  describe("phone-harness", () => {
    let fake: FakePhoneHarness;
    beforeAll(async () => void (fake = await startFakePhoneHarness()));
    afterAll(async () => fake?.close());
    it("lists the sessions joined to the ledger, renting nothing", async () => {
      const settings = { baseUrl: fake.url, ledger: path.join(dir, "ledger.json") };
      const detail = await story("phone-harness", { PHONE_HARNESS_API_KEY: fake.key }, "PHONE_HARNESS_API_KEY", settings);
      expect(detail).toBe("the phone harness answers; 0 phones of this provider");
      expect(fake.requests.every((r) => r === "GET /sessions")).toBe(true);
    });
  });

  describe("kubernetes", () => {
    // An API server's stand-in: the kubeconfig's token is the one credential it takes.
    let server: TlsStandIn;
    const asked: string[] = [];
    beforeAll(async () => {
      server = await tlsStandIn((req, res) => {
        asked.push(`${req.method} ${req.url}`);
        res.setHeader("content-type", "application/json");
        if (req.headers.authorization !== "Bearer t") return void res.writeHead(401).end('{"kind":"Status","code":401}');
        if (req.method === "GET") return void res.writeHead(200).end('{"kind":"Namespace","metadata":{"name":"agentrun"}}');
        res.writeHead(201).end('{"kind":"SelfSubjectAccessReview","status":{"allowed":true}}');
      });
    });
    afterAll(async () => server?.close());
    it("asks the API server what the credentials may do", async () => {
      const kubeconfig = (token: string) =>
        tokenKubeconfigAt(server.url)
          .replace(Buffer.from("CA").toString("base64"), Buffer.from(server.ca).toString("base64"))
          .replace("token: t", `token: ${token}`);
      const right = await TestConnection("kubernetes", { keys: { KUBECONFIG: kubeconfig("t"), KUBERNETES_NAMESPACE: "agentrun" } });
      expect(right).toEqual({ ok: true, value: { detail: `the API server at ${server.url} answers; the credentials may make Pods in agentrun` } });
      const refused = await TestConnection("kubernetes", { keys: { KUBECONFIG: kubeconfig("wrong-token-value") } });
      expect(refused).toMatchObject({ ok: false, error: { code: "unauthorized" } });
      expect(JSON.stringify(refused)).not.toContain("wrong-token-value");
      expect(asked.every((a) => !a.startsWith("POST /api/v1/namespaces/agentrun/pods"))).toBe(true);
    });
  });
});
