import { describe, expect, it } from "vitest";
import { EPOCH_LABEL, RUN_LABEL, epochOf, epochProblem, runLabels, runProblem } from "../../src/contract/labels.js";

describe("runLabels", () => {
  it("gives the run and the epoch in decimal", () => {
    expect(runLabels("r1", 3)).toEqual({ "agentrun.run": "r1", "agentrun.epoch": "3" });
    expect(RUN_LABEL).toBe("agentrun.run");
    expect(EPOCH_LABEL).toBe("agentrun.epoch");
    expect(runLabels("r1", 2 ** 53 - 1)[EPOCH_LABEL]).toBe("9007199254740991");
  });

  it.each([
    ["", 1, "runLabels: a run id is a non-empty string"],
    ["a\0b", 1, "runLabels: a run id has no NUL byte"],
    ["r1", -1, "runLabels: an epoch is from 0 to 2^53 - 1"],
    ["r1", 1.5, "runLabels: an epoch is a whole number"],
    ["r1", 2 ** 53, "runLabels: an epoch is from 0 to 2^53 - 1"],
    ["r1", Number.NaN, "runLabels: an epoch is a whole number"],
  ])("throws in words for run %j epoch %j", (run, epoch, words) => {
    expect(() => runLabels(run, epoch)).toThrow(words);
  });

  it("names a problem, or none", () => {
    expect(runProblem("r")).toBeUndefined();
    expect(runProblem(7)).toBe("a run id is a string, not number");
    expect(epochProblem(0)).toBeUndefined();
    expect(epochProblem("3")).toBe("an epoch is a whole number");
  });
});

describe("epochOf", () => {
  it.each([
    ["0", 0],
    ["7", 7],
    ["10", 10],
    ["9007199254740991", 2 ** 53 - 1],
  ])("reads %j as %d", (value, epoch) => {
    expect(epochOf({ [EPOCH_LABEL]: value })).toEqual({ ok: true, value: epoch });
  });

  it("is not_found when the label is missing", () => {
    expect(epochOf({ [RUN_LABEL]: "r1" })).toEqual({
      ok: false,
      error: { code: "not_found", message: "the computer has no agentrun.epoch label" },
    });
  });

  it.each(["", "01", "+1", "-1", " 1", "1 ", "1.0", "1e3", "0x10", "one", "９"])("refuses %j as invalid, naming what it reads", (value) => {
    const read = epochOf({ [EPOCH_LABEL]: value });
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error.code).toBe("invalid");
    expect(read.error.message).toBe(
      `the agentrun.epoch label reads ${JSON.stringify(value)}, not an epoch: decimal digits with no sign, leading zero or space`,
    );
  });

  it("refuses an epoch past 2^53 - 1", () => {
    const read = epochOf({ [EPOCH_LABEL]: "9007199254740992" });
    expect(read).toEqual({
      ok: false,
      error: { code: "invalid", message: 'the agentrun.epoch label reads "9007199254740992", past the largest epoch, 2^53 - 1' },
    });
  });
});
