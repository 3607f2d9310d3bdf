// The vendor-neutral create: the hooks in the one order, every part undone on a failure or an
// abort, nothing made for a refused spec, and an owner's whole leftover adopted.
import { describe, expect, it } from "vitest";
import { createWith, type CreateHooks, failedThen, namedImage } from "../../src/contract/create.js";
import type { CheckedSpec, ComputerRef, ComputerSpec, ReadBack } from "../../src/contract/provider.js";
import { fail, ok, type Result } from "../../src/daemon/result.js";
import { DECLARATION_LABEL, OWNER_LABEL, ownerLabels, withOwnerLabel } from "../../src/contract/labels.js";

const spec: ComputerSpec = { image: "img", lifetimeMs: 60_000, network: "none", labels: { run: "r1" } };

/** Hooks that log every step and can fail at one. */
function vendor(failAt?: "make" | "ready" | "connect" | "verify") {
  const log: string[] = [];
  const hooks: CreateHooks<CheckedSpec, string, { closed: boolean }> = {
    check: (s) => (s.image ? ok({ spec: s }) : fail("invalid", "image is required", { field: "image" })),
    prepare: async (checked) => (log.push("prepare"), ok(checked)),
    name: () => "computer-000000000001",
    make: async (c) => {
      log.push(`make ${c.name} ${JSON.stringify(c.labels)}`);
      c.undo.push({ what: "the volume", run: async () => void log.push("undo volume") });
      c.undo.push({ what: "the container", run: async () => void log.push("undo container") });
      return failAt === "make" ? fail("failed", "the engine refused") : ok("id-1");
    },
    ready: async (_c, made) => (log.push("ready"), failAt === "ready" ? fail("gone", "it ended") : ok(made)),
    connect: async () => (log.push("connect"), failAt === "connect" ? fail("timeout", "no hello") : ok({ closed: false })),
    verify: async (c, made) => {
      log.push("verify");
      return failAt === "verify" ? fail("refused", `${c.name} is not what was declared`) : ok({ id: made, name: c.name, provider: "test" });
    },
    close: async (open) => {
      open.closed = true;
      log.push("close");
    },
  };
  return { hooks, log };
}

describe("createWith", () => {
  it("runs the hooks in the one order and hands out the ref, its parts kept", async () => {
    const { hooks, log } = vendor();
    const made = await createWith(hooks, spec);
    expect(made).toEqual({ ok: true, value: { id: "id-1", name: "computer-000000000001", provider: "test" } });
    expect(log).toEqual(["prepare", 'make computer-000000000001 {"run":"r1"}', "ready", "connect", "verify", "close"]);
  });

  it("takes the image in the spec's object form, { image: { image } }, as the name it holds; another object is check's to refuse", async () => {
    const seen: unknown[] = [];
    const { hooks } = vendor();
    const check = hooks.check;
    hooks.check = (s) => (seen.push(s.image), check(s));
    expect((await createWith(hooks, { ...spec, image: { image: "img" } })).ok).toBe(true);
    const odd = { ...spec, image: { image: "img", tag: "x" } } as never;
    expect(namedImage(odd)).toBe(odd);
    expect(seen).toEqual(["img"]);
  });

  it("makes nothing for a refused spec: no hook past check runs", async () => {
    const { hooks, log } = vendor();
    const made = await createWith(hooks, { ...spec, image: "" });
    expect(made.ok ? undefined : made.error).toMatchObject({ code: "invalid", field: "image" });
    expect(log).toEqual([]);
  });

  for (const step of ["make", "ready", "connect", "verify"] as const) {
    it(`undoes every part in reverse when ${step} fails, with the failure's words`, async () => {
      const { hooks, log } = vendor(step);
      const made = await createWith(hooks, spec);
      expect(made.ok).toBe(false);
      expect(log.slice(-2)).toEqual(["undo container", "undo volume"]);
      if (step === "verify") expect(log).toContain("close");
    });
  }

  it("says the vendor's words for a failure once its parts are undone", async () => {
    const { hooks } = vendor("verify");
    hooks.failed = (error, at) => ({ ...error, message: `${error.message}; ${at.name} was deleted (${at.step}, ${at.failedUndos.length} undo failed)` });
    const made = await createWith(hooks, spec);
    expect(made.ok ? "" : made.error.message).toBe("computer-000000000001 is not what was declared; computer-000000000001 was deleted (verify, 0 undo failed)");
  });

  it("makes nothing when aborted before it makes, and undoes what it made when aborted after", async () => {
    const before = vendor();
    const controller = new AbortController();
    controller.abort();
    const early = await createWith(before.hooks, spec, { signal: controller.signal });
    expect(early.ok ? undefined : early.error.code).toBe("aborted");
    expect(before.log).toEqual([]);

    const after = vendor();
    const late = new AbortController();
    after.hooks.ready = async (_c, made) => (late.abort(), ok(made));
    const made = await createWith(after.hooks, spec, { signal: late.signal });
    expect(made.ok ? undefined : made.error.code).toBe("aborted");
    expect(after.log.slice(-2)).toEqual(["undo container", "undo volume"]);
    expect(after.log).not.toContain("connect");
  });

  it("puts the owner's labels in the make request and adopts a whole leftover without making", async () => {
    const { hooks, log } = vendor();
    const leftover: ComputerRef = {
      id: "old",
      name: "computer-0000000000aa",
      provider: "test",
      spec: { image: "img", user: "1000:1000", network: "none", deadline: new Date(Date.now() + 30_000).toISOString() },
    };
    const read: ReadBack = { ref: leftover, state: "running", labels: { run: "r1" }, drift: [] };
    hooks.adoption = {
      list: async () => ok([{ ref: leftover, state: "running" }]),
      read: async () => ok(read),
      remove: async () => ok(),
      defaults: undefined,
    };
    const adopted = await createWith(hooks, spec, { owner: "stack/urn" });
    expect(adopted).toEqual({ ok: true, value: leftover });
    expect(log).toEqual(["prepare"]);

    hooks.adoption.list = async () => ok([]);
    const made: Result<ComputerRef> = await createWith(hooks, spec, { owner: "stack/urn" });
    expect(made.ok).toBe(true);
    const labels = JSON.parse(
      log
        .find((l) => l.startsWith("make"))!
        .split(" ")
        .slice(2)
        .join(" "),
    ) as Record<string, string>;
    expect(labels.run).toBe("r1");
    expect(labels[OWNER_LABEL]).toBeDefined();
    expect(labels[DECLARATION_LABEL]).toBeDefined();
  });

  it("carries what prepare learned, in its own type, to make (Prepared beside Checked)", async () => {
    const { hooks } = vendor();
    const seen: string[] = [];
    const prepared: CreateHooks<CheckedSpec, string, { closed: boolean }, CheckedSpec & { host: string }> = {
      ...hooks,
      prepare: async (checked) => ok({ ...checked, host: "amd64" }),
      make: async (c) => (seen.push(c.checked.host), ok("id-1")),
    };
    const made = await createWith(prepared, spec);
    expect(made.ok).toBe(true);
    expect(seen).toEqual(["amd64"]);
  });

  it("clears the leftovers a claim names once adoption has chosen, the adopted one told", async () => {
    const { hooks } = vendor();
    const cleared: Array<string | undefined> = [];
    hooks.adoption = {
      list: async () => ok([]),
      read: async () => fail("not_found", "gone"),
      remove: async () => ok(),
      defaults: undefined,
      leftovers: async (_spec, owner, adopted) => (cleared.push(`${owner} ${adopted?.name}`), ok()),
    };
    expect((await createWith(hooks, spec, { owner: "stack/urn" })).ok).toBe(true);
    expect(cleared).toEqual(["stack/urn undefined"]);
    hooks.adoption.leftovers = async () => fail("failed", "the egress volume could not be removed");
    const refused = await createWith(hooks, spec, { owner: "stack/urn" });
    expect(refused.ok ? "" : refused.error.message).toBe("the egress volume could not be removed");
  });

  it("waits for the vendor's listing once the connection is closed, and undoes every part when it fails", async () => {
    const { hooks, log } = vendor();
    hooks.listed = async (_c, _made, ref) => (log.push("listed"), ok(ref));
    expect((await createWith(hooks, spec)).ok).toBe(true);
    expect(log.slice(-3)).toEqual(["verify", "close", "listed"]);

    const failing = vendor();
    failing.hooks.listed = async () => (failing.log.push("listed"), fail("timeout", "computer-000000000001 was not listed within 15 s"));
    failing.hooks.failed = failedThen((name) => `${name} was killed`);
    const made = await createWith(failing.hooks, spec);
    expect(made).toEqual({
      ok: false,
      error: { code: "timeout", message: "computer-000000000001 was not listed within 15 s; computer-000000000001 was killed" },
    });
    expect(failing.log.slice(-3)).toEqual(["listed", "undo container", "undo volume"]);
  });

  it("failedThen: a failure before anything was made keeps its words; after, each failed undo in the vendor's words, and aborted when the caller aborted", async () => {
    const before = vendor("make");
    before.hooks.make = async () => fail("invalid", "the template is unknown; nothing was made", { field: "image" });
    before.hooks.failed = failedThen((name) => `${name} was killed`);
    expect(await createWith(before.hooks, spec)).toEqual({
      ok: false,
      error: { code: "invalid", message: "the template is unknown; nothing was made", field: "image" },
    });

    const after = vendor("connect");
    const controller = new AbortController();
    after.hooks.make = async (c) => {
      c.undo.push({ what: "computer-000000000001", run: async () => fail("failed", "E2B answered 500"), words: (w) => `killing ${c.name} failed: ${w}` });
      return ok("id-1");
    };
    after.hooks.connect = async () => (controller.abort(), fail("failed", "the bridge did not start"));
    after.hooks.failed = failedThen((name) => `${name} was killed`);
    expect(await createWith(after.hooks, spec, { signal: controller.signal })).toEqual({
      ok: false,
      error: { code: "aborted", message: "the bridge did not start; killing computer-000000000001 failed: E2B answered 500" },
    });
  });
});

describe("withOwnerLabel", () => {
  it("adds nothing with no owner, the owner label alone for a part with no declaration, both owner labels for a computer's spec", () => {
    const spec = { labels: { a: "1" } };
    expect(withOwnerLabel(spec.labels, undefined, spec)).toEqual({ a: "1" });
    const proxy = withOwnerLabel(spec.labels, "stack/urn");
    expect(Object.keys(proxy).sort()).toEqual([OWNER_LABEL, "a"].sort());
    const computer = withOwnerLabel(spec.labels, "stack/urn", spec);
    expect(computer).toEqual({ a: "1", ...ownerLabels("stack/urn", spec) });
    expect(computer[OWNER_LABEL]).toBe(proxy[OWNER_LABEL]);
  });
});
