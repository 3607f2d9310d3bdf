// provider/server.ts: a diff's changed fields reach the engine as its diffs and detailed diff,
// which is what `pulumi preview` prints; a diff that names none leaves the engine to diff the inputs.
import { describe, expect, it } from "vitest";
import { diffResponse } from "../../provider/server.js";

type Response = {
  getChanges(): number;
  getReplacesList(): string[];
  getDiffsList(): string[];
  getHasdetaileddiff(): boolean;
};

describe("the diff response the engine gets", () => {
  it("names each changed field with its kind", () => {
    const resp = diffResponse({
      changes: true,
      replaces: ["state", "memoryMb"],
      detailedDiff: { state: "update-replace", labels: "add" },
    }) as unknown as Response;
    expect(resp.getChanges()).toBe(2); // DIFF_SOME
    expect(resp.getReplacesList()).toEqual(["state", "memoryMb"]);
    expect(resp.getDiffsList()).toEqual(["state", "labels"]);
    expect(resp.getHasdetaileddiff()).toBe(true);
    // As the engine decodes it: PropertyDiff.Kind UPDATE_REPLACE 5, ADD 0.
    const wire = (resp as unknown as { toObject(): { detaileddiffMap: Array<[string, { kind: number }]> } }).toObject();
    expect(Object.fromEntries(wire.detaileddiffMap.map(([k, v]) => [k, v.kind]))).toEqual({ state: 5, labels: 0 });
  });

  it("says no change with an empty detailed diff, so the engine prints none", () => {
    const resp = diffResponse({ changes: false, detailedDiff: {} }) as unknown as Response;
    expect(resp.getChanges()).toBe(1); // DIFF_NONE
    expect(resp.getHasdetaileddiff()).toBe(true);
    expect(resp.getDiffsList()).toEqual([]);
  });

  it("leaves the engine to diff the inputs when a diff names no field", () => {
    const resp = diffResponse({ changes: true, replaces: ["path"] }) as unknown as Response;
    expect(resp.getHasdetaileddiff()).toBe(false);
    expect(resp.getDiffsList()).toEqual([]);
    expect(diffResponse({}).getChanges!()).toBe(0); // DIFF_UNKNOWN
  });
});
