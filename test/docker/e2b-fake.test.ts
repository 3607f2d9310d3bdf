// The E2B provider against the Docker-backed fake of its SDK slice (test/support/fake-e2b-docker.ts):
// real root containers with a stand-in envd on 49983, so the upload, install, init, bridge, drift
// checks, probe and release run unchanged against real processes.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { create } from "../../src/e2b/create.js";
import { orThrow } from "../../src/daemon/result.js";
import { useE2BFake } from "../support/e2b-helpers.js";
import { toolchain } from "../support/toolchain.js";

const KEY = `e2b_test_${process.pid}`;
const fake = useE2BFake(KEY);
const provider = () => create({ sdk: fake, apiKey: KEY, daemonPath: toolchain().daemon.amd64, timeouts: { pollMs: 100 } });
const spec = { image: "base", kind: "linux" as const, lifetimeMs: 600_000, network: "none" as const, labels: { "agentrun.test": "e2b-fake" } };

describe("E2B against the Docker-backed fake", () => {
  it("create, connect, exec, files, attach, list, extend and release; nothing is left", async () => {
    const p = provider();
    const ref = orThrow(await p.create(spec));
    try {
      expect(ref.name).toMatch(/^computer-[0-9a-f]{12}$/);
      expect(ref.spec).toMatchObject({ image: "base", network: "none", user: "2510:2510", workdir: "/work", kind: "linux" });
      const conn = orThrow(await p.connect(ref));
      try {
        const run = await conn.client.call("exec.run", { argv: ["sh", "-c", "id -u; pwd"], timeoutMs: 10_000 });
        expect(Buffer.from(run.stdout, "base64").toString()).toBe("2510\n/work\n");
        await conn.client.call("files.write", { path: "/work/hello.txt", data: Buffer.from("hi from e2b").toString("base64") });
        const read = await conn.client.call("files.read", { path: "/work/hello.txt" });
        expect(Buffer.from(read.data, "base64").toString()).toBe("hi from e2b");
        // A second connection at once is served by the same daemon.
        const other = orThrow(await p.connect(ref));
        expect(await other.client.call("ping", {})).toBeDefined();
        await other.close();
      } finally {
        await conn.close();
      }
      expect(orThrow(await p.attach({ id: ref.name })).id).toBe(ref.id);
      const listed = orThrow(await p.list({ "agentrun.test": "e2b-fake" }));
      expect(listed.map((c) => c.ref.id)).toEqual([ref.id]);
      expect(listed[0]).toMatchObject({ state: "running", network: "none" });
      expect(orThrow(await p.network(ref))).toBe("none");
      expect((await p.network(ref, "open")).ok).toBe(false);
      expect(await p.release(ref, "stop")).toMatchObject({ ok: false, error: { code: "unsupported" } });
      // extend: E2B's timer first, then init's deadline, to the same time.
      const extended = orThrow(await p.extend(ref, 1_200_000));
      expect(Math.abs(Date.parse(extended.deadline) - (Date.now() + 1_200_000))).toBeLessThan(15_000);
      const after = orThrow(await p.list({ "agentrun.test": "e2b-fake" }));
      expect(Math.abs(after[0]!.deadline!.getTime() - Date.parse(extended.deadline))).toBeLessThan(2_000);
      expect(await p.extend(ref, 10_000)).toMatchObject({ ok: false, error: { code: "limit" } });
    } finally {
      expect(await p.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    }
    expect(await fake.containers()).toEqual([]);
    expect((await p.attach({ id: ref.id })).ok).toBe(false);
  }, 240_000);

  it("a program of the computer's user reaches the stand-in envd on neither loopback, nor the container's address", async () => {
    const p = provider();
    const ref = orThrow(await p.create(spec));
    try {
      const address = await fake.address(ref.id);
      expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      // Control: root outside init's namespace does reach it.
      const control = execFileSync("docker", ["exec", ref.id, "/opt/agentrun/computerd", "probe", "--connect", "127.0.0.1:49983"]).toString();
      expect(JSON.parse(control).reached).toEqual(["127.0.0.1:49983"]);
      const conn = orThrow(await p.connect(ref));
      try {
        const targets = ["127.0.0.1:49983", "[::1]:49983", `${address}:49983`];
        const run = await conn.client.call("exec.run", {
          argv: ["/opt/agentrun/computerd", "probe", ...targets.flatMap((t) => ["--connect", t])],
          timeoutMs: 30_000,
        });
        const line = JSON.parse(Buffer.from(run.stdout, "base64").toString());
        expect(line.interfaces).toEqual(["lo"]);
        expect(line.reached).toEqual([]);
        expect(line.results.map((r: { outcome: string }) => r.outcome)).toEqual(["refused", "refused", "refused"]);
      } finally {
        await conn.close();
      }
    } finally {
      orThrow(await p.release(ref, "delete"));
    }
  }, 240_000);

  it("envd killed mid-create (at the upload) leaves nothing, and says so", async () => {
    const p = provider();
    fake.onUpload = async (id) => {
      fake.onUpload = undefined;
      await fake.killAgent(id);
    };
    try {
      const made = await p.create(spec);
      expect(made.ok).toBe(false);
      expect(made.ok ? "" : made.error.message).toMatch(/was killed|not found/);
    } finally {
      fake.onUpload = undefined;
    }
    expect(await fake.containers()).toEqual([]);
  }, 240_000);

  it("a create whose answer comes after its bound is given up on, and the sandbox it made is killed", async () => {
    const p = create({ sdk: fake, apiKey: KEY, daemonPath: toolchain().daemon.amd64, timeouts: { pollMs: 100, createMs: 1_000 } });
    fake.createDelayMs = 8_000;
    try {
      const made = await p.create(spec);
      expect(made).toMatchObject({ ok: false, error: { code: "timeout" } });
      expect(made.ok ? "" : made.error.message).toMatch(/was killed/);
    } finally {
      fake.createDelayMs = 0;
    }
    expect(await fake.containers()).toEqual([]);
  }, 240_000);

  it("a paused computer is refused by connect without resuming it", async () => {
    const p = provider();
    const ref = orThrow(await p.create(spec));
    try {
      const conn = { apiKey: KEY, domain: "e2b.app", apiUrl: "https://api.e2b.app", debug: false } as const;
      expect(await fake.pause(ref.id, conn)).toBe(true);
      expect(await p.connect(ref)).toMatchObject({ ok: false, error: { code: "unsupported" } });
      expect((await fake.getInfo(ref.id, conn)).state).toBe("paused");
      expect(orThrow(await p.list({ "agentrun.test": "e2b-fake" }))[0]!.state).toBe("paused");
    } finally {
      orThrow(await p.release(ref, "delete"));
    }
  }, 240_000);
});
