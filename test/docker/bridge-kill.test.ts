// A connection to a computer cut in the middle of a long exec.run and of a pushTar, by killing
// its bridge (the `computerd stdio` process the connection runs in the computer) from the host
// (the provider's engine reached as another host's, whose connections take the bridge):
// the caller gets an error naming the cause, the daemon ends the orphaned run, a new connection
// works, and no half-written file is left where a whole one was promised. Then the planted file
// content is found in none of the computer's labels or environment.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallError } from "../../src/daemon/client.js";
import { tarOf } from "../../src/conformance/tar.js";
import { pushTar, writeFile } from "../../src/daemon/files.js";
import type { ComputerRef, Connection } from "../../src/contract/provider.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DockerEngine } from "../../src/docker/api.js";
import { docker, engineViaSsh, provider, spec, testLabel } from "../support/docker-helpers.js";
import { until } from "../support/fault-helpers.js";
import { leaks, plant } from "../support/planted-secrets.js";

const planted = plant();
const sshDir = mkdtempSync(path.join(tmpdir(), "agentrun-bridge-kill-"));
const docker1 = provider({ engine: new DockerEngine(engineViaSsh(sshDir)) });
afterAll(async () => {
  await docker1.close();
  rmSync(sshDir, { recursive: true, force: true });
});

/** The host pids of the computer's bridges: `computerd stdio`, one per open connection. */
function bridges(name: string): number[] {
  const top = docker("top", name, "-eo", "pid,args");
  return top
    .split("\n")
    .slice(1)
    .filter((line) => / stdio\b/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Whether a process whose args hold this text runs in the computer. */
const runs = (name: string, text: string) =>
  docker("top", name, "-eo", "pid,args")
    .split("\n")
    .some((line) => line.includes(text));

describe("a connection cut by killing its bridge", () => {
  let ref: ComputerRef;

  beforeAll(async () => {
    const r = await docker1.create(spec({ labels: testLabel(), cpus: 1, memoryMb: 512, pids: 256 }));
    if (!r.ok) throw new Error(r.error.message);
    ref = r.value;
  }, 180_000);
  afterAll(() => {
    if (ref) execFileSync("docker", ["rm", "--force", "--volumes", ref.name], { stdio: "ignore" });
  });

  async function connect(): Promise<Connection> {
    const c = await docker1.connect(ref);
    if (!c.ok) throw new Error(c.error.message);
    return c.value;
  }

  it("in a long exec.run: the caller hears the connection ended, the run is ended, a new connection works", async () => {
    const before = new Set(bridges(ref.name));
    const c = await connect();
    const bridge = await until("the connection's bridge", async () => bridges(ref.name).find((p) => !before.has(p)));
    const call = c.client.call("exec.run", { argv: ["sleep", "3013"] });
    call.catch(() => undefined);
    await until("the run to start", async () => (runs(ref.name, "sleep 3013") ? true : undefined));
    process.kill(bridge, "SIGKILL");
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CallError);
    expect((error as CallError).kind).toBe("closed");
    expect((error as CallError).message).toMatch(/exec\.run got no reply: the connection to the daemon ended/);
    await until("the daemon to end the orphaned run", async () => (runs(ref.name, "sleep 3013") ? undefined : true), 60_000);
    await c.close();

    const again = await connect();
    const echoed = await again.client.call("exec.run", { argv: ["echo", "again"] });
    expect(Buffer.from(echoed.stdout, "base64").toString()).toBe("again\n");
    await again.close();
  }, 180_000);

  it("in a pushTar: the caller hears the connection ended, the whole file promised before stays whole, no half file", async () => {
    const c = await connect();
    const before = new Set(bridges(ref.name));
    // The file a whole one was promised at: written whole before the push.
    await c.client.call("files.mkdir", { path: "/work/dst", parents: true });
    const old = await writeFile(c.client, "/work/dst/promised.txt", new TextEncoder().encode("the whole old file\n"));
    expect(old.ok).toBe(true);
    await c.close();

    const d = await connect();
    const bridge = await until("the push connection's bridge", async () => bridges(ref.name).find((p) => !before.has(p)));
    const big = Buffer.alloc(16 * 1024 * 1024, `${planted.file}\n`);
    const archive = Buffer.from(tarOf([{ name: "promised.txt", type: "file", mode: 0o644, data: big }]));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // Half the archive, then the source waits: the push is cut while its file is half written.
    async function* source() {
      yield archive.subarray(0, 8 * 1024 * 1024);
      await gate;
      yield archive.subarray(8 * 1024 * 1024);
    }
    const push = pushTar(d.client, "/work/dst", source());
    await until(
      "the half-written file beside its target",
      async () => (/\.computerd-push-/.test(docker("exec", ref.name, "ls", "-a", "/work/dst")) ? true : undefined),
      60_000,
    );
    process.kill(bridge, "SIGKILL");
    open();
    const pushed = await push;
    expect(pushed.ok).toBe(false);
    expect(!pushed.ok && pushed.error.message).toMatch(/the connection to the daemon ended/);
    await d.close();

    const e = await connect();
    const listed = await until(
      "the cut push's half file to be gone",
      async () => {
        const names = docker("exec", ref.name, "ls", "-a", "/work/dst");
        return /\.computerd-push-/.test(names) ? undefined : names;
      },
      60_000,
    );
    expect(listed.split("\n").filter((n) => n !== "." && n !== "..")).toEqual(["promised.txt"]);
    const whole = await e.client.call("files.read", { path: "/work/dst/promised.txt" });
    expect(Buffer.from(whole.data, "base64").toString()).toBe("the whole old file\n");
    await e.close();
    expect(await leaks(planted, { files: [], texts: {}, containers: [ref.name] })).toEqual([]);
  }, 180_000);
});
