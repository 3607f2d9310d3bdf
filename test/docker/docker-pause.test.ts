// Pause and resume on the real engine: a paused computer's processes stop where they stood and go
// on after resume as the same processes with the same open files; read, list, attach and connect
// say paused without reaching the daemon; release removes a paused computer.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cleanup, docker, provider, spec, testLabel, withLabel } from "../support/docker-helpers.js";

const SMALL = { cpus: 0.5, memoryMb: 256, pids: 128 };

/** The counter's lines, as numbers, read as the computer's user from inside. */
async function counted(client: { call: (m: "exec.run", p: { argv: string[] }) => Promise<{ stdout: string }> }): Promise<number[]> {
  const ran = await client.call("exec.run", { argv: ["cat", "/tmp/count.log"] });
  return Buffer.from(ran.stdout, "base64").toString().split("\n").filter(Boolean).map(Number);
}

describe("pause and resume (Docker)", () => {
  const made = cleanup();
  const docker1 = provider();

  it("keeps a counting process and its open file; read, list, attach and connect say paused; resume answers with hello", async () => {
    const labels = testLabel();
    const ref = await docker1.create(spec({ labels, ...SMALL }));
    expect(ref.ok).toBe(true);
    if (!ref.ok) return;
    made.track(ref.value.name);
    expect(docker1.capabilities().pause).toBe("memory");
    const before = await docker1.connect(ref.value);
    if (!before.ok) throw new Error(before.error.message);
    // One process holding one file open for its whole life: its lines are 1, 2, 3, … with no restart.
    const started = await before.value.client.call("process.start", {
      argv: ["sh", "-c", "exec 3>/tmp/count.log; i=0; while true; do i=$((i+1)); echo $i >&3; sleep 0.1; done"],
    });
    await new Promise((r) => setTimeout(r, 800));
    await before.value.close();

    expect(await docker1.pause.pause(ref.value)).toEqual({ ok: true, value: undefined });
    expect(docker("inspect", "--format", "{{.State.Status}}", ref.value.name)).toBe("paused");
    // Paused twice is paused.
    expect((await docker1.pause.pause(ref.value)).ok).toBe(true);
    const read = await docker1.read({ id: ref.value.name });
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.state).toBe("paused");
    expect(read.value.hello).toBeUndefined();
    expect(read.value.drift).toEqual([]);
    const attached = await docker1.attach({ id: ref.value.name });
    expect(attached.ok && attached.value.hello).toBeUndefined();
    const listed = await docker1.list(labels);
    expect(listed.ok && listed.value.map((c) => c.state)).toEqual(["paused"]);
    const refused = await docker1.connect(ref.value);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.code).toBe("refused");
      expect(refused.error.message).toMatch(new RegExp(`${ref.value.name} is paused: .*resume it first`));
    }
    const pausedFor = 1500;
    await new Promise((r) => setTimeout(r, pausedFor));

    const resumed = await docker1.pause.resume(ref.value);
    expect(resumed.ok).toBe(true);
    if (!resumed.ok) return;
    expect(resumed.value.hello?.version).toBe(docker1.version);
    const after = await docker1.connect(ref.value);
    if (!after.ok) throw new Error(after.error.message);
    const lines = await counted(after.value.client);
    // The same process, the same open file: every number once, in order, from 1.
    expect(lines).toEqual(lines.map((_, i) => i + 1));
    // It stopped while paused: 800 ms and a moment of counting at 10 a second, not the pause's 1.5 s more.
    expect(lines.length).toBeLessThan((800 + pausedFor) / 100);
    const listedProcesses = await after.value.client.call("process.list", {});
    expect(listedProcesses.processes.find((p) => p.id === started.id)).toMatchObject({ running: true });
    await new Promise((r) => setTimeout(r, 500));
    expect((await counted(after.value.client)).length).toBeGreaterThan(lines.length);
    await after.value.close();
    // Resumed twice is running.
    expect((await docker1.pause.resume(ref.value)).ok).toBe(true);
    const back = await docker1.read({ id: ref.value.name });
    expect(back.ok && back.value.state).toBe("running");
  }, 180_000);

  it("release removes a paused computer; pause of one gone is not_found", async () => {
    const labels = testLabel();
    const ref = await docker1.create(spec({ labels, ...SMALL }));
    expect(ref.ok).toBe(true);
    if (!ref.ok) return;
    made.track(ref.value.name);
    expect((await docker1.pause.pause(ref.value)).ok).toBe(true);
    expect(await docker1.release(ref.value, "delete")).toEqual({ ok: true, value: undefined });
    expect(withLabel(labels)).toEqual([]);
    const gone = await docker1.pause.resume(ref.value);
    expect(!gone.ok && gone.error.code).toBe("not_found");
    const nobody = await docker1.pause.pause({ id: randomBytes(32).toString("hex"), name: "computer-000000000000", provider: "docker" });
    expect(!nobody.ok && nobody.error.code).toBe("not_found");
  }, 180_000);
});
