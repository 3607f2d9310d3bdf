// Daytona's state against the fake: a pause is its stop (disk kept, processes ended) read back as
// paused, told apart from a stop by hand by the label the pause writes; a resume is its start with
// the daemon started again; snapshots are its snapshot API (the fake's docker commit), and forks
// made from one hold its files and are independent; a take for an owner adopts what an interrupted
// take of that owner left. Each sandbox and snapshot is removed by its
// exact id, pass or fail; the fake's close fails the file if a container was left.
import { beforeAll, describe, expect, it } from "vitest";
import { create } from "../../src/daytona/create.js";
import type { DaytonaProvider } from "../../src/daytona/provider.js";
import type { ComputerRef, Connection } from "../../src/contract/provider.js";
import { orThrow } from "../../src/daemon/result.js";
import { OWNER_LABEL, ownerLabel } from "../../src/contract/labels.js";
import { useDaytonaFake } from "../support/daytona-helpers.js";
import { toolchain } from "../support/toolchain.js";

const KEY = `fake-key-${process.pid}`;
const held = useDaytonaFake(KEY);
let provider: DaytonaProvider;

beforeAll(() => {
  provider = create({ apiKey: KEY, apiUrl: held.fake.apiUrl, daemonPath: toolchain().daemon.amd64, pollMs: 100 });
});

const spec = { image: "default", lifetimeMs: 600_000, network: "none" as const, labels: { "agentrun.test": "daytona-state" } };
const text = (b64: string) => Buffer.from(b64, "base64").toString();

async function sh(conn: Connection, script: string): Promise<string> {
  const ran = await conn.client.call("exec.run", { argv: ["sh", "-c", script], timeoutMs: 20_000 });
  return text(ran.stdout);
}

async function withConnection<T>(ref: ComputerRef, use: (conn: Connection) => Promise<T>): Promise<T> {
  const conn = orThrow(await provider.connect(ref));
  try {
    return await use(conn);
  } finally {
    await conn.close();
  }
}

describe("Daytona's pause and snapshots at the fake", () => {
  it("says what it keeps: a pause keeps the disk, and it takes snapshots; with autoDeleteMinutes 0 (a stop deletes) it has no pause", () => {
    expect(provider.capabilities()).toMatchObject({ pause: "disk", snapshot: true });
    expect(provider.pause?.keeps).toBe("disk");
    const deleting = create({ apiKey: KEY, apiUrl: held.fake.apiUrl, daemonPath: toolchain().daemon.amd64, autoDeleteMinutes: 0 });
    expect(deleting.capabilities().pause).toBeUndefined();
    expect(deleting.pause).toBeUndefined();
  });

  it("pause reads back paused, resume brings the daemon back with the file kept and the process ended; a stop by hand reads stopped", async () => {
    const ref = orThrow(await provider.create(spec));
    try {
      await withConnection(ref, (conn) => sh(conn, "echo kept > /work/kept.txt; nohup sleep 1000 >/dev/null 2>&1 & echo $! > /work/sleep.pid"));
      expect(await provider.pause!.pause(ref)).toEqual({ ok: true, value: undefined });
      const paused = orThrow(await provider.read({ id: ref.id }));
      expect(paused.state).toBe("paused");
      expect(paused.drift).toEqual([]);
      expect(paused.labels["agentrun.computer.paused"]).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(held.fake.sandboxes.get(ref.id)!.state).toBe("stopped");
      expect(orThrow(await provider.list({ "agentrun.test": "daytona-state" }))[0]!.state).toBe("paused");
      // A second pause of a paused computer is ok, and changes nothing.
      expect(await provider.pause!.pause(ref)).toEqual({ ok: true, value: undefined });
      const connected = await provider.connect(ref);
      expect(connected.ok).toBe(false);

      const resumed = orThrow(await provider.pause!.resume(ref));
      expect(resumed.id).toBe(ref.id);
      expect(resumed.hello?.version).toBe(provider.version);
      const after = orThrow(await provider.read({ id: ref.id }));
      expect(after.state).toBe("running");
      expect(after.drift).toEqual([]);
      expect(after.labels["agentrun.computer.paused"]).toBeUndefined();
      const seen = await withConnection(ref, (conn) =>
        sh(conn, 'cat /work/kept.txt; if kill -0 "$(cat /work/sleep.pid)" 2>/dev/null; then echo alive; else echo ended; fi; id -u'),
      );
      expect(seen).toBe("kept\nended\n2510\n");
      // A resume of a running computer is ok.
      expect(orThrow(await provider.pause!.resume(ref)).id).toBe(ref.id);

      // Stopped by hand (no pause's label): stopped, which a computer declared running reads as drift.
      orThrow(await provider.release(ref, "stop"));
      expect(orThrow(await provider.read({ id: ref.id })).state).toBe("stopped");
    } finally {
      expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    }
    expect(await provider.pause!.pause(ref)).toMatchObject({ ok: false, error: { code: "not_found" } });
  }, 300_000);

  it("a snapshot's forks hold its files with owner and mode, do not see each other's writes, and the snapshot is removed", async () => {
    const parent = orThrow(await provider.create(spec));
    const forks: ComputerRef[] = [];
    let image: string | undefined;
    try {
      const stat = "stat -c '%u:%g %a' /work/task/data.txt; cat /work/task/data.txt";
      const inParent = await withConnection(parent, (conn) =>
        sh(conn, `mkdir -p /work/task && echo prepared > /work/task/data.txt && chmod 640 /work/task/data.txt; ${stat}`),
      );
      expect(inParent).toBe("2510:2510 640\nprepared\n");
      const taken = orThrow(await provider.snapshots!.take(parent));
      image = taken.image;
      expect(taken.image).toMatch(new RegExp(`^snapshot://daytona/${parent.name}-snapshot-[0-9a-f]{12}$`));
      expect(taken.computer).toBe(parent.name);
      expect(taken.sizeBytes).toBeGreaterThan(0);
      expect(taken.labels).toEqual({ "agentrun.snapshot": "1" });
      expect(orThrow(await provider.snapshots!.read(taken.image))).toEqual(taken);

      for (let i = 0; i < 2; i += 1) forks.push(orThrow(await provider.create({ ...spec, image: taken.image })));
      for (const fork of forks) {
        const read = orThrow(await provider.read({ id: fork.id }));
        expect(read.drift).toEqual([]);
        expect(read.ref.spec?.image).toBe(taken.image);
        expect(await withConnection(fork, (conn) => sh(conn, stat))).toBe(inParent);
      }
      await withConnection(forks[0]!, (conn) => sh(conn, "echo mine > /work/task/only-in-first.txt"));
      expect(await withConnection(forks[1]!, (conn) => sh(conn, "ls /work/task"))).toBe("data.txt\n");

      expect(await provider.snapshots!.remove(taken.image)).toEqual({ ok: true, value: undefined });
      expect(await provider.snapshots!.read(taken.image)).toMatchObject({ ok: false, error: { code: "not_found" } });
      expect(await provider.snapshots!.remove(taken.image)).toEqual({ ok: true, value: undefined });
      image = undefined;
      expect(await held.fake.snapshots.images()).toEqual([]);
    } finally {
      if (image) await provider.snapshots!.remove(image);
      for (const ref of [...forks, parent]) expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    }
  }, 300_000);

  it("a take for an owner adopts what an interrupted take of that owner left (the newest) and removes the older; another owner's stays", async () => {
    const ref = orThrow(await provider.create(spec));
    const owner = "stack-folder/urn:pulumi:dev::task::agentrun:index:ComputerSnapshot::prepared";
    const hash = ownerLabel(owner)[OWNER_LABEL]!;
    const made: string[] = [];
    try {
      // Two takes of this owner whose answers the stack never recorded (its plugin killed), the older a minute before.
      const container = held.fake.sandboxes.get(ref.id)!.container;
      const names = ["000000000001", "000000000002"].map((hex) => `${ref.name}-snapshot-${hash}-${hex}`);
      for (const name of names) expect(held.fake.snapshots.take(container, ref.id, name)).toBeUndefined();
      made.push(...names.map((n) => `snapshot://daytona/${n}`));
      held.fake.snapshots.find(names[0]!)!.createdAt = new Date(Date.now() - 60_000).toISOString();
      await expect.poll(() => names.map((n) => held.fake.snapshots.find(n)?.state), { timeout: 60_000 }).toEqual(["active", "active"]);
      const others = orThrow(await provider.snapshots!.take(ref, { owner: `${owner}-other` }));
      made.push(others.image);

      const taken = orThrow(await provider.snapshots!.take(ref, { owner }));
      expect(taken.image).toBe(made[1]);
      expect(taken.labels).toEqual({ "agentrun.snapshot": "1", [OWNER_LABEL]: hash });
      expect(held.fake.snapshots.all.size).toBe(2);
      expect(await provider.snapshots!.read(made[0]!)).toMatchObject({ ok: false, error: { code: "not_found" } });
      expect(orThrow(await provider.snapshots!.read(others.image))).toEqual(others);
    } finally {
      for (const image of made) expect(await provider.snapshots!.remove(image)).toEqual({ ok: true, value: undefined });
      expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    }
    expect(await held.fake.snapshots.images()).toEqual([]);
  }, 300_000);

  it("refuses another provider's snapshot at check, a snapshot of a computer that is gone, and labels Daytona cannot keep; a take Daytona fails leaves nothing", async () => {
    const checked = provider.check({ ...spec, image: "snapshot://docker/sha256-0123" });
    expect(checked.ok).toBe(false);
    if (!checked.ok)
      expect(checked.error.message).toMatch(
        /image snapshot:\/\/docker\/sha256-0123 is a snapshot taken on docker, which a computer on daytona cannot start from/,
      );
    expect(provider.check({ ...spec, image: "snapshot://daytona/computer-000000000000-snapshot-000000000000" }).ok).toBe(true);

    const gone = await provider.snapshots!.take({ id: "no-such-sandbox", name: "computer-000000000000", provider: "daytona" });
    expect(gone).toMatchObject({ ok: false, error: { code: "not_found", field: "computer" } });
    expect(held.fake.snapshots.all.size).toBe(0);

    const ref = orThrow(await provider.create(spec));
    try {
      const labelled = await provider.snapshots!.take(ref, { labels: { team: "a" } });
      expect(labelled).toMatchObject({ ok: false, error: { code: "unsupported", field: "labels" } });
      held.fake.snapshots.failNext = true;
      const failed = await provider.snapshots!.take(ref);
      expect(failed).toMatchObject({ ok: false, error: { code: "failed" } });
      if (!failed.ok) expect(failed.error.message).toMatch(/Daytona reads it error \(the runner lost the snapshot\); what was begun was removed/);
      for (let i = 0; i < 50 && held.fake.snapshots.all.size > 0; i += 1) await new Promise((r) => setTimeout(r, 100));
      expect(held.fake.snapshots.all.size).toBe(0);
      expect(await held.fake.snapshots.images()).toEqual([]);
    } finally {
      expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    }
  }, 300_000);
});
