// Snapshots and forks on the real engine: a snapshot of a computer that wrote files, forks that
// have them (owner, mode, content) and do not see each other's writes, each read back with no
// drift; a secret the computer was given is nowhere in the snapshot's image; the refusals' words;
// a take cut off or killed leaves no image its owner does not know. Every computer is removed by
// its exact name and every image by its id, pass or fail.
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ownerLabels } from "../../src/contract/labels.js";
import { parseSnapshotImage } from "../../src/contract/state.js";
import type { ComputerRef } from "../../src/contract/provider.js";
import { cleanup, docker, provider, spec, testLabel, withLabel } from "../support/docker-helpers.js";

const SMALL = { cpus: 0.5, memoryMb: 256, pids: 128 };
const owner = () => `/stack/folder\0urn:pulumi:test::state::agentrun:index:ComputerSnapshot::s-${randomBytes(4).toString("hex")}`;

/** Images to remove by id, pass or fail. */
function images(): { track(image: string): string } {
  const ids = new Set<string>();
  afterEach(() => {
    // One already removed (by the test, or by a take) is fine.
    for (const id of ids) spawnSync("docker", ["rmi", "--force", id], { stdio: "ignore" });
    ids.clear();
  });
  const snapshot = (image: string) => parseSnapshotImage(image)?.id;
  return { track: (image) => (ids.add(snapshot(image) ? `sha256:${snapshot(image)}` : image), image) };
}

/** Images carrying a label, any. */
const imagesWith = (label: string) => docker("images", "--quiet", "--no-trunc", "--filter", `label=${label}`).split("\n").filter(Boolean);

async function run(p: ReturnType<typeof provider>, ref: ComputerRef, script: string): Promise<string> {
  const connection = await p.connect(ref);
  if (!connection.ok) throw new Error(connection.error.message);
  try {
    const ran = await connection.value.client.call("exec.run", { argv: ["sh", "-c", script], timeoutMs: 20_000 });
    return Buffer.from(ran.stdout, "base64").toString();
  } finally {
    await connection.value.close();
  }
}

describe("snapshots and forks (Docker)", () => {
  const made = cleanup();
  const taken = images();
  const docker1 = provider();

  it("a fork has the snapshot's files with their owner, mode and content; two forks do not see each other's writes", async () => {
    const labels = testLabel();
    const base = await docker1.create(spec({ labels, ...SMALL }));
    expect(base.ok ? "ok" : base.error.message).toBe("ok");
    if (!base.ok) return;
    made.track(base.value.name);
    await run(docker1, base.value, "mkdir -m 0750 /tmp/task && printf 'prepared\\n' > /tmp/task/file.txt && chmod 0640 /tmp/task/file.txt");
    // The home, a tmpfs the engine's commit cannot read, is held by the snapshot through the daemon.
    await run(docker1, base.value, "mkdir -m 0700 /work/task && printf 'notes\\n' > /work/task/notes.txt && chmod 0600 /work/task/notes.txt");
    const shot = await docker1.snapshots.take(base.value, { labels: { "task.kind": "demo" }, note: "a task prepared once" });
    expect(shot.ok ? "ok" : shot.error.message).toBe("ok");
    if (!shot.ok) return;
    taken.track(shot.value.image);
    expect(docker1.capabilities().snapshot).toBe(true);
    expect(shot.value.image).toMatch(/^snapshot:\/\/docker\/[0-9a-f]{64}$/);
    // Content-addressed: the id is the engine's own image id.
    expect(docker("image", "inspect", "--format", "{{.Id}}", `sha256:${parseSnapshotImage(shot.value.image)!.id}`)).toBe(
      `sha256:${parseSnapshotImage(shot.value.image)!.id}`,
    );
    expect(shot.value).toMatchObject({
      computer: base.value.name,
      labels: { "task.kind": "demo", "agentrun.snapshot": "1", "agentrun.snapshot.note": "a task prepared once" },
    });
    expect(shot.value.sizeBytes).toBeGreaterThan(0);
    expect(Date.parse(shot.value.takenAt)).toBeGreaterThan(Date.now() - 120_000);
    expect((await docker1.snapshots.read(shot.value.image)).ok).toBe(true);

    const forks: ComputerRef[] = [];
    for (let i = 0; i < 2; i += 1) {
      const fork = await docker1.create(spec({ image: shot.value.image, labels, ...SMALL }));
      expect(fork.ok ? "ok" : fork.error.message).toBe("ok");
      if (!fork.ok) return;
      made.track(fork.value.name);
      forks.push(fork.value);
    }
    const [one, two] = forks as [ComputerRef, ComputerRef];
    const uid = base.value.spec?.user;
    for (const fork of forks) {
      expect(await run(docker1, fork, "stat -c '%a %u:%g' /tmp/task /tmp/task/file.txt; cat /tmp/task/file.txt")).toBe(`750 ${uid}\n640 ${uid}\nprepared\n`);
      expect(await run(docker1, fork, "stat -c '%a %u:%g' /work /work/task /work/task/notes.txt; cat /work/task/notes.txt")).toBe(
        `700 ${uid}\n700 ${uid}\n600 ${uid}\nnotes\n`,
      );
      const read = await docker1.read({ id: fork.name });
      expect(read.ok ? "ok" : read.error.message).toBe("ok");
      if (!read.ok) return;
      expect(read.value.drift).toEqual([]);
      expect(read.value.ref.spec?.image).toBe(shot.value.image);
    }
    await run(docker1, one, "echo mine > /tmp/task/only-one; echo mine > /work/task/only-one");
    expect(await run(docker1, two, "ls /tmp/task")).toBe("file.txt\n");
    expect(await run(docker1, two, "ls /work/task")).toBe("notes.txt\n");
    expect(await run(docker1, base.value, "ls /tmp/task")).toBe("file.txt\n");

    // In use by a fork: refused, naming it; then removed once no computer uses it, and again is ok.
    const inUse = await docker1.snapshots.remove(shot.value.image);
    expect(inUse.ok).toBe(false);
    if (!inUse.ok) expect(inUse.error.message).toMatch(new RegExp(`in use by the computers? .*(${one.name}|${two.name})`));
    for (const fork of forks) expect((await docker1.release(fork, "delete")).ok).toBe(true);
    expect(await docker1.snapshots.remove(shot.value.image)).toEqual({ ok: true, value: undefined });
    const gone = await docker1.snapshots.read(shot.value.image);
    expect(!gone.ok && gone.error.code).toBe("not_found");
    expect((await docker1.snapshots.remove(shot.value.image)).ok).toBe(true);
    expect(withLabel(labels)).toEqual([base.value.name]);
  }, 300_000);

  it("holds no secret the computer was given, nor its deadline, in the image's config or its layer", async () => {
    const secret = `planted-${randomBytes(12).toString("hex")}`;
    const dir = mkdtempSync(path.join(tmpdir(), `state-${secret}-`));
    chownSync(dir, 1000, 1000);
    try {
      const labels = { ...testLabel(), "secret.label": secret };
      const base = await docker1.create(spec({ labels, ...SMALL, mount: { kind: "bind", path: dir } }));
      expect(base.ok ? "ok" : base.error.message).toBe("ok");
      if (!base.ok) return;
      made.track(base.value.name);
      await run(docker1, base.value, "echo kept > /tmp/kept.txt");
      const who = owner();
      const shot = await docker1.snapshots.take(base.value, { owner: who });
      expect(shot.ok ? "ok" : shot.error.message).toBe("ok");
      if (!shot.ok) return;
      taken.track(shot.value.image);
      const deadline = base.value.spec?.deadline ?? "";
      expect(deadline).not.toBe("");
      // The whole image as the engine saves it: its config, its history and every layer.
      const saved = execFileSync("docker", ["save", `sha256:${parseSnapshotImage(shot.value.image)!.id}`], { maxBuffer: 1 << 30 });
      expect(saved.includes(Buffer.from("kept\n"))).toBe(true);
      expect(saved.includes(Buffer.from(secret))).toBe(false);
      expect(saved.includes(Buffer.from(deadline))).toBe(false);
      expect(saved.includes(Buffer.from(who))).toBe(false);
      // The owner's labels, hashed, under the snapshot's own keys; no commit of the take is left.
      expect(shot.value.labels["agentrun.snapshot.owner"]).toBe(ownerLabels(who, {})["agentrun.owner"]);
      expect(imagesWith(`agentrun.snapshot.owner=${shot.value.labels["agentrun.snapshot.owner"]}`)).toEqual([
        `sha256:${parseSnapshotImage(shot.value.image)!.id}`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it("refuses, in words naming the field and making nothing: a computer gone, a container not ours, a run folder it would capture, a fork of another engine's or another provider's snapshot", async () => {
    const gone = await docker1.snapshots.take({ id: randomBytes(32).toString("hex"), name: "computer-0123456789ab", provider: "docker" });
    expect(!gone.ok && [gone.error.code, gone.error.field]).toEqual(["not_found", "computer"]);
    if (!gone.ok) expect(gone.error.message).toMatch(/computer-0123456789ab is gone from this Docker engine, so no snapshot of it was taken/);

    const name = `computer-${randomBytes(6).toString("hex")}`;
    made.track(name);
    docker("create", "--name", name, spec().image, "true");
    const before = docker("images", "--quiet").split("\n").length;
    const notOurs = await docker1.snapshots.take({ id: docker("inspect", "--format", "{{.Id}}", name), name, provider: "docker" });
    expect(!notOurs.ok && notOurs.error.field).toBe("computer");
    if (!notOurs.ok) expect(notOurs.error.message).toMatch(new RegExp(`${name} is not a computer \\(it has no agentrun.computer=1 label\\)`));

    const labels = testLabel();
    const base = await docker1.create(spec({ labels, ...SMALL }));
    expect(base.ok ? "ok" : base.error.message).toBe("ok");
    if (!base.ok) return;
    made.track(base.value.name);
    // The ref declares a run folder the container does not mount: its files would be in the commit.
    const captured = await docker1.snapshots.take({ ...base.value, spec: { ...base.value.spec!, mount: { kind: "bind", path: "/srv/run" } } });
    expect(!captured.ok && captured.error.field).toBe("computer");
    if (!captured.ok) expect(captured.error.message).toMatch(/run folder \/workspace is not a mount, so a snapshot would capture it; nothing was made/);
    const badLabel = await docker1.snapshots.take(base.value, { labels: { "agentrun.snapshot.note": "x" } });
    expect(!badLabel.ok && badLabel.error.field).toBe("labels");
    expect(docker("images", "--quiet").split("\n").length).toBe(before);

    const elsewhere = `snapshot://docker/${randomBytes(32).toString("hex")}`;
    const fork = await docker1.create(spec({ image: elsewhere, labels, ...SMALL }));
    expect(!fork.ok && [fork.error.code, fork.error.field]).toEqual(["not_found", "image"]);
    if (!fork.ok) expect(fork.error.message).toMatch(/is not on this Docker engine: it was taken on another engine, or removed/);
    const modal = docker1.check(spec({ image: "snapshot://modal/im-123" }));
    expect(!modal.ok && modal.error.field).toBe("image");
    if (!modal.ok) expect(modal.error.message).toMatch(/is a snapshot taken on modal, which a computer on docker cannot start from/);
    expect(withLabel(labels)).toEqual([base.value.name]);
  }, 300_000);

  it("a take cut off leaves nothing; one killed after its commit is cleared, and a whole one adopted, by the owner's next take", async () => {
    const labels = testLabel();
    const base = await docker1.create(spec({ labels, ...SMALL }));
    expect(base.ok ? "ok" : base.error.message).toBe("ok");
    if (!base.ok) return;
    made.track(base.value.name);
    const who = owner();
    const ownerHash = ownerLabels(who, {})["agentrun.owner"]!;
    // Aborted while the engine commits: no commit and no snapshot stays.
    const controller = new AbortController();
    const cut = docker1.snapshots.take(base.value, { owner: who, signal: controller.signal });
    setTimeout(() => controller.abort(), 30);
    const result = await cut;
    if (result.ok) taken.track(result.value.image);
    expect(result.ok ? "ok" : result.error.code).toMatch(/aborted|ok/);
    await new Promise((r) => setTimeout(r, 1500));
    expect(imagesWith(`agentrun.snapshot.part`).filter((id) => imagesWith(`agentrun.snapshot.owner=${ownerHash}`).includes(id))).toEqual([]);
    if (!result.ok) expect(imagesWith(`agentrun.snapshot.owner=${ownerHash}`)).toEqual([]);

    // A process killed after the commit leaves the commit (which holds the computer's config) behind.
    const left = docker("commit", "--change", `LABEL agentrun.snapshot.part=killed agentrun.snapshot.owner=${ownerHash}`, base.value.name);
    taken.track(left);
    const first = await docker1.snapshots.take(base.value, { owner: who, note: "n" });
    expect(first.ok ? "ok" : first.error.message).toBe("ok");
    if (!first.ok) return;
    taken.track(first.value.image);
    expect(imagesWith("agentrun.snapshot.part=killed")).toEqual([]);
    // Killed after the load: the same take again adopts what it made, and makes nothing more.
    const again = await docker1.snapshots.take(base.value, { owner: who, note: "n" });
    expect(again.ok && again.value.image).toBe(first.value.image);
    expect(imagesWith(`agentrun.snapshot.owner=${ownerHash}`)).toEqual([`sha256:${parseSnapshotImage(first.value.image)!.id}`]);
  }, 300_000);

  it("a take cut off once its image is loaded, as it reads it back, gives the snapshot whole: never a failure that leaves an image", async () => {
    const controller = new AbortController();
    // The cut lands after the take's last look at the signal, while it reads the image back.
    const late = provider({ pause: async (step) => void (step === "loaded" && setImmediate(() => controller.abort())) });
    const labels = testLabel();
    const base = await late.create(spec({ labels, ...SMALL }));
    expect(base.ok ? "ok" : base.error.message).toBe("ok");
    if (!base.ok) return;
    made.track(base.value.name);
    const who = owner();
    const ownerHash = ownerLabels(who, {})["agentrun.owner"]!;
    const result = await late.snapshots.take(base.value, { owner: who, signal: controller.signal });
    for (const id of imagesWith(`agentrun.snapshot.owner=${ownerHash}`)) taken.track(id);
    expect(controller.signal.aborted).toBe(true);
    expect(result.ok ? "ok" : result.error.message).toBe("ok");
    expect(imagesWith(`agentrun.snapshot.owner=${ownerHash}`)).toEqual([`sha256:${parseSnapshotImage(result.ok ? result.value.image : "")?.id}`]);
  }, 300_000);
});
