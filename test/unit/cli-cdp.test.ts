// agentrun cdp on a terminal: a CDP URL is a secret, so with stdout a terminal it is refused
// (exit 2, in words that say how) unless --reveal says so; no provider is built before that.
import { afterEach, describe, expect, it, vi } from "vitest";
import { run } from "../../src/cli/program.js";

const context = { signal: new AbortController().signal, onInterrupt: () => () => {} };
const tty = Object.getOwnPropertyDescriptor(process.stdout, "isTTY");

afterEach(() => {
  if (tty) Object.defineProperty(process.stdout, "isTTY", tty);
  else delete (process.stdout as { isTTY?: boolean }).isTTY;
  vi.restoreAllMocks();
});

describe("agentrun cdp", () => {
  it("refuses to print the URL on a terminal without --reveal, naming the way to get it", async () => {
    Object.defineProperty(process.stdout, "isTTY", { value: true, configurable: true });
    const said: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => (said.push(String(chunk)), true));
    const code = await run(["cdp", "computer-0123456789ab", "--provider", "browserbase"], context);
    expect(code).toBe(2);
    expect(said.join("")).toContain("a CDP URL is a secret, so it is not printed on a terminal: pipe it to the program that dials it, or add --reveal");
  });

  it("with --reveal on a terminal goes on to the provider (here refused for its missing key, in words)", async () => {
    Object.defineProperty(process.stdout, "isTTY", { value: true, configurable: true });
    const said: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => (said.push(String(chunk)), true));
    const code = await run(["cdp", "computer-0123456789ab", "--provider", "browserbase", "--reveal"], context);
    expect(code).toBe(2);
    expect(said.join("")).toMatch(/the browserbase provider could not be made from its settings: .*apiKey is required/);
  });
});
