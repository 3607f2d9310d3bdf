// The Fleet component's rules, each alone: its size and template refused in words, its drift
// summary, and its schema entry held to the Computer it makes (the template is a Computer's inputs).
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { INPUTS } from "../../provider/resources/computer.js";
import { FLEET_INPUTS, driftSummary, sizeProblem, templateProblem } from "../../provider/resources/fleet.js";
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
    expect(templateProblem({ lifetimeMs: 1, colour: "red", size: 2 })).toBe(`template has no field "colour", "size"; it takes a Computer's inputs: ${INPUTS.join(", ")}`);
  });
  test("a list is refused", () => expect(templateProblem([])).toBe("template is an object of a Computer's inputs"));
});

describe("a fleet's drift summary", () => {
  test("counts and names each child that drifted, in order", () => {
    const children = [
      { name: "f-0", drift: [] },
      { name: "f-1", drift: ["memory 100 MiB, not 128"] },
      { name: "f-2", drift: undefined },
      { name: "f-3", drift: ["gone", "stopped"] },
    ];
    expect(driftSummary(children)).toEqual({ count: 2, computers: ["f-1", "f-3"] });
  });
  test("is zero when none drifted", () => expect(driftSummary([{ name: "f-0", drift: [] }])).toEqual({ count: 0, computers: [] }));
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
