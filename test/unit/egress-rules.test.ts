// An egress proxy's rules and credentials, held to computerd's verdicts (test/vectors/egress-rules.json,
// written by daemon/internal/egress/allow), and refused field by field as a preview shows them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkRules,
  covers,
  FORBIDDEN_HEADERS,
  headerProblem,
  RULE_BOUNDS,
  RULE_METHODS,
  ruleAllows,
  ruleArg,
  ruleOf,
  rulesChangedHosts,
} from "../../src/egress/rules.js";

interface Vectors {
  list: string[];
  methods: string[];
  forbiddenHeaders: string[];
  rules: Array<{ arg: string; ok: boolean }>;
  allows: Array<{ rule: string; method: string; path: string; allowed: boolean }>;
  headers: Array<{ header: string; ok: boolean }>;
  covers: Array<{ rule: string; host: string; covers: boolean }>;
  bounds: Record<string, number>;
}

const vectors = JSON.parse(readFileSync(join(import.meta.dirname, "..", "vectors", "egress-rules.json"), "utf8")) as Vectors;

describe("a proxy's rules, held to computerd's", () => {
  it("has the same methods, forbidden headers and bounds", () => {
    expect([...RULE_METHODS]).toEqual(vectors.methods);
    expect([...FORBIDDEN_HEADERS]).toEqual(vectors.forbiddenHeaders);
    expect({ ...RULE_BOUNDS }).toEqual(vectors.bounds);
  });

  it.each(vectors.rules)("judges the rule $arg as computerd does ($ok)", ({ arg, ok }) => {
    const rule = ruleOf(arg);
    const refused = rule === undefined || checkRules([rule], undefined, vectors.list).length > 0;
    expect(!refused).toBe(ok);
    if (ok) expect(ruleArg(rule!)).toBe(arg);
  });

  it.each(vectors.allows)("$method $path under $rule: $allowed", ({ rule, method, path, allowed }) => {
    expect(ruleAllows(ruleOf(rule)!, method, path)).toBe(allowed);
  });

  it.each(vectors.headers)("a credential's header $header: $ok", ({ header, ok }) => {
    expect(headerProblem(header) === undefined).toBe(ok);
  });

  it.each(vectors.covers)("$rule covers $host: $covers", ({ rule, host, covers: want }) => {
    expect(covers(rule, host)).toBe(want);
  });
});

describe("checkRules", () => {
  const list = ["api.example.com", "*.docs.example.com", "93.184.215.0/24"];

  it("names the field of each bad input, all together", () => {
    const refusals = checkRules(
      [{ host: "other.example.com", methods: ["FETCH"], paths: ["v1/items"] }, { host: "93.184.215.0/24" }],
      [
        { host: "api.example.com", header: "Host", value: "k" },
        { host: "api.example.com", header: "Connection", value: "bad\nvalue" },
      ],
      list,
    );
    expect(refusals.map((r) => r.field)).toEqual([
      "rules[0].host",
      "rules[0].methods[0]",
      "rules[0].paths[0]",
      "rules[1].host",
      "credentials[0].header",
      "credentials[1].header",
      "credentials[1].value",
    ]);
    expect(refusals[0]!.message).toBe('rules[0].host: host "other.example.com" is not a name or *.suffix on the list as written (lower case)');
    expect(refusals[1]!.message).toBe('rules[0].methods[0]: method "FETCH" is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
    expect(refusals[2]!.message).toBe('rules[0].paths[0]: path "v1/items" does not start with /');
    expect(refusals.map((r) => r.message).join(" ")).not.toContain("bad\nvalue");
  });

  it("takes rules and credentials on listed names, and refuses a shape that is not one", () => {
    expect(
      checkRules(
        [{ host: "api.example.com", methods: ["GET"], paths: ["/v1/items"] }],
        [{ host: "*.docs.example.com", header: "X-Api-Key", value: "k" }],
        list,
      ),
    ).toEqual([]);
    expect(checkRules([{ host: "api.example.com", verbs: ["GET"] }], undefined, list).map((r) => r.field)).toEqual(["rules[0]"]);
    expect(checkRules(undefined, [{ host: "api.example.com", header: "X-Key", value: 7 }], list).map((r) => r.field)).toEqual(["credentials[0]"]);
  });

  it("names the hosts whose rules differ", () => {
    expect(rulesChangedHosts(["a.example.com GET /", "b.example.com * /"], ["b.example.com * /", "a.example.com GET,POST /", "c.example.com GET /"])).toEqual([
      "a.example.com",
      "c.example.com",
    ]);
  });
});
