// Secrets across the plugin's edge: unwrapped on the way in (remembering which fields held one,
// at any depth), and every output derived from one wrapped on the way out.
import { describe, expect, it } from "vitest";
import { isSecret, secret, secretFieldsOf, unwrap, wrapDerived } from "../../provider/secrets.js";

describe("unwrap", () => {
  it("strips secrets at any depth and names the top-level fields that held one", () => {
    const { plain, secretKeys } = unwrap({
      path: secret("/var/tmp/w"),
      labels: { a: "1", token: secret("t0ken") },
      allow: ["pypi.org", secret("internal.example")],
      nested: secret({ deeper: secret("x") }),
      cpus: 2,
    });
    expect(plain).toEqual({
      path: "/var/tmp/w",
      labels: { a: "1", token: "t0ken" },
      allow: ["pypi.org", "internal.example"],
      nested: { deeper: "x" },
      cpus: 2,
    });
    expect([...secretKeys].sort()).toEqual(["allow", "labels", "nested", "path"]);
  });

  it("leaves plain values and null as they are", () => {
    expect(unwrap({ a: null, b: [1, { c: "d" }] })).toEqual({ plain: { a: null, b: [1, { c: "d" }] }, secretKeys: new Set() });
  });
});

describe("wrapDerived", () => {
  it("wraps an output of a secret input's name, and one derived from it by the map", () => {
    const outs = wrapDerived({ path: "/w", mount: { path: "/w" }, made: true, kind: "bind" }, new Set(["path"]), { mount: ["kind", "path"], made: [] });
    expect(isSecret(outs.path)).toBe(true);
    expect(isSecret(outs.mount)).toBe(true);
    expect(outs.made).toBe(true);
    expect(outs.kind).toBe("bind");
  });

  it("gives the outputs back unchanged when no input was secret", () => {
    const outs = { path: "/w" };
    expect(wrapDerived(outs, new Set())).toBe(outs);
  });

  it("round-trips: what it wraps, secretFieldsOf finds again", () => {
    const outs = wrapDerived({ run: "r1", labels: { "agentrun.run": "r1" }, epoch: 2 }, new Set(["run"]), { labels: ["run", "epoch"] });
    expect([...secretFieldsOf(outs)].sort()).toEqual(["labels", "run"]);
    expect(unwrap(outs).plain).toEqual({ run: "r1", labels: { "agentrun.run": "r1" }, epoch: 2 });
  });
});

describe("isSecret", () => {
  it("knows the engine's signature and nothing else", () => {
    expect(isSecret(secret("x"))).toBe(true);
    expect(isSecret({ value: "x" })).toBe(false);
    expect(isSecret("4dabf18193072939515e22adb298388d")).toBe(false);
    expect(isSecret(null)).toBe(false);
  });
});
