// Steps at once in one computer share one session (withSession): one lookup, one connection and
// one read of the home between them, closed by the last to leave; a later step opens again; a
// failed opening and a broken connection are joined by no later step; a step's own abort ends
// its wait alone, and a joiner whose opener was cancelled opens again. Against a provider that
// counts its connections.
import { describe, expect, test } from "vitest";
import type { ComputerClient } from "../../src/daemon/client.js";
import { withSession, type Session } from "../../src/inside/session.js";
import type { ComputerProvider } from "../../src/contract/provider.js";
import { fail, ok, type Result } from "../../src/daemon/result.js";

/** A provider of running computers whose connect waits for release() (when held) and honours its signal. */
function counting(fails: string[] = []) {
  const made = { lists: 0, connects: 0, closes: 0, homes: 0 };
  let held: Promise<void> = Promise.resolve();
  let release = () => {};
  const provider = {
    id: "counting",
    list: async () => {
      made.lists += 1;
      return ok(["c1", "c2"].map((name) => ({ ref: { id: name, name, provider: "counting" }, labels: {}, state: "running", network: "none" })));
    },
    connect: async (_ref: unknown, options: { signal?: AbortSignal } = {}) => {
      made.connects += 1;
      const wait = held;
      await new Promise<void>((resolve) => {
        void wait.then(resolve);
        options.signal?.addEventListener("abort", () => resolve(), { once: true });
      });
      if (options.signal?.aborted) return fail("aborted", "connecting was aborted");
      const why = fails.shift();
      if (why) return fail("unreachable", why);
      const client = {
        call: async () => {
          made.homes += 1;
          return { stdout: Buffer.from("/home/u").toString("base64"), stderr: "", exitCode: 0, signal: null, timedOut: false, truncated: false };
        },
      } as unknown as ComputerClient;
      return ok({ client, hello: {}, close: async () => void (made.closes += 1) });
    },
  } as unknown as ComputerProvider;
  const hold = () => (held = new Promise<void>((r) => (release = r)));
  return { provider, made, hold, release: () => release() };
}

const tick = () => new Promise((r) => setTimeout(r, 5));
const clientOf = (p: ComputerProvider, name: string, options: { signal?: AbortSignal } = {}, work?: (s: Session) => Promise<Result<unknown>>) =>
  withSession(p, name, options, work ?? (async (s) => (await tick(), ok(s.client))));

describe("sessions shared by the steps at once in a computer", () => {
  test("ten steps at once in one computer share one connection, closed once by the last", async () => {
    const { provider, made } = counting();
    const got = await Promise.all(Array.from({ length: 10 }, () => clientOf(provider, "c1")));
    expect(got.every((g) => g.ok)).toBe(true);
    expect(new Set(got.map((g) => g.ok && g.value)).size).toBe(1);
    expect(made).toEqual({ lists: 1, connects: 1, closes: 1, homes: 1 });
  });

  test("a step after the last has left opens a new one", async () => {
    const { provider, made } = counting();
    await clientOf(provider, "c1");
    await clientOf(provider, "c1");
    expect(made).toMatchObject({ connects: 2, closes: 2 });
  });

  test("steps in two computers each have their own", async () => {
    const { provider, made } = counting();
    const [a, b] = await Promise.all([clientOf(provider, "c1"), clientOf(provider, "c2")]);
    expect(a.ok && b.ok && a.value !== b.value).toBe(true);
    expect(made).toMatchObject({ connects: 2, closes: 2 });
  });

  test("a failed opening is every waiter's, and no later step's", async () => {
    const { provider, made } = counting(["the daemon in c1 did not answer hello"]);
    const first = await Promise.all([clientOf(provider, "c1"), clientOf(provider, "c1")]);
    expect(first.map((r) => !r.ok && r.error.message)).toEqual(["the daemon in c1 did not answer hello", "the daemon in c1 did not answer hello"]);
    expect((await clientOf(provider, "c1")).ok).toBe(true);
    expect(made).toMatchObject({ connects: 2, closes: 1 });
  });

  test("a session whose connection broke is joined by no later step", async () => {
    const { provider, made } = counting();
    let leave = () => {};
    const staying = clientOf(provider, "c1", {}, async () => (await new Promise<void>((r) => (leave = r)), ok(undefined)));
    await tick();
    expect(await clientOf(provider, "c1", {}, async () => fail("closed", "the connection to the daemon ended"))).toMatchObject({ ok: false });
    await clientOf(provider, "c1");
    leave();
    await staying;
    expect(made).toMatchObject({ connects: 2, closes: 2 });
  });

  test("a step's own abort ends its wait, not the opening the others share", async () => {
    const { provider, made, hold, release } = counting();
    hold();
    const cancel = new AbortController();
    const opener = clientOf(provider, "c1");
    const joiner = clientOf(provider, "c1", { signal: cancel.signal });
    cancel.abort();
    expect(await joiner).toEqual({ ok: false, error: { code: "aborted", message: "connecting to c1 was aborted" } });
    release();
    expect((await opener).ok).toBe(true);
    expect(made).toMatchObject({ connects: 1, closes: 1 });
  });

  test("a joiner whose opener was cancelled opens again", async () => {
    const { provider, made, hold, release } = counting();
    hold();
    const cancel = new AbortController();
    const opener = clientOf(provider, "c1", { signal: cancel.signal });
    const joiner = clientOf(provider, "c1");
    await tick();
    cancel.abort();
    expect(await opener).toMatchObject({ ok: false, error: { code: "aborted" } });
    release();
    expect((await joiner).ok).toBe(true);
    expect(made).toMatchObject({ connects: 2, closes: 1 });
  });
});
