// agentrun:docker.testNetwork, the seam a stand-in API's stack (examples/api-key) and the tests
// use: refused unless the plugin's test flag is on, never offered to a stack's user, and taken as
// the egress option's test network (testOnly), beside the egress settings a stack gives.
import { describe, expect, it } from "vitest";
import { settingsFrom } from "../../provider/config.js";
import { optionsFromSettings } from "../../src/docker/settings.js";
import { settingsKeys } from "../../src/registry/settings.js";

const seam = { name: "agentrun-example-api", range: "172.20.0.0/16" };
const config = JSON.stringify({ "agentrun:docker": JSON.stringify({ testNetwork: seam, egress: { hint: "ask" } }) });

describe("agentrun:docker.testNetwork", () => {
  it("is refused unless the test flag is on", () => {
    const refused = settingsFrom(config);
    expect(refused.ok ? "" : refused.message).toMatch(
      /testNetwork lets every egress proxy reach .* refused unless the plugin's test flag \(AGENTRUN_COMPUTER_TEST=1\) is on/,
    );
  });

  it("is never offered to a stack's user", () => {
    expect(settingsKeys().docker).not.toContain("testNetwork");
  });

  it("becomes the egress option's test network, beside the stack's egress settings", () => {
    const taken = settingsFrom(config, { test: true });
    expect(taken.ok).toBe(true);
    const docker = taken.ok ? taken.value.docker : undefined;
    expect(optionsFromSettings(docker ?? {}).egress).toEqual({ hint: "ask", testNetwork: seam, testOnly: true });
    expect(optionsFromSettings({ egress: { hint: "ask" } }).egress).toEqual({ hint: "ask" });
  });
});
