// A failed result thrown (orThrow): its words, code, field and refusals kept, and the failure as its cause.
import { describe, expect, it } from "vitest";
import { ResultFailure, fail, ok, orThrow, refuse } from "../../src/vendor/result.js";

describe("orThrow", () => {
  it("gives a success's value", () => {
    expect(orThrow(ok(3))).toBe(3);
  });

  it("throws a failure with its code, field and cause", () => {
    const failed = fail("not_found", "no computer computer-0123456789ab on this Docker host", { field: "id" });
    const thrown = (() => {
      try {
        orThrow(failed);
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(ResultFailure);
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).toMatchObject({ message: failed.error.message, code: "not_found", field: "id", cause: failed.error });
  });

  it("keeps every refusal of a check", () => {
    const refused = refuse([
      { field: "user", message: "user is a uid" },
      { field: "lifetimeMs", message: "lifetimeMs is past the cap" },
    ]);
    expect(() => orThrow(refused)).toThrow(
      expect.objectContaining({
        code: "invalid",
        field: "user",
        refusals: [expect.objectContaining({ field: "user" }), expect.objectContaining({ field: "lifetimeMs" })],
      }),
    );
  });
});
