// The Modal provider through the real `modal` SDK at the wire (a loopback gRPC server of Modal's
// protocol): each sandbox a root container with every capability, the daemon uploaded through
// exec's stdin, init --own-network, the probe and the bridge all real. Nothing is left after each test.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { readFile, writeFile } from "../../src/daemon/files.js";
import { spec, wires } from "../support/modal-helpers.js";

const fake = wires();
const text = (b64: string) => Buffer.from(b64, "base64").toString("utf8");

describe("Modal at the wire", () => {
  it("creates, connects, runs, writes and reads files, lists and releases", async () => {
    const { provider, fake: sdk } = await fake();
    const made = await provider.create(spec({ labels: { "agentrun.test": "lifecycle" } }));
    if (!made.ok) throw new Error(made.error.message);
    const ref = made.value;
    expect(ref).toMatchObject({
      provider: "modal",
      spec: { user: "2510:2510", network: "none", workdir: "/work", kind: "linux" },
      hello: { arch: "amd64", kind: "linux" },
    });
    const connection = await provider.connect(ref);
    if (!connection.ok) throw new Error(connection.error.message);
    const { client } = connection.value;
    const run = await client.call("exec.run", {
      argv: ["sh", "-c", "id -u; id -g; echo $HOME; grep -E '^Cap(Eff|Bnd)|NoNewPrivs' /proc/self/status"],
      timeoutMs: 10_000,
    });
    expect(text(run.stdout).split("\n").sort()).toEqual([
      "",
      "/work",
      "2510",
      "2510",
      "CapBnd:\t0000000000000000",
      "CapEff:\t0000000000000000",
      "NoNewPrivs:\t1",
    ]);
    expect(await writeFile(client, "/work/hello.txt", Buffer.from("hi from modal"))).toMatchObject({ ok: true });
    const read = await readFile(client, "/work/hello.txt");
    expect(read.ok && Buffer.from(read.value).toString()).toBe("hi from modal");
    await connection.value.close();

    const listed = await provider.list({ "agentrun.test": "lifecycle" });
    expect(listed.ok && listed.value.map((c) => c.ref.name)).toEqual([ref.name]);
    const attached = await provider.attach({ id: ref.id });
    expect(attached).toMatchObject({ ok: true, value: { name: ref.name, spec: { user: "2510:2510", network: "none" } } });
    expect(await provider.attach({ id: ref.name })).toMatchObject({ ok: true, value: { id: ref.id } });
    expect(await provider.network(ref)).toEqual({ ok: true, value: "none" });
    expect(await provider.network(ref, "open")).toMatchObject({ ok: false, error: { code: "unsupported", field: "network" } });

    expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    expect(await sdk.running()).toEqual([]);
    expect(await provider.list({ "agentrun.test": "lifecycle" })).toEqual({ ok: true, value: [] });
    // Released twice is ok; connect to it is refused.
    expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    expect((await provider.connect(ref)).ok).toBe(false);
  }, 120_000);

  it("refuses a sandbox killed mid-upload, and leaves nothing running", async () => {
    const { provider, fake: sdk } = await fake({ killAfterUploadBytes: 1024 * 1024 });
    const made = await provider.create(spec());
    expect(made).toMatchObject({ ok: false });
    expect(made.ok ? "" : made.error.message).toMatch(/upload/);
    expect(await sdk.running()).toEqual([]);
  }, 120_000);

  it("refuses a daemon whose sha256 does not read back, and terminates the sandbox", async () => {
    const { provider, fake: sdk } = await fake({ corruptUpload: true });
    const made = await provider.create(spec());
    expect(made).toMatchObject({ ok: false, error: { code: "refused" } });
    expect(made.ok ? "" : made.error.message).toMatch(/read back sha256 [0-9a-f]{64}, not the provider's .* was terminated/);
    expect(await sdk.running()).toEqual([]);
  }, 120_000);

  it("refuses a sandbox whose kernel reads gVisor's, and terminates it", async () => {
    const { provider, fake: sdk } = await fake({ kernel: "4.19.0-gvisor" });
    const made = await provider.create(spec());
    expect(made).toMatchObject({ ok: false, error: { code: "refused" } });
    expect(made.ok ? "" : made.error.message).toMatch(/its kernel is 4.19.0-gvisor: a gVisor sandbox, not Modal's VM runtime.*was terminated/);
    expect(await sdk.running()).toEqual([]);
  }, 120_000);

  it("keeps a stand-in agent on the sandbox's loopback out of reach of the daemon's programs", async () => {
    const { provider } = await fake();
    const made = await provider.create(spec());
    if (!made.ok) throw new Error(made.error.message);
    const id = made.value.id;
    // The stand-in: as root, outside the daemon's namespace, answering on 2280 with a banner.
    // A static busybox (the set-up installs busybox-static), found where the shell finds it.
    const busybox = execFileSync("sh", ["-c", "command -v busybox"], { encoding: "utf8" }).trim();
    execFileSync("docker", ["cp", "-L", busybox, `${id}:/busybox`]);
    execFileSync("docker", ["exec", "-d", id, "/busybox", "sh", "-c", "while true; do echo agent | /busybox nc -l -p 2280; done"]);
    const probe = (argv: string[]) =>
      JSON.parse(execFileSync("docker", ["exec", id, ...argv], { encoding: "utf8" })) as { reached: string[]; interfaces: string[] };
    // Root beside it reaches it (the control)...
    let outside = probe(["/opt/agentrun/computerd", "probe", "--connect", "127.0.0.1:2280"]);
    for (let i = 0; i < 20 && outside.reached.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 250));
      outside = probe(["/opt/agentrun/computerd", "probe", "--connect", "127.0.0.1:2280"]);
    }
    expect(outside.reached).toEqual(["127.0.0.1:2280"]);
    // ...and a program of the computer's user does not.
    const connection = await provider.connect(made.value);
    if (!connection.ok) throw new Error(connection.error.message);
    const run = await connection.value.client.call("exec.run", {
      argv: ["/opt/agentrun/computerd", "probe", "--connect", "127.0.0.1:2280", "--connect", "[::1]:2280"],
      timeoutMs: 30_000,
    });
    const inside = JSON.parse(text(run.stdout)) as { reached: string[]; accepted: string[]; interfaces: string[]; results: Array<{ outcome: string }> };
    expect(inside.interfaces).toEqual(["lo"]);
    expect(inside.results.map((r) => r.outcome)).toEqual(["refused", "refused"]);
    await connection.value.close();
    expect(await provider.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
  }, 120_000);
});
