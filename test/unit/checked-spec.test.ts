// check's result: every refusal together (a field a create needs and lacks among them), else the spec with the user and allowlist parsed once.
import { describe, expect, it } from "vitest";
import { checkedSpec } from "../../src/contract/checked.js";

describe("checkedSpec", () => {
  it("carries the spec, its user parsed and its allowlist in normal form", () => {
    const spec = { image: "img", lifetimeMs: 60_000, network: { allow: ["B.example.com", "10.1.2.3/8", "a.example.com"] }, user: "1000" };
    expect(checkedSpec(spec, [])).toEqual({
      ok: true,
      value: { spec, user: { uid: 1000, gid: 1000 }, allow: ["a.example.com", "b.example.com", "10.0.0.0/8"] },
    });
    expect(checkedSpec({ image: "img", lifetimeMs: 1, network: "none" }, [])).toEqual({
      ok: true,
      value: { spec: { image: "img", lifetimeMs: 1, network: "none" } },
    });
  });

  it("refuses with every refusal, the first field named", () => {
    const refused = checkedSpec({ image: "", lifetimeMs: 0, network: "none" }, [
      { field: "image", message: "image is required" },
      { field: "lifetimeMs", message: "lifetimeMs is a whole number above 0" },
    ]);
    expect(refused).toEqual({
      ok: false,
      error: {
        code: "invalid",
        message: "image is required; lifetimeMs is a whole number above 0",
        field: "image",
        refusals: [
          { field: "image", message: "image is required" },
          { field: "lifetimeMs", message: "lifetimeMs is a whole number above 0" },
        ],
      },
    });
  });

  it("refuses a spec still lacking a field a create needs when its vendor's check let it through, naming each, never passing it on as whole", () => {
    expect(checkedSpec({ network: "none" }, [])).toEqual({
      ok: false,
      error: {
        code: "invalid",
        message: "image is required: the image a computer starts from; lifetimeMs is required: how long the computer lives, in milliseconds",
        field: "image",
        refusals: [
          { field: "image", message: "image is required: the image a computer starts from" },
          { field: "lifetimeMs", message: "lifetimeMs is required: how long the computer lives, in milliseconds" },
        ],
      },
    });
    expect(checkedSpec({ image: "img", lifetimeMs: 1 }, [])).toMatchObject({ ok: false, error: { field: "network" } });
  });
});
