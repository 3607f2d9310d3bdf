// The user rule, written once (src/contract/user.ts): its shape, its one upper bound, its normal form, and
// a Mount and a Computer that therefore agree on every value.
import { describe, expect, it } from "vitest";
import { computer } from "../../provider/resources/computer.js";
import { mount } from "../../provider/resources/mount.js";
import { MAX_ID, normalUser, parseUser, userProblem } from "../../src/contract/user.js";
import { testContext } from "../support/context.js";

describe("parseUser", () => {
  it.each([
    ["1000", { uid: 1000, gid: 1000 }],
    ["1000:50", { uid: 1000, gid: 50 }],
    ["0", { uid: 0, gid: 0 }],
    [`${MAX_ID}:${MAX_ID}`, { uid: MAX_ID, gid: MAX_ID }],
  ])("takes %s", (text, user) => {
    expect(parseUser(text)).toEqual({ ok: true, value: user });
  });

  it.each([["agent"], ["1000:staff"], ["01000"], ["-1"], ["1000:"], [""], [1000], [undefined]])("refuses %j in words that never hold it", (value) => {
    const parsed = parseUser(value);
    expect(parsed).toMatchObject({ ok: false, error: { code: "invalid", field: "user" } });
    expect(userProblem(value)).toBe("user is a uid or uid:gid in numbers, such as 1000:1000 (a name is refused: the computer's image may not have it)");
  });

  it("refuses an id past 2^31 - 1, the bound a container runtime takes", () => {
    expect(userProblem(`${MAX_ID + 1}`)).toBe(`user's ids are at most ${MAX_ID}`);
    expect(userProblem(`1000:${MAX_ID + 1}`)).toBe(`user's ids are at most ${MAX_ID}`);
  });

  it("writes a user as uid:gid, and gives back what is not one for a check to refuse", () => {
    expect(normalUser("1000")).toBe("1000:1000");
    expect(normalUser("1000:50")).toBe("1000:50");
    expect(normalUser("agent")).toBe("agent");
  });
});

describe("a Mount and a Computer hold the same user rule", () => {
  const ctx = testContext();
  const mountReasons = async (user: string) =>
    ((await mount.check(ctx, {}, { path: "/var/tmp/agentrun-unit-user/w", user })).failures ?? []).filter((f) => f.property === "user").map((f) => f.reason);
  const computerReasons = async (user: string) =>
    ((await computer.check(ctx, {}, { image: "agentrun-base:x", lifetimeMs: 60_000, user })).failures ?? [])
      .filter((f) => f.property === "user")
      .map((f) => f.reason);

  it.each([["3000000000"], ["1000:3000000000"], ["agent"]])("both refuse %s, in the same words", async (user) => {
    const words = [userProblem(user)];
    expect(await mountReasons(user)).toEqual(words);
    expect(await computerReasons(user)).toEqual(words);
  });

  it.each([["1234"], [`${MAX_ID}`]])("both take %s, written uid:gid", async (user) => {
    expect((await mount.check(ctx, {}, { path: "/var/tmp/agentrun-unit-user/w", user })).inputs?.user).toBe(`${user}:${user}`);
    expect((await computer.check(ctx, {}, { image: "agentrun-base:x", lifetimeMs: 60_000, user })).inputs?.user).toBe(`${user}:${user}`);
  });
});
