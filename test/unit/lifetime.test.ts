import { describe, expect, it } from "vitest";
import { checkLifetime } from "../../src/contract/lifetime.js";

const docker = { maxLifetimeMs: 30 * 86_400_000 };

describe("checkLifetime", () => {
  it("takes a whole number of milliseconds from 1 to the cap", () => {
    expect(checkLifetime(1, docker)).toBeUndefined();
    expect(checkLifetime(600_000, docker)).toBeUndefined();
    expect(checkLifetime(docker.maxLifetimeMs, docker)).toBeUndefined();
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "600000", null])("refuses %j in words", (value) => {
    expect(checkLifetime(value, docker)).toEqual({
      field: "lifetimeMs",
      message: "lifetimeMs is a whole number of milliseconds from 1 to 2592000000 (30 days)",
    });
  });

  it("refuses a missing lifetime and one past the cap", () => {
    expect(checkLifetime(undefined, docker)?.message).toBe("lifetimeMs is required: a whole number of milliseconds from 1 to 2592000000 (30 days)");
    expect(checkLifetime(docker.maxLifetimeMs + 1, docker)?.message).toBe(
      "lifetimeMs is past this provider's cap of 2592000000 ms (30 days): ask for a whole number of milliseconds from 1 to 2592000000 (30 days)",
    );
    expect(checkLifetime(3_600_001, { maxLifetimeMs: 3_600_000 })?.message).toContain("cap of 3600000 ms (1 hour)");
  });
});
