// The Daytona provider against the fake (test/support/fake-daytona.ts): a real HTTP server on the
// loopback whose sandboxes are real root containers with a stand-in toolbox on 2280, so the
// provider's HTTP, upload, install, session bridge and drift checks run unchanged.
import { beforeAll, describe, expect, it } from "vitest";
import { create } from "../../src/daytona/create.js";
import type { DaytonaProvider } from "../../src/daytona/provider.js";
import { orThrow } from "../../src/daemon/result.js";
import { useDaytonaFake } from "../support/daytona-helpers.js";
import { toolchain } from "../support/toolchain.js";

const KEY = `fake-key-${process.pid}`;
const held = useDaytonaFake(KEY);
let provider: DaytonaProvider;

beforeAll(() => {
  provider = create({ apiKey: KEY, apiUrl: held.fake.apiUrl, daemonPath: toolchain().daemon.amd64, pollMs: 100 });
});

const spec = { image: "default", lifetimeMs: 600_000, network: "none" as const, labels: { "agentrun.test": "daytona-fake" } };

describe("Daytona against the fake", () => {
  it("create, connect, exec, files and release; nothing is left", async () => {
    const ref = orThrow(await provider.create(spec));
    try {
      expect(ref.name).toMatch(/^computer-[0-9a-f]{12}$/);
      expect(ref.spec).toMatchObject({ image: "default", network: "none", user: "2510:2510", workdir: "/work" });
      const conn = orThrow(await provider.connect(ref));
      try {
        const run = await conn.client.call("exec.run", { argv: ["sh", "-c", "id -u; pwd"], timeoutMs: 10_000 });
        expect(Buffer.from(run.stdout, "base64").toString()).toBe("2510\n/work\n");
        await conn.client.call("files.write", { path: "/work/hello.txt", data: Buffer.from("hi from daytona").toString("base64") });
        const read = await conn.client.call("files.read", { path: "/work/hello.txt" });
        expect(Buffer.from(read.data, "base64").toString()).toBe("hi from daytona");
        // A second connection at once is served by the same daemon.
        const other = orThrow(await provider.connect(ref));
        expect(await other.client.call("ping", {})).toBeDefined();
        await other.close();
      } finally {
        await conn.close();
      }
      const attached = orThrow(await provider.attach({ id: ref.name }));
      expect(attached.id).toBe(ref.id);
      const listed = orThrow(await provider.list({ "agentrun.test": "daytona-fake" }));
      expect(listed.map((c) => c.ref.id)).toEqual([ref.id]);
      expect(listed[0]!.state).toBe("running");
      expect(orThrow(await provider.network(ref))).toBe("none");
      const open = await provider.network(ref, "open");
      expect(open.ok).toBe(false);
    } finally {
      expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    }
    expect(held.fake.sandboxes.size).toBe(0);
    expect((await provider.attach({ id: ref.id })).ok).toBe(false);
  }, 180_000);

  it("a program of the computer's user reaches the stand-in toolbox on neither loopback, nor the container's address", async () => {
    const ref = orThrow(await provider.create(spec));
    try {
      const s = held.fake.sandboxes.get(ref.id)!;
      const { execFileSync } = await import("node:child_process");
      const address = execFileSync("docker", ["exec", s.container, "sh", "-c", "hostname -I | cut -d' ' -f1"]).toString().trim();
      expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      // Control: root outside init's namespace does reach the stand-in.
      const control = execFileSync("docker", ["exec", s.container, "/opt/agentrun/computerd", "probe", "--connect", "127.0.0.1:2280"]).toString();
      expect(JSON.parse(control).reached).toEqual(["127.0.0.1:2280"]);
      const conn = orThrow(await provider.connect(ref));
      try {
        const targets = ["127.0.0.1:2280", "[::1]:2280", `${address}:2280`];
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
      orThrow(await provider.release(ref, "delete"));
    }
  }, 180_000);

  it("a daemon path another user could write (/opt group-writable) is refused in words, with nothing installed or left", async () => {
    const { execFileSync } = await import("node:child_process");
    let installed = "";
    held.fake.onUpload = async (s) => {
      execFileSync("docker", ["exec", s.container, "chmod", "775", "/opt"]);
      held.fake.onUpload = undefined;
    };
    held.fake.onDelete = async (s) => {
      held.fake.onDelete = undefined;
      installed = execFileSync("docker", ["exec", s.container, "sh", "-c", "ls -A /opt/agentrun; ls -A /tmp; echo read-before-delete"]).toString();
    };
    const made = await provider.create(spec);
    expect(made.ok).toBe(false);
    if (!made.ok) {
      expect(made.error.code).toBe("refused");
      expect(made.error.message).toMatch(/the daemon was not installed: \/opt reads drwxrwxr-x/);
    }
    expect(installed).toMatch(/read-before-delete/);
    expect(installed).not.toMatch(/computerd/);
    expect(held.fake.sandboxes.size).toBe(0);
  }, 180_000);

  it("a runner whose root may not make a network namespace fails closed: init refuses in words, and create deletes the sandbox", async () => {
    held.fake.unprivilegedNext = true;
    const made = await provider.create(spec);
    expect(made.ok).toBe(false);
    if (!made.ok) {
      expect(made.error.code).toBe("refused");
      expect(made.error.message).toMatch(/init said: .*own-network/);
      expect(made.error.message).toMatch(/was deleted/);
    }
    expect(held.fake.sandboxes.size).toBe(0);
    expect(await held.fake.containers()).toEqual([]);
  }, 180_000);

  it("network(ref, none) narrows a computer made open before the loopback block, and a change Daytona refuses is refused in its words", async () => {
    const made = await fetch(`${held.fake.apiUrl}/sandbox`, {
      method: "POST",
      headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "computer-0000000000aa", labels: { "agentrun.computer": "1" }, networkBlockAll: false, ttlMinutes: 10 }),
    }).then((r) => r.json() as Promise<{ id: string; name: string }>);
    const ref = { id: made.id, name: made.name, provider: "daytona" };
    try {
      expect(orThrow(await provider.network(ref))).toBe("open");
      held.fake.networkFrozen = true;
      const refused = await provider.network(ref, "none");
      expect(refused).toMatchObject({ ok: false, error: { code: "refused", field: "network" } });
      if (!refused.ok) expect(refused.error.message).toMatch(/stays "open": the change to none was refused \(.*Tier 1 and 2 cannot override/);
      held.fake.networkFrozen = false;
      held.fake.networkSkewOnce = true;
      const skewed = await provider.network(ref, "none");
      if (skewed.ok) throw new Error("a skewed change was taken");
      expect(skewed.error.message).toMatch(
        /read back \{"other":"block-all with an allowlist"\} after the change to none .*it was put back, and the change is refused/,
      );
      expect(orThrow(await provider.network(ref))).toBe("open");
      expect(orThrow(await provider.network(ref, "none"))).toBe("none");
      expect(orThrow(await provider.network(ref))).toBe("none");
    } finally {
      held.fake.networkFrozen = false;
      orThrow(await provider.release(ref, "delete"));
    }
  }, 180_000);

  it("the toolbox killed mid-create leaves nothing", async () => {
    let killed = false;
    held.fake.once("upload", (id: string) => void held.fake.killAgent(id).then(() => (killed = true)));
    const made = await provider.create(spec);
    expect(killed).toBe(true);
    expect(made.ok).toBe(false);
    if (!made.ok) expect(made.error.message).toMatch(/was deleted/);
    expect(held.fake.sandboxes.size).toBe(0);
    expect(await held.fake.containers()).toEqual([]);
  }, 180_000);
});
