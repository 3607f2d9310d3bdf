import { describe, expect, it } from "vitest";
import { redactWords, withoutValues } from "../../src/daemon/redact.js";

describe("redactWords", () => {
  it.each([
    ["the vendor at https://api.example.com/v1/sandboxes?token=abc refused", "the vendor at <url> refused"],
    ["dial wss://user:pw@connect.browserbase.com/session failed", "dial <url> failed"],
    ["sent Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "sent Authorization: <redacted>"],
    ["header Bearer abcdef123456789 refused", "header Bearer <redacted> refused"],
    ["config api_key=sk-live-0123456789abcdef end", "config api_key=<redacted> end"],
    ['{"apiKey": "k-123"} in body', '{"apiKey": <redacted>} in body'],
    ["password: hunter2, then", "password: <redacted>, then"],
    ["key sk-ant-api03-abcdefghijklmnop leaked", "key <redacted> leaked"],
    ["e2b_0123456789abcdef0123 is the key", "<redacted> is the key"],
    ["aws AKIAIOSFODNN7EXAMPLE here", "aws <redacted> here"],
    ["token 0f3a9c1e2b4d6f8a0c2e4a6b8d0f1e3c5a7b9d1f", "token <redacted>"],
    ["connect to 10.0.0.5:2280 refused", "connect to <address> refused"],
    ["host 93.184.215.14 answered", "host <address> answered"],
    ["[2606:4700:4700::1111]:443 answered", "<address> answered"],
    ["dial tcp proxy.internal.example:3128: refused", "dial tcp <endpoint>: refused"],
    ["login admin:s3cret@db.example.org failed", "login <login> failed"],
  ])("%j", (words, redacted) => {
    expect(redactWords(words)).toBe(redacted);
  });

  it("leaves plain words as they are", () => {
    const words = "the sandbox did not finish within 120000 ms; it last read running (exit code 0)";
    expect(redactWords(words)).toBe(words);
  });
});

describe("withoutValues", () => {
  it("replaces each value wherever it stands, and leaves the words alone for an empty one", () => {
    expect(withoutValues("key k-1 then k-1, and k-22", ["k-1", "k-22"], "<secret>")).toBe("key <secret> then <secret>, and <secret>");
    expect(withoutValues("plain words", ["", "absent"], "[key]")).toBe("plain words");
  });
});
