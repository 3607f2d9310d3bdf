// provider/resource.ts: a resource's steps see stored state as it was stored. A diff compares an
// object input with what was stored (a WarmPool's template), so a field must come back with its
// keys in the stored order, never re-parsed into the schema's; a field of another type is left out.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resource, type Context } from "../../provider/resource.js";
import type { Props } from "../../provider/secrets.js";

const GIVEN = z.strictObject({ size: z.number(), template: z.strictObject({ lifetimeMs: z.number(), image: z.string() }) });

/** A resource whose diff reports what it was handed as stored state. */
function recorder() {
  const seen: Props[] = [];
  const handler = resource("test:index:Recorder", {
    given: GIVEN,
    inputs: ["size", "template"],
    checked: GIVEN,
    stored: GIVEN,
    check: async (_ctx, _olds, news) => ({ inputs: news }),
    diff: async (_ctx, _id, { old }, news) => {
      seen.push(old);
      return { changes: JSON.stringify(old.template) !== JSON.stringify(news.template), replaces: [], deleteBeforeReplace: false };
    },
    create: async () => ({ id: "x" }),
    read: async (_ctx, id) => ({ id }),
    update: async () => ({}),
    delete: async () => {},
  });
  return { handler, seen };
}

describe("a resource's stored state", () => {
  it("keeps an object's keys in the order they were stored, so the same template is no change", async () => {
    const { handler, seen } = recorder();
    // The schema names lifetimeMs first; state stored image first.
    const template = { image: "debian", lifetimeMs: 60_000 };
    const diff = await handler.diff({} as Context, "x", { size: 1, template }, { size: 1, template: { ...template } });
    expect(Object.keys(seen[0]!.template as object)).toEqual(["image", "lifetimeMs"]);
    expect(diff.changes).toBe(false);
  });

  it("leaves out a field of another type, and keeps the rest", async () => {
    const { handler, seen } = recorder();
    await handler.diff({} as Context, "x", { size: "one", template: { image: "debian", lifetimeMs: 1 } }, { size: 1, template: {} });
    expect(seen[0]).toEqual({ template: { image: "debian", lifetimeMs: 1 } });
  });
});
