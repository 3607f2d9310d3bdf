// runtime gvisor on the real engine (runsc as the set-up registers it): a computer whose programs
// read gVisor's kernel, read back as gvisor with no drift; and one on the host's kernel where
// gvisor was declared (a runc computer made beside it) is drift named runtime.
import { describe, expect, it } from "vitest";
import { gvisorKernelDrift } from "../../src/docker/runtime.js";
import { cleanup, docker, provider, spec, testLabel } from "../support/docker-helpers.js";

const made = cleanup();

async function run(client: { call: (m: "exec.run", p: { argv: string[]; timeoutMs: number }) => Promise<{ stdout: string }> }, argv: string[]) {
  const r = await client.call("exec.run", { argv, timeoutMs: 30_000 });
  return Buffer.from(r.stdout, "base64").toString("utf8").trim();
}

describe("runtime gvisor", () => {
  it("makes a computer on gVisor's kernel, read back as gvisor from HostConfig and from inside, with no drift", async () => {
    const docker_ = provider();
    const host = await docker_.host();
    expect(host.ok && host.value.runtimes?.runsc).toBeDefined();
    const created = await docker_.create(spec({ runtime: "gvisor", labels: testLabel() }));
    if (!created.ok) throw new Error(created.error.message);
    made.track(created.value.name);
    expect(created.value.spec?.runtime).toBe("gvisor");
    expect(docker("inspect", "--format", "{{.HostConfig.Runtime}}", created.value.name)).toBe("runsc");
    const connection = await docker_.connect(created.value);
    if (!connection.ok) throw new Error(connection.error.message);
    try {
      expect(await run(connection.value.client, ["uname", "-r"])).toBe("4.4.0");
      expect(await run(connection.value.client, ["dmesg"])).toContain("Starting gVisor...");
    } finally {
      await connection.value.close();
    }
    const read = await docker_.read({ id: created.value.name });
    expect(read.ok && read.value.drift).toEqual([]);
    expect(read.ok && read.value.ref.spec?.runtime).toBe("gvisor");
    await docker_.close();
  });

  it("where gvisor was declared and the computer runs on the host's kernel, names runtime", async () => {
    const docker_ = provider();
    const host = await docker_.host();
    if (!host.ok) throw new Error(host.error.message);
    const created = await docker_.create(spec({ labels: testLabel() }));
    if (!created.ok) throw new Error(created.error.message);
    made.track(created.value.name);
    expect(docker("inspect", "--format", "{{.HostConfig.Runtime}}", created.value.name)).toBe("runc");
    const connection = await docker_.connect(created.value);
    if (!connection.ok) throw new Error(connection.error.message);
    try {
      const sentence = await gvisorKernelDrift(connection.value.client, "gvisor", host.value.kernel);
      expect(sentence).toMatch(
        new RegExp(`^runtime: the computer's programs run on the host's kernel \\(Linux version ${host.value.kernel!.replace(/[.]/g, "\\.")} `),
      );
      expect(await gvisorKernelDrift(connection.value.client, "runc", host.value.kernel)).toBeUndefined();
    } finally {
      await connection.value.close();
    }
    await docker_.close();
  });
});
