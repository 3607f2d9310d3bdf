// runText: exec.run's streams, which the protocol gives as base64 bytes, as the text the program printed.
import { describe, expect, it } from "vitest";
import { runText } from "../../src/index.js";

describe("runText", () => {
  it("decodes stdout and stderr as UTF-8 and keeps the rest of the result", () => {
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    expect(runText({ exitCode: 0, signal: null, stdout: b64("Linux café\n"), stderr: b64(""), timedOut: false, truncated: false })).toEqual({
      exitCode: 0,
      signal: null,
      stdout: "Linux café\n",
      stderr: "",
      timedOut: false,
      truncated: false,
    });
  });
});
