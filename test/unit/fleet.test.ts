// The Fleet component's rules, each alone: its size and template refused in words, its drift
// summary, and its schema entry held to the Computer it makes (the template is a Computer's inputs).
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { INPUTS } from "../../provider/resources/computer.js";
import { FLEET_INPUTS, sizeProblem, templateProblem } from "../../provider/resources/fleet.js";
import { childUrn, summarize, type Found } from "../../provider/resources/fleet-drift.js";
import { ROOT } from "../support/toolchain.js";

const schema = JSON.parse(readFileSync(`${ROOT}/schema/schema.json`, "utf8"));

describe("a fleet's size", () => {
  test.each([0, 1, 10, 1000])("%s is taken", (size) => expect(sizeProblem(size)).toBeUndefined());
  test.each([-1, 1001, 1.5, "3", Number.NaN])("%s is refused in words", (size) => expect(sizeProblem(size)).toBe("size is a whole number from 0 to 1000"));
  test("none is refused, saying what it is", () => expect(sizeProblem(undefined)).toMatch(/size is required/));
});

describe("a fleet's template", () => {
  test("a Computer's inputs are taken", () => expect(templateProblem({ image: "x", lifetimeMs: 1, network: "none", labels: {} })).toBeUndefined());
  test("none is taken: the provider's defaults", () => expect(templateProblem(undefined)).toBeUndefined());
  test("a field a Computer does not take is refused, naming it and what it takes", () => {
    expect(templateProblem({ lifetimeMs: 1, colour: "red", size: 2 })).toBe(
      `template has no field "colour", "size"; it takes a Computer's inputs: ${INPUTS.join(", ")}`,
    );
  });
  test("a list is refused", () => expect(templateProblem([])).toBe("template is an object of a Computer's inputs"));
});

describe("a fleet's drift summary, as found at the start of an up", () => {
  const found = (entries: Array<[number, Found]>) => new Map(entries);
  test("counts each child drifted or stopped and names each gone (missing below the highest found), in order", () => {
    const f = found([
      [0, { state: "running", drift: [] }],
      [1, { state: "running", drift: ["memory 100 MiB, not 128"] }],
      [2, "missing"],
      [4, { state: "stopped", drift: [] }],
    ]);
    expect(summarize("f", 5, f)).toEqual({ count: 2, computers: ["f-1", "f-4"], gone: ["f-2", "f-3"] });
  });
  test("children past the highest found are new in this up, not gone (a first up, a grown size)", () => {
    expect(
      summarize(
        "f",
        4,
        found([
          [0, { state: "running", drift: [] }],
          [1, { state: "running", drift: [] }],
        ]),
      ),
    ).toEqual({ count: 0, computers: [], gone: [] });
    expect(summarize("f", 3, found([]))).toEqual({ count: 0, computers: [], gone: [] });
  });
  test("a child whose state is not the template's is counted (its pause or resume is the Computer's update); one as declared is not", () => {
    const f = found([
      [0, { state: "paused", drift: [] }],
      [1, { state: "running", drift: [] }],
    ]);
    expect(summarize("f", 2, f, "running")).toEqual({ count: 1, computers: ["f-0"], gone: [] });
    expect(summarize("f", 2, f, "paused")).toEqual({ count: 1, computers: ["f-1"], gone: [] });
  });
  test("while the template's state is unknown (a preview), no child is counted for its state alone", () => {
    const f = found([
      [0, { state: "paused", drift: [] }],
      [1, { state: "running", drift: [] }],
    ]);
    expect(summarize("f", 2, f, undefined)).toEqual({ count: 0, computers: [], gone: [] });
  });
  test("a read that failed is a note in words, not a drifted child", () => {
    const f = found([
      [0, { failed: "the engine did not answer" }],
      [1, { state: "stopped", drift: [] }],
    ]);
    expect(summarize("f", 2, f)).toEqual({ count: 1, computers: ["f-1"], gone: [], note: "not read back: f-0: the engine did not answer" });
  });
  test("a child's URN is its fleet's with the Computer's type appended", () => {
    expect(childUrn("urn:pulumi:dev::p::agentrun:index:Fleet::agents", "agents-3")).toBe(
      "urn:pulumi:dev::p::agentrun:index:Fleet$agentrun:index:Computer::agents-3",
    );
  });
});

describe("the Fleet's schema entry", () => {
  const fleet = schema.resources["agentrun:index:Fleet"];
  test("is a component taking the fields construct reads", () => {
    expect(fleet.isComponent).toBe(true);
    expect(Object.keys(fleet.inputProperties).sort()).toEqual([...FLEET_INPUTS].sort());
  });
  test("its template type is a Computer's inputs, field for field", () => {
    expect(schema.types["agentrun:index:ComputerTemplate"].properties).toEqual(schema.resources["agentrun:index:Computer"].inputProperties);
  });
});
