// A stack of one runc and one gVisor computer through the real engine: each kernel read from
// inside by a ComputerCommand (gVisor's release is not the host's, runc's is), the runtime read
// back on the Computer, preview --refresh clean, and destroy leaves no container.
import { release } from "node:os";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

const computer = (runtime: string) => ({
  type: "agentrun:index:Computer",
  properties: { image: toolchain().baseImage, lifetimeMs: 600_000, memoryMb: 256, network: "none", runtime },
});
const kernel = (box: string) => ({
  type: "agentrun:index:ComputerCommand",
  properties: { computer: `\${${box}.name}`, command: ["uname", "-r"], timeoutSeconds: 60 },
});

describe("one runc and one gVisor computer in a stack, through the real engine", () => {
  let s: TestStack;

  beforeAll(async () => {
    s = await testStack(
      "runtime",
      { plain: computer("runc"), guarded: computer("gvisor"), plainKernel: kernel("plain"), guardedKernel: kernel("guarded") },
      {
        plain: "${plain.name}",
        guarded: "${guarded.name}",
        guardedRuntime: "${guarded.runtime}",
        plainKernel: "${plainKernel.stdout}",
        guardedKernel: "${guardedKernel.stdout}",
      },
    );
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("up: each runs on its kernel, the gVisor one on runsc, and preview --refresh is clean; destroy leaves nothing", async () => {
    const up = await s.stack.up({ color: "never" });
    const names = [String(up.outputs.plain?.value), String(up.outputs.guarded?.value)];
    for (const name of names) s.made.add(name);
    expect(up.outputs.guardedRuntime?.value).toBe("gvisor");
    // The host's kernel is the engine's: this machine's own, as the engine runs here.
    expect(String(up.outputs.plainKernel?.value).trim()).toBe(release());
    expect(String(up.outputs.guardedKernel?.value).trim()).not.toBe(release());
    const runtimes = await docker("inspect", "-f", "{{.HostConfig.Runtime}}", ...names);
    expect(runtimes.stdout.trim().split("\n")).toEqual(["runc", "runsc"]);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode, preview.stdout + preview.stderr).toBe(0);
    await s.stack.destroy({ color: "never" });
    for (const name of names) expect((await docker("inspect", name)).exitCode, name).not.toBe(0);
  }, 600_000);
});
