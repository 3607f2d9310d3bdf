// The generated SDK resolves every output, an input left out of the declaration included: the
// Node SDK makes an Output only for the keys a resource is given, so a Computer that names no
// provider or kind would otherwise never see the ones the plugin read back (found running the
// TypeScript example through the engine by the Automation API).
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, test } from "vitest";

const value = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));

describe("the generated SDK's outputs", () => {
  test("an input left out resolves to what the plugin gave back", async () => {
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => ({ id: `${args.name}-id`, state: { ...args.inputs, provider: "docker", kind: "linux", name: "computer-0123456789ab" } }),
        call: () => ({}),
      },
      "project",
      "stack",
      false,
    );
    const { Computer } = await import("../../provider/sdk/index.js");
    const c = new Computer("c", { image: "agentrun-base:x", lifetimeMs: 60_000 });
    expect(await value(c.provider)).toBe("docker");
    expect(await value(c.kind)).toBe("linux");
    expect(await value(c.image)).toBe("agentrun-base:x");
  });
});
