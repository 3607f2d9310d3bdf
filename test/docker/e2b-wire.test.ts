// E2B at the wire: the real `e2b` SDK against the loopback server of E2B's API and envd, each fault
// answered as E2B answers it (a create whose answer is lost, a process stream cut mid-output, a 429
// with and without Retry-After, a 5xx, a key refused, a template E2B does not have). What the SDK
// absorbs (its waits on a 429's Retry-After) is shown absorbed; what it passes on is a result with
// its code. Nothing is left in Docker after each.
import { describe, expect, it } from "vitest";
import type { ComputerSpec } from "../../src/contract/provider.js";
import { wires } from "../support/e2b-wire-helpers.js";

const wire = wires();
const spec = (extra: Partial<ComputerSpec> = {}): ComputerSpec => ({ image: "base", kind: "linux", lifetimeMs: 600_000, network: "none", ...extra });
const CREATE = "POST /v2/sandboxes";
const START = "POST /process.Process/Start";

describe("E2B at the wire", () => {
  it("a create runs through the SDK's own calls, REST and envd, and release leaves nothing", async () => {
    const { provider, server } = await wire();
    const made = await provider.create(spec());
    if (!made.ok) throw new Error(`${made.error.message}; calls ${server.methods().join(", ")}`);
    expect(server.methods()).toEqual(
      expect.arrayContaining([
        CREATE,
        "GET /sandboxes/{sandboxID}",
        "GET /v2/sandboxes",
        "POST /files",
        START,
        "POST /process.Process/SendInput",
        "POST /process.Process/SendSignal",
      ]),
    );
    expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
  }, 120_000);

  it("a create whose answer is lost after the sandbox was made fails unreachable, and the sandbox is found by its name and killed", async () => {
    const { provider, server, fake } = await wire();
    server.fail(CREATE, { lost: true });
    const made = await provider.create(spec());
    expect(made).toMatchObject({ ok: false, error: { code: "unreachable" } });
    if (made.ok) return;
    expect(made.error.message).toMatch(/was killed/);
    // The SDK never sends a create twice: one was made, and it is gone.
    expect(server.calls.filter((c) => c === CREATE)).toHaveLength(1);
    expect(await fake.containers()).toEqual([]);
  }, 120_000);

  it("the bridge's stream cut mid-output ends its calls with an error, and release still leaves nothing", async () => {
    const { provider, server } = await wire();
    const made = await provider.create(spec());
    if (!made.ok) throw new Error(made.error.message);
    // The next bridge's stdout is cut 4 KB in: past hello, inside the next big answer.
    server.fail(START, { cut: 4096 });
    const connection = await provider.connect(made.value);
    if (!connection.ok) throw new Error(connection.error.message);
    await expect(
      connection.value.client.call(
        "exec.run",
        { argv: ["sh", "-c", "head -c 60000 /dev/zero | base64 -w0"], timeoutMs: 10_000 },
        { signal: AbortSignal.timeout(20_000) },
      ),
    ).rejects.toThrow(/exec\.run got no reply/);
    await connection.value.close();
    expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
  }, 120_000);

  it("a 429 with Retry-After on create is waited out by the SDK: the create lands, one sandbox", async () => {
    const { provider, server, fake } = await wire();
    server.fail(CREATE, { status: 429, message: "Rate limit exceeded", retryAfterS: 1 });
    const started = Date.now();
    const made = await provider.create(spec());
    if (!made.ok) throw new Error(made.error.message);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(server.calls.filter((c) => c === CREATE)).toHaveLength(2);
    expect(await fake.containers()).toEqual([made.value.id]);
    expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
  }, 120_000);

  it("a 429 with no Retry-After is E2B's limit, and nothing is made", async () => {
    const { provider, server, fake } = await wire();
    server.fail(CREATE, { status: 429, message: "Rate limit exceeded" });
    const made = await provider.create(spec());
    expect(made).toMatchObject({ ok: false, error: { code: "limit" } });
    expect(server.calls.filter((c) => c === CREATE)).toHaveLength(1);
    expect(await fake.containers()).toEqual([]);
  }, 60_000);

  it("a 5xx on create fails the create, and the name is listed for a sandbox it may have left: nothing is", async () => {
    const { providerWith, server, fake } = await wire();
    server.fail(CREATE, { status: 500, message: "internal server error" });
    const made = await providerWith({ timeouts: { listedMs: 2000 } }).create(spec());
    expect(made).toMatchObject({ ok: false, error: { code: "failed" } });
    if (made.ok) return;
    expect(made.error.message).toMatch(/500: internal server error/);
    expect(made.error.message).toMatch(/was not listed within 2 s, so nothing was left/);
    expect(await fake.containers()).toEqual([]);
  }, 60_000);

  it("a key the server does not hold is refused 401: unauthorized, in words without the key, and nothing is made", async () => {
    const { providerWith, server, fake } = await wire();
    const wrong = "e2b_0000000000000000000000000000000000000000";
    const made = await providerWith({ apiKey: wrong }).create(spec());
    expect(made).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(JSON.stringify(made)).not.toContain(wrong);
    expect(server.methods()).toEqual([CREATE]);
    expect(await fake.containers()).toEqual([]);
  }, 60_000);

  it("a template E2B does not have is refused 400 by the SDK's SandboxError: invalid at once, nothing made and no listing waited on", async () => {
    const { provider, server, fake } = await wire();
    const made = await provider.create(spec({ image: "no-such-template" }));
    expect(made).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(server.methods()).toEqual([CREATE]);
    expect(await fake.containers()).toEqual([]);
  }, 60_000);
});
