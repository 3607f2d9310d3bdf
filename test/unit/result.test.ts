// A failed result thrown (orThrow): its words, code, field, refusals and detail kept, and the failure as its cause.
import { describe, expect, it } from "vitest";
import { OptionError, RESULT_DETAIL, RESULT_DETAIL_KINDS, ResultFailure, fail, ok, orThrow, refuse } from "../../src/daemon/result.js";

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

describe("a failure's detail", () => {
  it("is one of the kinds its schema lists, each a shape a program reads", () => {
    expect(RESULT_DETAIL_KINDS).toEqual(["image-missing", "image-unpulled", "option", "not-the-computer", "exited"]);
    expect(RESULT_DETAIL.safeParse({ kind: "image-missing", tag: "a:1", provider: "p", setting: "s" }).success).toBe(true);
    expect(RESULT_DETAIL.safeParse({ kind: "image-unpulled", tag: "a:1" }).success).toBe(false);
    expect(RESULT_DETAIL.safeParse({ kind: "option", provider: "p", option: "o", problem: " is wrong", extra: 1 }).success).toBe(false);
  });

  it("survives orThrow, and the thrown failure gives its result's error back whole", () => {
    const failed = fail("failed", "the image a:1 is not there", { field: "image", detail: { kind: "image-unpulled", tag: "a:1", reason: "no registry" } });
    const thrown = (() => {
      try {
        orThrow(failed);
      } catch (error) {
        return error as ResultFailure;
      }
    })();
    expect(thrown?.detail).toEqual({ kind: "image-unpulled", tag: "a:1", reason: "no registry" });
    expect(thrown?.error).toEqual(failed.error);
  });

  it("an OptionError is a TypeError whose words are the option named, then its problem", () => {
    const error = new OptionError("user", "AProvider's user option", ": is a uid");
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ name: "TypeError", message: "AProvider's user option: is a uid", option: "user", problem: ": is a uid" });
  });
});
