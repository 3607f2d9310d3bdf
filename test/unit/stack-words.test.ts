// The words a stack's user meets: the library's refusals of their settings, said as the
// `pulumi config` lines that change them. The refusals are the library's own, made here.
import { describe, expect, it } from "vitest";
import { settingsFrom } from "../../provider/config.js";
import { settingsKeys } from "../../src/vendor/settings.js";
import { vendors } from "../../provider/vendors.js";
import { forStack, settingsRefused } from "../../provider/words.js";
import { PROVIDER_IDS, providerFromSettings } from "../../src/providers.js";

describe("settings the plugin does not take", () => {
  it("names each key with the line that removes it, and the keys it takes (never a test-only one)", () => {
    const read = settingsFrom(JSON.stringify({ "agentrun:docker": JSON.stringify({ imag: "x" }), "agentrun:dockr": "{}" }));
    expect(read).toEqual({
      ok: false,
      message:
        "the stack's agentrun config has settings this plugin does not take or cannot read: agentrun:docker.imag, agentrun:dockr; " +
        "remove each (`pulumi config rm --path agentrun:docker.imag`, `pulumi config rm --path agentrun:dockr`), " +
        `or set one it takes (${Object.entries(settingsKeys())
          .map(([p, keys]) => `agentrun:${p}.{${keys.join(",")}}`)
          .join(", ")}) ` +
        "with `pulumi config set --path agentrun:<provider>.<key> <value>`",
    });
    expect(read.ok || read.message).toContain("agentrun:modal.{tokenId,tokenSecret,");
    expect(read.ok || read.message).not.toContain("testSdk");
  });
});

describe("settings the provider refuses", () => {
  it("the library's words name its option; the stack's name the setting and its pulumi config lines", async () => {
    const library = await providerFromSettings("docker", { user: "0" });
    expect(library.ok || library.error.message).toMatch(/^docker: DockerProvider's user option 0:0 is root/);
    const plugin = await vendors({ docker: { user: "0" } })("docker");
    expect(plugin.ok || plugin.error.message).toMatch(
      /^the stack's agentrun:docker settings were refused: agentrun:docker\.user 0:0 is root or in root's group.*\. Change it with `pulumi config set --path agentrun:docker\.user <value>`, or unset it with `pulumi config rm --path agentrun:docker\.user`$/,
    );
    expect(plugin.ok || plugin.error.message).not.toContain("DockerProvider");
  });

  it("an unknown provider id keeps the registry's words: it is a Computer's input, not a setting", async () => {
    const plugin = await vendors({})("nimbus");
    expect(plugin.ok || plugin.error.message).toBe(`there is no provider "nimbus": the registry holds ${PROVIDER_IDS.join(", ")}`);
  });

  it("a refusal no rule knows keeps the library's words", () => {
    const error = { code: "failed" as const, message: "the Docker engine did not answer" };
    expect(forStack(error)).toBe(error);
    // One that names no setting (the host's DOCKER_HOST) is no setting's fault: the library's words stand.
    const host = { code: "invalid" as const, message: "docker: DOCKER_HOST names tcp://127.0.0.1:2375, a Docker engine over TCP" };
    expect(settingsRefused("docker", host)).toBe(host);
  });
});
