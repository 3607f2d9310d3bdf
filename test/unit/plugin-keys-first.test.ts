// The plugin asks a vendor that takes keys its one account-level read before its first use, once
// a process: a refused key is the vendor's refusal, naming the setting and the answer's class, never
// the key; an unreachable vendor names where it is sent; Docker, which takes none, is asked nothing.
// Daytona's API stands in on the loopback (its listing is the read), counting what it was asked.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { vendors } from "../../provider/vendors.js";
import { connectionRefused } from "../../provider/words.js";

const KEY = "dtn_right_0123456789abcdef";
let server: Server;
let apiUrl: string;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url?.split("?")[0]} ${req.headers.authorization === `Bearer ${KEY}` ? "right" : "wrong"}`);
    res.setHeader("content-type", "application/json");
    if (req.headers.authorization !== `Bearer ${KEY}`) return void res.writeHead(401).end('{"message":"unauthorized"}');
    res.writeHead(200).end(JSON.stringify({ items: [], total: 0, page: 1, totalPages: 1 }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the plugin tests a vendor's keys before its first use", () => {
  test("a refused key: the vendor is refused naming the setting and the class, once a process, the key in no word", async () => {
    asked.length = 0;
    const planted = "dtn_planted_fedcba9876543210";
    const open = vendors({ daytona: { apiKey: planted, apiUrl } });
    const first = await open("daytona");
    const second = await open("daytona");
    expect(first).toEqual(second);
    expect(first.ok).toBe(false);
    if (first.ok) return;
    expect(first.error.code).toBe("unauthorized");
    expect(first.error.message).toMatch(/^daytona did not pass its connection test \(unauthorized\), so nothing was made or read: /);
    expect(first.error.message).toContain("Check its key, agentrun:daytona.apiKey (`pulumi config set --secret --path agentrun:daytona.apiKey <apiKey>`)");
    expect(JSON.stringify(first)).not.toContain(planted);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^GET \/api\/sandbox.* wrong$/);
    await open.close();
  });

  test("the right key: the provider, after one read", async () => {
    asked.length = 0;
    const open = vendors({ daytona: { apiKey: KEY, apiUrl } });
    const made = await open("daytona");
    expect(made.ok).toBe(true);
    expect(asked.map((a) => a.split(" ").at(-1))).toEqual(["right"]);
    await open.close();
  });

  test("with the test seam's checkKeys off, the provider is made and nothing is asked", async () => {
    asked.length = 0;
    const open = vendors({ daytona: { apiKey: "dtn_stand_in_0123456789", apiUrl } }, { checkKeys: false });
    expect((await open("daytona")).ok).toBe(true);
    expect(asked).toEqual([]);
    await open.close();
  });

  test("Docker takes no key and is asked nothing before its first call", async () => {
    const open = vendors({ docker: { engine: "unix:///nonexistent/docker.sock" } });
    const made = await open("docker");
    expect(made.ok).toBe(true);
    await open.close();
  });
});

describe("the words of a failed connection test", () => {
  const look = { keys: ["tokenId", "tokenSecret"], urls: ["serverUrl"] };
  test("unreachable: where the key is sent, and the network", () => {
    const said = connectionRefused("modal", { code: "unreachable", message: "modal did not answer within 30 s." }, look);
    expect(said.code).toBe("unreachable");
    expect(said.message).toBe(
      "modal did not pass its connection test (unreachable), so nothing was made or read: modal did not answer within 30 s. Check where it is sent, agentrun:modal.serverUrl (unset: the vendor's own address), and this machine's network",
    );
  });
  test("another class: its keys and where they are sent", () => {
    const said = connectionRefused("modal", { code: "limit", message: "RESOURCE_EXHAUSTED" }, look);
    expect(said.message).toContain("(limit)");
    expect(said.message).toContain(
      "Check its keys, agentrun:modal.tokenId, agentrun:modal.tokenSecret (`pulumi config set --secret --path agentrun:modal.tokenId <tokenId>`); check where it is sent, agentrun:modal.serverUrl",
    );
  });
});
