// The probes a computer's own check sends from inside: per rule one request it allows and one no
// rule of its host allows, so that a proxy that enforces other rules answers one of them otherwise.
import { describe, expect, it } from "vitest";
import { judgeProbes } from "../../src/egress/proven.js";

describe("judgeProbes", () => {
  it("tries what each rule allows and, by method or path, what no rule of its host allows", () => {
    expect(
      judgeProbes([
        { host: "api.example.com", methods: ["GET", "HEAD"], paths: ["/v1/items", "/docs/"] },
        { host: "*.docs.example.com", paths: ["/guide/"] },
      ]),
    ).toEqual([
      { host: "api.example.com", method: "GET", path: "/v1/items", passes: true },
      { host: "api.example.com", method: "POST", path: "/v1/items", passes: false },
      { host: "agentrun-judge.docs.example.com", method: "GET", path: "/guide/", passes: true },
      { host: "agentrun-judge.docs.example.com", method: "GET", path: "/guide-agentrun-refused", passes: false },
    ]);
  });

  it("refuses nothing where another rule of the host allows it, and a rule of every method on / refuses nothing", () => {
    expect(
      judgeProbes([
        { host: "a.test", methods: ["GET"], paths: ["/"] },
        { host: "a.test", methods: ["POST"], paths: ["/"] },
        { host: "b.test", paths: ["/"] },
      ]),
    ).toEqual([
      { host: "a.test", method: "GET", path: "/", passes: true },
      { host: "a.test", method: "HEAD", path: "/", passes: false },
      { host: "a.test", method: "POST", path: "/", passes: true },
      { host: "b.test", method: "GET", path: "/", passes: true },
    ]);
    expect(judgeProbes([])).toEqual([]);
  });
});
