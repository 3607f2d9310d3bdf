// The engine's cancel (a second Ctrl-C) reaches every vendor call the plugin makes: after it, a
// Computer's create is refused as aborted before anything is made.
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, test } from "vitest";
import { makeProvider } from "../../provider/plugin.js";
import { docker, removeContainers } from "../support/docker.js";
import { toolchain } from "../support/toolchain.js";

const purpose = `cancel-test-${randomBytes(4).toString("hex")}`;
// Were the cancel not wired, a computer would be made: it is found by its unique label and removed.
afterAll(async () => {
  const made = await docker("ps", "-a", "--filter", `label=purpose=${purpose}`, "--format", "{{.Names}}");
  await removeContainers(made.stdout.split("\n").filter(Boolean));
});

describe("the plugin's cancel", () => {
  test("aborts the steps that follow it, making nothing", async () => {
    const provider = makeProvider({ version: "0.0.0-test", schema: "{}", settings: { ok: true, value: {} } });
    await provider.cancel!();
    const urn = "urn:pulumi:test::p::agentrun:index:Computer::c";
    const checked = await provider.check!(urn, {}, { image: toolchain().baseImage, lifetimeMs: 60_000, labels: { purpose } });
    expect(checked.failures ?? []).toEqual([]);
    await expect(provider.create!(urn, checked.inputs)).rejects.toThrow(/abort/i);
  });
});
