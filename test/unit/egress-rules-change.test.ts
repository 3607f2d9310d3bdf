// The words a preview shows for a change of an egress list's rules: per host, the methods and path
// prefixes the new rules open and close, a host's first rules closing all but what they grant,
// its last rule removed opening it whole, and nothing for rules that grant the same.
import { describe, expect, it } from "vitest";
import { rulesChange } from "../../src/egress/rules-change.js";
import type { EgressRule } from "../../src/egress/rules.js";

const rule = (host: string, methods: string[] | undefined, paths: string[]): EgressRule => ({ host, ...(methods ? { methods } : {}), paths });

describe("what a change of rules opens and closes", () => {
  it("names a method added and one removed", () => {
    expect(rulesChange([rule("a.com", ["GET"], ["/v1/items"])], [rule("a.com", ["GET", "POST"], ["/v1/items"])])).toEqual([
      "rules for a.com: opens POST /v1/items",
    ]);
    expect(rulesChange([rule("a.com", ["GET", "DELETE"], ["/v1/"])], [rule("a.com", ["GET"], ["/v1/"])])).toEqual(["rules for a.com: closes DELETE /v1/"]);
  });

  it("names a path prefix widened or narrowed", () => {
    expect(rulesChange([rule("a.com", ["GET"], ["/v1/items"])], [rule("a.com", ["GET"], ["/v1/"])])).toEqual(["rules for a.com: opens GET /v1/"]);
    expect(rulesChange([rule("a.com", ["GET"], ["/v1/"])], [rule("a.com", ["GET"], ["/v1/items"])])).toEqual(["rules for a.com: closes GET /v1/"]);
  });

  it("says a host's first rules close all but what they grant, and its last rule removed opens it whole", () => {
    expect(rulesChange([], [rule("a.com", ["GET"], ["/v1/items"])])).toEqual(["rules for a.com: closes every method and path but GET /v1/items"]);
    expect(rulesChange([rule("a.com", ["GET"], ["/v1/items"])], [])).toEqual([
      "rules for a.com: opens every method and path (no rule is left: the host is tunnelled whole)",
    ]);
  });

  it("says a method wildcard narrowed or widened on a path", () => {
    expect(rulesChange([rule("a.com", undefined, ["/v1/"])], [rule("a.com", ["GET"], ["/v1/"])])).toEqual([
      "rules for a.com: closes every other method on /v1/",
    ]);
    expect(rulesChange([rule("a.com", ["GET"], ["/v1/"])], [rule("a.com", undefined, ["/v1/"])])).toEqual([
      "rules for a.com: opens every other method on /v1/",
    ]);
  });

  it("says nothing for rules that grant the same, written otherwise, and sorts by host", () => {
    expect(rulesChange([rule("a.com", ["GET", "POST"], ["/v1/"])], [rule("a.com", ["POST"], ["/v1/"]), rule("a.com", ["GET"], ["/v1/"])])).toEqual([]);
    expect(rulesChange([], [rule("b.com", ["GET"], ["/"]), rule("a.com", ["GET"], ["/"])]).map((l) => l.split(":")[0])).toEqual([
      "rules for a.com",
      "rules for b.com",
    ]);
  });
});
