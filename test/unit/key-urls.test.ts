// Where a vendor's key may go: one rule (src/contract/base-url.ts), held by every vendor that sends
// a key to each option naming where it goes, as the provider is built. The table is the registry's:
// a vendor whose settings mark a secret must name where its key goes (its module's KEY_URLS), and a
// plain-http URL to another host in each is refused in words naming the option, with no request made.
import net from "node:net";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { keyUrl, keyUrlProblem } from "../../src/contract/base-url.js";
import { OptionError } from "../../src/daemon/result.js";
import { secretSettings } from "../../src/registry/settings.js";
import { PROVIDER_IDS, providerFor, providerModule } from "../../src/providers.js";
import { tokenKubeconfigAt } from "../support/kubeconfig.js";

// Addresses alone, which every vendor takes (Modal dials gRPC, which has no path).
const PLAIN = "http://keys.example.com:8080";
const TLS = "https://keys.example.com:8443";

/** The settings a vendor's schema marks secret: what it sends, so where it goes must be held. */
const secretsOf = (id: string) => secretSettings().flatMap((s) => (s.startsWith(`${id}.`) ? [s.slice(id.length + 1)] : []));

/** Options with every secret given and option pointed at url; an option that is the key and its server at once is a kubeconfig. */
function optionsAt(id: string, option: string, url: string): Record<string, unknown> {
  const secrets = secretsOf(id);
  const given = Object.fromEntries(secrets.map((s) => [s, "test-key"]));
  return { ...given, [option]: secrets.includes(option) ? tokenKubeconfigAt(url) : url };
}

const ROWS = await Promise.all(PROVIDER_IDS.map(async (id) => ({ id, secrets: secretsOf(id), keyUrls: (await providerModule(id)).KEY_URLS })));
const CASES = ROWS.flatMap(({ id, keyUrls }) => keyUrls.map((option) => ({ id, option })));

describe("where a vendor's key may go: every vendor of the registry", () => {
  it.each(ROWS)("$id names where its key goes when it has one to send", ({ secrets, keyUrls }) => {
    expect(keyUrls.length > 0).toBe(secrets.length > 0);
  });

  it("covers a vendor with a key at all (the table is not empty)", () => {
    expect(CASES.length).toBeGreaterThan(0);
  });
});

describe("a plain-http URL to another host, refused before any request", () => {
  let fetches: unknown[];
  let connects: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    fetches = [];
    vi.stubGlobal("fetch", (...args: unknown[]) => (fetches.push(args), Promise.reject(new Error("no request may be made"))));
    connects = vi.spyOn(net.Socket.prototype, "connect");
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it.each(CASES)("$id's $option", async ({ id, option }) => {
    const built = await providerFor(id, optionsAt(id, option, PLAIN));
    await new Promise((resolve) => setImmediate(resolve));
    expect(built.ok).toBe(false);
    if (built.ok) return;
    expect(built.error.code).toBe("invalid");
    expect(built.error.detail).toMatchObject({ kind: "option", provider: id, option });
    expect(built.error.message).toContain(`${option} `);
    expect(built.error.message).toMatch(/https|TLS/);
    expect(built.error.message).not.toContain("test-key");
    expect(fetches).toEqual([]);
    expect(connects).not.toHaveBeenCalled();
  });

  it.each(CASES)("$id's $option over https is not refused for where it goes", async ({ id, option }) => {
    const built = await providerFor(id, optionsAt(id, option, TLS));
    await new Promise((resolve) => setImmediate(resolve));
    // Another option may still be missing (Modal's app); the URL is not what is refused.
    if (!built.ok) expect(built.error.detail?.kind === "option" && built.error.detail.option === option).toBe(false);
    expect(fetches).toEqual([]);
    expect(connects).not.toHaveBeenCalled();
  });
});

describe("the one rule", () => {
  it.each([
    ["https with a path and no port", "https://api.example.com/v1"],
    ["https with a port", "https://api.example.com:8443"],
    ["http to localhost", "http://localhost:8080/api"],
    ["http to 127.0.0.0/8, with no port", "http://127.3.2.1"],
    ["http to [::1]", "http://[::1]:9000"],
  ])("takes %s", (_what, url) => {
    expect(keyUrlProblem(url)).toBeUndefined();
  });

  it.each([
    ["plain http to another host", "http://api.example.com", /neither https nor http to this machine's loopback/],
    ["plain http to a private address", "http://10.0.0.1:8080", /neither https nor http/],
    ["plain http to a name that only starts like the loopback", "http://127.0.0.1.example.com", /neither https nor http/],
    ["plain http to localhost with a trailing dot", "http://localhost./", /neither https nor http/],
    ["a user and password", "https://user:pw@api.example.com", /holds a user or password/],
    ["a user alone", "http://user@127.0.0.1:8080", /holds a user or password/],
    ["a query", "https://api.example.com/?key=1", /holds a query or a fragment/],
    ["a fragment", "https://api.example.com/#x", /holds a query or a fragment/],
    ["another scheme", "ftp://api.example.com", /neither https nor http/],
    ["not a URL", "api.example.com", /is not a URL/],
    ["not a string", 443, /is not a string/],
  ])("refuses %s", (_what, url, words) => {
    expect(keyUrlProblem(url)).toMatch(words);
  });

  it("refuses a path for an address alone, and plaintext where the client speaks TLS alone", () => {
    expect(keyUrlProblem("https://api.example.com:443/", { path: false })).toBeUndefined();
    expect(keyUrlProblem("https://api.example.com/v1", { path: false })).toMatch(/holds a path/);
    expect(keyUrlProblem("http://127.0.0.1:6443", { loopback: false })).toMatch(/is not https/);
  });

  it("names the option in an OptionError, and gives the URL back with no trailing slash", () => {
    expect(keyUrl("https://api.example.com/v1/", "apiUrl", "X's apiUrl")).toBe("https://api.example.com/v1");
    let error: unknown;
    try {
      keyUrl("http://api.example.com", "apiUrl", "X's apiUrl");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OptionError);
    expect(error).toMatchObject({ option: "apiUrl", message: expect.stringMatching(/^X's apiUrl is neither https/) });
  });
});
