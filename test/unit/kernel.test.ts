// The Kernel provider on a host transport (KernelRequest) held in memory: the calls it sends (one
// POST a create, list by status=all and the first label as a tag, DELETE then a read back), the
// deleted left out, a failure that names the call and the status with the host's error hidden.
// The same provider against the fake Kernel with real Chromium: test/docker/kernel-fake.test.ts.
import { describe, expect, it } from "vitest";
import { causeOf, create } from "../../src/kernel/index.js";
import type { KernelBrowser, KernelRequestInit } from "../../src/kernel/sdk.js";
import { orThrow } from "../../src/daemon/result.js";

class HostError extends Error {
  constructor(readonly status: number) {
    super(`Kernel said no (${status}) with its own words`);
  }
}

function memoryKernel() {
  const browsers = new Map<string, KernelBrowser>();
  const sent: string[] = [];
  let n = 0;
  const request = async ({ method, path, query, body }: KernelRequestInit): Promise<unknown> => {
    sent.push(`${method} ${path}${query ? `?${new URLSearchParams(query)}` : ""}`);
    const id = path.split("/")[2];
    if (method === "POST") {
      const b = body as { timeout_seconds: number; tags: Record<string, string> };
      const made: KernelBrowser = {
        session_id: `k${++n}`,
        cdp_ws_url: `wss://cdp.example.test/k${n}?jwt=eyJsecret`,
        created_at: "",
        timeout_seconds: b.timeout_seconds,
        headless: true,
        stealth: false,
        tags: b.tags,
      };
      browsers.set(made.session_id, made);
      return made;
    }
    if (method === "GET" && id) {
      const b = browsers.get(id);
      if (!b || b.deleted_at) throw new HostError(404);
      return b;
    }
    if (method === "GET") {
      const tag = Object.entries(query ?? {}).find(([k]) => k.startsWith("tags["));
      return [...browsers.values()].filter((b) => !tag || b.tags?.[tag[0].slice(5, -1)] === tag[1]);
    }
    if (method === "DELETE") {
      const b = browsers.get(id!);
      if (!b) throw new HostError(404);
      b.deleted_at = "now";
      return undefined;
    }
    throw new HostError(405);
  };
  return { browsers, sent, provider: create({ request, pollMs: 1 }) };
}

const spec = { image: "chromium", lifetimeMs: 3_600_000, network: "open" as const, labels: { team: "agents" } };

describe("Kernel on a host's KernelRequest", () => {
  it("creates with one POST: timeout_seconds, and the labels as tags", async () => {
    const k = memoryKernel();
    const ref = orThrow(await k.provider.create(spec));
    expect(k.sent.filter((s) => s.startsWith("POST"))).toEqual(["POST /browsers"]);
    expect(k.browsers.get(ref.id)).toMatchObject({
      timeout_seconds: 3600,
      tags: { team: "agents", "agentrun.computer": "1", "agentrun.computer.name": ref.name },
    });
  });

  it("lists by status=all and the first label, with the deleted dropped and no deadline", async () => {
    const k = memoryKernel();
    const a = orThrow(await k.provider.create(spec));
    const b = orThrow(await k.provider.create(spec));
    orThrow(await k.provider.release(b, "delete"));
    k.sent.length = 0;
    const listed = orThrow(await k.provider.list({ team: "agents" }));
    expect(listed.map((c) => [c.ref.id, c.deadline])).toEqual([[a.id, undefined]]);
    expect(k.sent[0]).toBe("GET /browsers?status=all&tags%5Bteam%5D=agents&offset=0&limit=100");
  });

  it("releases by DELETE, then reads it back gone; an unknown one is released", async () => {
    const k = memoryKernel();
    const ref = orThrow(await k.provider.create(spec));
    k.sent.length = 0;
    orThrow(await k.provider.release(ref, "delete"));
    expect(k.sent).toEqual([`DELETE /browsers/${ref.id}`, `GET /browsers/${ref.id}`]);
    expect(await k.provider.release({ ...ref, id: "never" }, "delete")).toEqual({ ok: true, value: undefined });
  });

  it("names the call and the status; the host's error rides hidden, in no JSON", async () => {
    const provider = create({
      request: async () => {
        throw new HostError(403);
      },
    });
    const tested = await provider.testConnection();
    expect(tested.ok ? "" : tested.error).toMatchObject({
      code: "unauthorized",
      message: "GET /browsers?status=active: Kernel answered HTTP 403 (unauthorized: check the API key)",
    });
    expect(causeOf(tested)).toBeInstanceOf(HostError);
    expect(JSON.stringify(tested)).not.toContain("its own words");
  });

  it("keeps the CDP URL out of every ref and list", async () => {
    const k = memoryKernel();
    const ref = orThrow(await k.provider.create(spec));
    expect(orThrow(await k.provider.connect(ref)).cdp!.url).toMatch(/^wss:\/\/cdp\.example\.test\//);
    expect(JSON.stringify([ref, orThrow(await k.provider.list({ team: "agents" }))])).not.toContain("eyJsecret");
  });
});
