// The agentrun command's end closes the providers it made: a Docker engine's kept connections (and
// an ssh engine's shared login, which would otherwise outlive the command by a minute) are let go
// when the command returns. The engine is a stand-in that counts the connections held to it.
import { afterAll, describe, expect, test } from "vitest";
import { run } from "../../src/cli/program.js";
import { engineStandIn, recordedInfo } from "../support/engine-stand-in.js";

const stand = await engineStandIn((call) => {
  if (call === "GET /v1.41/info") return { status: 200, body: recordedInfo() };
  if (call.startsWith("GET /v1.41/containers/json")) return { status: 200, body: [] };
  if (call.startsWith("GET /v1.41/volumes")) return { status: 200, body: { Volumes: [], Warnings: [] } };
  return undefined;
});
afterAll(() => stand.close());

const context = { signal: new AbortController().signal, onInterrupt: () => () => undefined };

describe("the agentrun command's end", () => {
  test("closes the Docker engine's kept connections once ls has answered", async () => {
    const code = await run(["ls", "--provider", "docker", "--set", `engine=${stand.engine}`], context);
    expect(code, stand.calls.join("\n")).toBe(0);
    expect(stand.calls.some((call) => call.startsWith("GET /v1.41/containers/json"))).toBe(true);
    // Closed by the command's end, not by the engine's keep-alive (5 s) nor the client's (4 s).
    for (const end = Date.now() + 1_000; stand.open() > 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
    expect(stand.open()).toBe(0);
  });
});
