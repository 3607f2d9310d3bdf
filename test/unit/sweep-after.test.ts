// The sweep's --after (src/kits/conformance/sweep.ts sweepAfter) against a provider of ids in memory:
// a released sandbox is read back until it is gone; one whose release was refused (not a computer)
// or failed is read back once and reported still there, not waited on for the sweep's 60 s.
import { expect, it } from "vitest";
import { sweepAfter, type Sweepable } from "../../src/kits/conformance/sweep.js";
import { fail, ok } from "../../src/daemon/result.js";

function provider(ids: string[], computers: Set<string>) {
  const there = new Set(ids);
  const readBacks = new Map<string, number>();
  const sweepable: Sweepable = {
    id: "memory",
    labelled: async () => ok([...there]),
    release: async (ref) => {
      if (!computers.has(ref.id)) return fail("not_found", `${ref.id} is not a computer, so it was not released`);
      there.delete(ref.id);
      return ok(undefined);
    },
    gone: async (id) => {
      readBacks.set(id, (readBacks.get(id) ?? 0) + 1);
      return ok(!there.has(id));
    },
  };
  return { sweepable, readBacks };
}

it("reports a sandbox whose release was refused as still there after one read-back, and the released one gone", async () => {
  const { sweepable, readBacks } = provider(["older", "computer", "other"], new Set(["older", "computer"]));
  const swept = await sweepAfter(sweepable, ["older"]);
  expect(swept).toEqual({ ok: true, report: { swept: 2, gone: 1, stillThere: ["other"] } });
  expect(readBacks.get("other")).toBe(1);
  expect(readBacks.has("older")).toBe(false);
});
