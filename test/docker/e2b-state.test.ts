// E2B's state at the wire, through the real `e2b` SDK: a pause keeps memory (a counting process
// counts on from where it stopped after resume), a paused computer reads back paused and is not
// connected to, and a snapshot (E2B's createSnapshot; the fake commits the sandbox's files) forks
// computers that hold its files and do not see each other's writes. Each refusal names its field
// and makes nothing. A take for an owner adopts what an interrupted take of that owner left. Every sandbox and snapshot is removed after each, pass or fail (wires()).
import { describe, expect, it } from "vitest";
import type { Connection } from "../../src/contract/provider.js";
import type { ComputerSpec } from "../../src/contract/provider.js";
import { OWNER_LABEL, ownerLabel } from "../../src/contract/labels.js";
import { orThrow } from "../../src/daemon/result.js";
import { wires } from "../support/e2b-wire-helpers.js";
import { snapshotName } from "../../src/e2b/state.js";
import { snapshotImage } from "../../src/contract/state.js";

/** What the fake's own calls take as the connection (it checks none). */
const conn = { apiKey: "e2b_wire", debug: false, domain: "e2b.app", apiUrl: "https://api.e2b.app" } as const;

const wire = wires();
const spec = (extra: Partial<ComputerSpec> = {}): ComputerSpec => ({ image: "base", kind: "linux", lifetimeMs: 600_000, network: "none", ...extra });

async function sh(connection: Connection, script: string): Promise<string> {
  const ran = await connection.client.call("exec.run", { argv: ["sh", "-c", script], timeoutMs: 20_000 });
  const out = Buffer.from(ran.stdout, "base64").toString("utf8");
  if (ran.exitCode !== 0) throw new Error(`${script} exited ${ran.exitCode}: ${out}${Buffer.from(ran.stderr, "base64").toString("utf8")}`);
  return out.trim();
}

/** The counter and its pid, read as one. */
const COUNT = "cat /work/count.pid; cat /work/count";

describe("E2B's state at the wire", () => {
  it("a pause keeps memory: read back paused, connect refused, and after resume the same process counts on from where it stopped", async () => {
    const { provider, server } = await wire();
    const ref = orThrow(await provider.create(spec()));
    expect(provider.capabilities()).toMatchObject({ pause: "memory", snapshot: true });
    const before = orThrow(await provider.connect(ref));
    // Its count is held in the shell's memory alone: a process started again would count from 1.
    await before.client.call("process.start", {
      argv: ["sh", "-c", "echo $$ > /work/count.pid; i=0; while :; do i=$((i+1)); echo $i > /work/count; sleep 0.1; done"],
    });
    await new Promise((r) => setTimeout(r, 1500));
    const [pid0, count0] = (await sh(before, COUNT)).split("\n").map(Number) as [number, number];
    const counted = Date.now();
    await before.close();
    orThrow(await provider.pause!.pause(ref));
    const pausedAt = Date.now();
    expect(server.methods()).toContain("POST /sandboxes/{sandboxID}/pause");
    const read = orThrow(await provider.read!({ id: ref.id }));
    expect(read).toMatchObject({ state: "paused", drift: [] });
    expect(orThrow(await provider.list())[0]).toMatchObject({ state: "paused" });
    const refused = await provider.connect(ref);
    expect(refused).toMatchObject({ ok: false, error: { code: "unsupported" } });
    expect(refused.ok ? "" : refused.error.message).toMatch(/is paused, not running: .*E2B's connect would resume it.*resume it first/);
    expect(orThrow(await provider.read!({ id: ref.id })).state).toBe("paused");
    // A pause of a paused computer is ok.
    orThrow(await provider.pause!.pause(ref));
    await new Promise((r) => setTimeout(r, 2000));
    const resumeAt = Date.now();
    const resumed = orThrow(await provider.pause!.resume(ref));
    expect(resumed).toMatchObject({ id: ref.id, name: ref.name, hello: { version: provider.version } });
    expect(server.calls.filter((c) => c === "POST /v2/sandboxes/{sandboxID}/connect").length).toBeGreaterThan(0);
    const after = orThrow(await provider.connect(resumed));
    const [pid1, count1] = (await sh(after, COUNT)).split("\n").map(Number) as [number, number];
    const running = Date.now() - counted - (resumeAt - pausedAt);
    await new Promise((r) => setTimeout(r, 1000));
    const [pid2, count2] = (await sh(after, COUNT)).split("\n").map(Number) as [number, number];
    await after.close();
    expect([pid1, pid2]).toEqual([pid0, pid0]);
    // Counted on from where it stopped (not from 1), at most a step a tenth of a second of the time
    // it ran (none of the 2 s and more it was paused), and counting still.
    expect(count1).toBeGreaterThanOrEqual(count0);
    expect(count1 - count0).toBeLessThanOrEqual(Math.ceil(running / 100) + 1);
    expect(count2).toBeGreaterThan(count1);
    expect(orThrow(await provider.read!({ id: ref.id }))).toMatchObject({ state: "running", drift: [] });
    // Resuming a running computer is ok.
    expect(orThrow(await provider.pause!.resume(ref)).id).toBe(ref.id);
    orThrow(await provider.release(ref, "delete"));
  }, 240_000);

  it("a snapshot forks computers holding its files (content, owner, mode); two forks do not see each other's writes; it is read back and removed", async () => {
    const { provider, server } = await wire();
    const parent = orThrow(await provider.create(spec()));
    const conn = orThrow(await provider.connect(parent));
    await conn.client.call("files.write", { path: "/work/prepared.txt", data: Buffer.from("prepared once").toString("base64"), mode: 0o640 });
    await conn.close();
    const owner = "stack-folder/urn:pulumi:dev::task::agentrun:index:ComputerSnapshot::prepared";
    const snapshot = orThrow(await provider.snapshots!.take(parent, { owner }));
    expect(snapshot).toMatchObject({
      image: expect.stringMatching(/^snapshot:\/\/e2b\/wire\/agentrun-[0-9a-f]{12}-[0-9a-f]{32}-[0-9a-z]+-[0-9a-f]{4}:default$/),
      computer: parent.name,
      labels: { "agentrun.snapshot": "1", [OWNER_LABEL]: ownerLabel(owner)[OWNER_LABEL] },
    });
    expect(Math.abs(Date.parse(snapshot.takenAt) - Date.now())).toBeLessThan(60_000);
    expect(orThrow(await provider.snapshots!.read(snapshot.image))).toEqual(snapshot);
    // The parent goes on after its snapshot, and goes; the snapshot outlives it.
    orThrow(await provider.release(parent, "delete"));
    const forks = [orThrow(await provider.create(spec({ image: snapshot.image }))), orThrow(await provider.create(spec({ image: snapshot.image })))];
    expect(forks[0]!.spec).toMatchObject({ image: snapshot.image });
    const [a, b] = [orThrow(await provider.connect(forks[0]!)), orThrow(await provider.connect(forks[1]!))];
    try {
      for (const c of [a, b]) expect(await sh(c, "stat -c '%u:%g %a' /work/prepared.txt; cat /work/prepared.txt")).toBe("2510:2510 640\nprepared once");
      await sh(a, "echo only-a > /work/mine.txt");
      expect(await sh(b, "test -e /work/mine.txt && echo there || echo absent")).toBe("absent");
      expect(await sh(a, "cat /work/mine.txt")).toBe("only-a");
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    for (const fork of forks) expect(orThrow(await provider.read!({ id: fork.id }))).toMatchObject({ state: "running", drift: [] });
    for (const fork of forks) orThrow(await provider.release(fork, "delete"));
    orThrow(await provider.snapshots!.remove(snapshot.image));
    expect(server.methods()).toEqual(expect.arrayContaining(["POST /sandboxes/{sandboxID}/snapshots", "GET /snapshots", "DELETE /templates/{templateID}"]));
    expect(await provider.snapshots!.read(snapshot.image)).toMatchObject({ ok: false, error: { code: "not_found" } });
    // Removed already: ok.
    expect(await provider.snapshots!.remove(snapshot.image)).toEqual({ ok: true, value: undefined });
    expect(await server.fake.snapshots.images()).toEqual([]);
  }, 300_000);

  it("refusals name their field and make nothing: another provider's snapshot, a gone computer's snapshot or pause, labels E2B cannot hold, release stop", async () => {
    const { provider, server, fake } = await wire();
    const other = await provider.create(spec({ image: "snapshot://docker/sha256:0123" }));
    expect(other).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(JSON.stringify(other)).toMatch(/image snapshot:\/\/docker\/sha256:0123 is a snapshot taken on docker, which a computer on e2b cannot start from/);
    expect(server.calls).toEqual([]);
    const ref = orThrow(await provider.create(spec()));
    const labelled = await provider.snapshots!.take(ref, { labels: { team: "a" } });
    expect(labelled).toMatchObject({ ok: false, error: { code: "unsupported", field: "labels" } });
    expect(await provider.release(ref, "stop")).toMatchObject({ ok: false, error: { code: "unsupported", field: "how" } });
    orThrow(await provider.release(ref, "delete"));
    expect(await provider.snapshots!.take(ref)).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(await provider.pause!.pause(ref)).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(await provider.pause!.resume(ref)).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(server.methods()).not.toContain("POST /sandboxes/{sandboxID}/snapshots");
    expect(await fake.snapshots.images()).toEqual([]);
    expect(await provider.snapshots!.read("snapshot://docker/sha256:0123")).toMatchObject({
      ok: false,
      error: { code: "invalid", field: "image" },
    });
  }, 240_000);

  it("a take for an owner adopts what an interrupted take of that owner left (the newest) and deletes the older; another owner's stays", async () => {
    const { provider, server, fake } = await wire();
    const ref = orThrow(await provider.create(spec()));
    const owner = "stack-folder/urn:pulumi:dev::task::agentrun:index:ComputerSnapshot::prepared";
    // Two takes of this owner whose answers the stack never recorded (its plugin killed), and one of another owner.
    const name = (agoMs: number) => snapshotName(ref.name, owner, Date.now() - agoMs);
    const older = await fake.createSnapshot(ref.id, { ...conn, name: name(60_000) });
    const newer = await fake.createSnapshot(ref.id, { ...conn, name: name(30_000) });
    const others = orThrow(await provider.snapshots!.take(ref, { owner: `${owner}-other` }));
    const takes = server.calls.filter((c) => c === "POST /sandboxes/{sandboxID}/snapshots").length;

    const left = orThrow(await provider.snapshots!.take(ref, { owner }));
    expect(left.image).toBe(snapshotImage("e2b", newer.snapshotId));
    expect(server.calls.filter((c) => c === "POST /sandboxes/{sandboxID}/snapshots")).toHaveLength(takes);
    expect(await provider.snapshots!.read(snapshotImage("e2b", older.snapshotId))).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(orThrow(await provider.snapshots!.read(others.image))).toEqual(others);
    for (const s of [left, others]) orThrow(await provider.snapshots!.remove(s.image));
    orThrow(await provider.release(ref, "delete"));
    expect(await fake.snapshots.images()).toEqual([]);
  }, 240_000);

  it("a take whose answer is lost after E2B made the snapshot fails unreachable, and the snapshot is found by its name and deleted", async () => {
    const { provider, server, fake } = await wire();
    const ref = orThrow(await provider.create(spec()));
    server.fail("POST /sandboxes/{sandboxID}/snapshots", { lost: true });
    const taken = await provider.snapshots!.take(ref);
    expect(taken).toMatchObject({ ok: false, error: { code: "unreachable" } });
    expect(taken.ok ? "" : taken.error.message).toMatch(/wire\/agentrun-[0-9a-f-]+[0-9a-z-]+:default was deleted/);
    expect(server.calls.filter((c) => c === "POST /sandboxes/{sandboxID}/snapshots")).toHaveLength(1);
    expect(await fake.snapshots.images()).toEqual([]);
    orThrow(await provider.release(ref, "delete"));
  }, 240_000);
});
