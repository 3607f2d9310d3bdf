// Paths inside a computer's home: each refusal in its words, and a path under a folder judged by
// where it lands, never by the words of its own refusal (which hold the path the caller gave).
import { describe, expect, it } from "vitest";
import { homeRelative, underHome } from "../../src/inside/paths.js";

describe("homeRelative", () => {
  it.each([
    ["", "a path must be a non-empty path relative to the computer's home"],
    ["a\0b", 'a path "a\\0b" holds a NUL: a path inside the computer cannot'],
    ["/etc/passwd", 'a path "/etc/passwd" is absolute: give it relative to the computer\'s home (Downloads/report.csv)'],
    ["~/x", 'a path "~/x" is absolute: give it relative to the computer\'s home (Downloads/report.csv)'],
    ["a/..", 'a path "a/.." is the home itself: name a file or folder inside it'],
    ["a/../../b", 'a path "a/../../b" leaves the home: a step writes and reads only inside it'],
  ])("refuses %j in words naming it", (path, words) => {
    expect(homeRelative(path)).toEqual({ ok: false, error: { code: "invalid", message: words } });
  });

  it("gives a path in its normal form", () => {
    expect(homeRelative("Downloads//a/./b.csv/")).toEqual({ ok: true, value: "Downloads/a/b.csv" });
  });
});

describe("underHome", () => {
  it("takes a name that climbs while the whole stays inside the home", () => {
    expect(underHome("apps/x", "../y/z")).toEqual({ ok: true, value: "apps/y/z" });
  });

  it("refuses a name that leaves the home, or lands on it, naming the name and the folder", () => {
    expect(underHome("apps", "../../etc")).toMatchObject({
      ok: false,
      error: { message: 'a path "../../etc" under apps leaves the home: a step writes and reads only inside it' },
    });
    expect(underHome("apps", "..")).toMatchObject({
      ok: false,
      error: { message: 'a path ".." under apps is the home itself: name a file or folder inside it' },
    });
  });

  it("refuses an absolute name even when it holds the words of another refusal", () => {
    expect(underHome("apps", "/tmp/leaves the home")).toMatchObject({ ok: false, error: { message: expect.stringMatching(/is absolute/) } });
    expect(underHome("apps", "/is the home itself")).toMatchObject({ ok: false, error: { message: expect.stringMatching(/is absolute/) } });
  });
});
