// A missing image, as a stack's user meets it: the plugin's create against the real Docker engine
// refuses in docker and pulumi commands, never in library calls (docker.image(), ensureImage).
import { describe, expect, it } from "vitest";
import { makeProvider } from "../../provider/plugin.js";
import type { Settings } from "../../provider/config.js";

const URN = "urn:pulumi:dev::words::agentrun:index:Computer::agent";
// No registry answers on port 1 of the loopback, so a pull fails here, and nothing leaves the machine.
const NOWHERE = "localhost:1/agentrun-test/none:never";

async function createRefusal(settings: Settings, inputs: Record<string, unknown>): Promise<string> {
  const plugin = makeProvider({ version: "0.0.0", schema: "{}", settings: { ok: true, value: settings } });
  const checked = await plugin.check!(URN, {}, { lifetimeMs: 60_000, network: "none", ...inputs });
  expect(checked.failures ?? []).toEqual([]);
  try {
    await plugin.create!(URN, checked.inputs);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("create was not refused");
}

describe("a missing image, in a stack's terms", () => {
  it("a Computer's image that is not on the host: docker build, docker pull, or the agentrun:docker.image line", async () => {
    const words = await createRefusal({}, { image: NOWHERE });
    expect(words).toBe(
      `the image ${NOWHERE} is not on this Docker host, and nothing is pulled while a Computer is made: ` +
        `build it here (\`docker build -t ${NOWHERE} <folder with its Dockerfile>\`), or pull it where a registry answers (\`docker pull ${NOWHERE}\`); ` +
        "or leave the Computer's image out, for the provider's own image (`pulumi config set --path agentrun:docker.image <image>` names one for every Computer). Nothing was made",
    );
  }, 120_000);

  it("the stack's agentrun:docker.image naming an image not on the host: how to make it, or the line that unsets it", async () => {
    const words = await createRefusal({ docker: { image: NOWHERE } }, {});
    expect(words).toMatch(
      new RegExp(`^the image ${NOWHERE.replace(/[.:/]/g, "\\$&")}, which the stack's agentrun:docker\\.image names, is not on this Docker host`),
    );
    expect(words).toContain(`\`docker build -t ${NOWHERE} <folder with its Dockerfile>\``);
    expect(words).toContain("`pulumi config rm --path agentrun:docker.image`");
    expect(words).not.toMatch(/ensureImage|docker\.image\(\)|recipe/);
  }, 120_000);
});
