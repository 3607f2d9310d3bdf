// Warm pools on the real Docker engine: a pool of ten filled, fifty claims racing for it (ten win,
// each a different computer; the rest are told the pool is empty), a claimed computer connected
// and carrying its run's labels so list, releaseOlder and the sweep treat it as the run's, a
// refill, and a drain; a PoolWatch's claim with no connect, and a claim with no watch over the
// computer's own stdio, with no exec, where init's socket is not reached from this machine (the
// engine reached as another host's; test/docker/connect-local-socket.test.ts has the claim there). Everything is removed at the end by the pool's label, which
// only this test's computers carry, and each claim record by its exact name.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { releaseOlder, sweep } from "../../src/fleet/janitor.js";
import { RUN_LABEL, runLabels } from "../../src/contract/labels.js";
import { DockerEngine, type Asked } from "../../src/docker/api.js";
import { claim, drainPool, fillPool, POOL_LABEL, poolReady, PoolWatch, type Claimed } from "../../src/fleet/pool.js";
import { docker, engineViaSsh, provider, spec, withLabel } from "../support/docker-helpers.js";

const SIZE = 10;

describe("a warm pool of ten on Docker", () => {
  const docker_ = provider();
  const pool = { provider: docker_, id: `pool-${randomBytes(8).toString("hex")}` };
  const run = `pool-test-${randomBytes(4).toString("hex")}`;
  const claimed: Claimed[] = [];
  /** The epoch each won claim was made at. */
  const epochs = new Map<string, number>();
  const atEpoch = (e: number) =>
    claimed
      .filter((c) => epochs.get(c.ref.id) === e)
      .map((c) => c.ref.name)
      .sort();

  beforeAll(async () => {
    const filled = await fillPool(pool, spec({ memoryMb: 128, cpus: 0.5, pids: 128 }), SIZE);
    expect(filled.ok ? filled.value : filled.error).toHaveLength(SIZE);
  }, 600_000);

  afterAll(async () => {
    for (const c of claimed) await c.close().catch(() => {});
    const ids = withLabel({ [POOL_LABEL]: pool.id }).map((name) => docker("inspect", "--format", "{{.Id}}", name));
    const names = withLabel({ [POOL_LABEL]: pool.id });
    if (names.length) docker("rm", "--force", "--volumes", ...names);
    for (const id of ids) docker("volume", "rm", "--force", `agentrun-claim-${id}`);
    await docker_.engine.close();
  }, 300_000);

  test("fill makes ten ready computers, each running with the pool's label and a ready name", async () => {
    const ready = await poolReady(pool);
    expect(ready.ok && ready.value.map((r) => r.name).every((n) => /^pool-[0-9a-f]{12}$/.test(n))).toBe(true);
    expect(ready.ok && ready.value.length).toBe(SIZE);
  });

  test("fifty claims racing: ten win, each a different computer; the others are told the pool is empty", async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => claim(pool, { run, epoch: 1 + (i % 2) })));
    const won: Claimed[] = [];
    results.forEach((r, i) => {
      if (!r.ok) return;
      won.push(r.value);
      epochs.set(r.value.ref.id, 1 + (i % 2));
    });
    claimed.push(...won);
    expect(won).toHaveLength(SIZE);
    expect(new Set(won.map((c) => c.ref.id)).size).toBe(SIZE);
    for (const r of results)
      if (!r.ok) expect(r.error).toMatchObject({ code: "not_found", message: expect.stringMatching(/^pool pool-[0-9a-f]+ has no ready computer/) });
    const ready = await poolReady(pool);
    expect(ready.ok && ready.value).toEqual([]);
  }, 300_000);

  test("a claimed computer is connected, named as a computer, and its run's by list", async () => {
    const c = claimed[0]!;
    expect(c.ref.name).toMatch(/^computer-[0-9a-f]{12}$/);
    const ran = await c.client.call("exec.run", { argv: ["sh", "-c", "echo claimed"] });
    expect(Buffer.from(ran.stdout, "base64").toString()).toBe("claimed\n");
    const listed = await docker_.list({ [RUN_LABEL]: run });
    expect(listed.ok && listed.value.map((i) => i.ref.id).sort()).toEqual(claimed.map((x) => x.ref.id).sort());
    const one = listed.ok ? listed.value.find((i) => i.ref.id === c.ref.id) : undefined;
    expect(one?.labels).toMatchObject({ [RUN_LABEL]: run, [POOL_LABEL]: pool.id });
  });

  test("releaseOlder at epoch 2 releases the claims at epoch 1 and keeps those at 2, claim records and all", async () => {
    const older = await releaseOlder(docker_, run, 2);
    expect(older.ok).toBe(true);
    if (!older.ok) return;
    expect([...older.value.released].sort()).toEqual(atEpoch(1));
    expect([...older.value.kept].sort()).toEqual(atEpoch(2));
    const records = docker("volume", "ls", "--quiet", "--filter", "label=agentrun.computer.claim").split("\n");
    for (const name of older.value.released) expect(withLabel({ [POOL_LABEL]: pool.id })).not.toContain(name);
    const releasedIds = claimed.filter((c) => older.value.released.includes(c.ref.name)).map((c) => c.ref.id);
    for (const id of releasedIds) expect(records).not.toContain(`agentrun-claim-${id}`);
  }, 120_000);

  test("the sweep with the run's labels, past their deadline, deletes the run's claimed computers", async () => {
    const swept = await sweep(docker_, { labels: runLabels(run, 2), now: new Date(Date.now() + 700_000) });
    expect(swept.ok && [...swept.value.deleted].sort()).toEqual(atEpoch(2));
    const left = await docker_.list({ [RUN_LABEL]: run });
    expect(left.ok && left.value).toEqual([]);
  }, 120_000);

  test("the next fill refills the pool to its size, and a drain to 0 releases the ready ones", async () => {
    const refilled = await fillPool(pool, spec({ memoryMb: 128, cpus: 0.5, pids: 128 }), 2);
    expect(refilled.ok && refilled.value).toHaveLength(2);
    const drained = await drainPool(pool, 0);
    expect(drained.ok && drained.value).toHaveLength(2);
    expect(withLabel({ [POOL_LABEL]: pool.id })).toEqual([]);
  }, 300_000);
});

describe("a PoolWatch: a service's own bridges to a pool's ready computers", () => {
  const asked: Asked[] = [];
  const docker_ = provider({ engine: new DockerEngine(undefined, (a) => asked.push(a)) });
  const pool = { provider: docker_, id: `pool-${randomBytes(8).toString("hex")}` };
  const run = `pool-watch-${randomBytes(4).toString("hex")}`;
  const watch = new PoolWatch(pool, { connections: 3, everyMs: 60_000 });
  const claimed: Claimed[] = [];

  beforeAll(async () => {
    const filled = await fillPool(pool, spec({ memoryMb: 128, cpus: 0.5, pids: 128 }), 3);
    expect(filled.ok ? filled.value : filled.error).toHaveLength(3);
    await watch.look();
  }, 300_000);

  afterAll(async () => {
    await watch.close();
    for (const c of claimed) await c.close().catch(() => {});
    const names = withLabel({ [POOL_LABEL]: pool.id });
    const ids = names.map((name) => docker("inspect", "--format", "{{.Id}}", name));
    if (names.length) docker("rm", "--force", "--volumes", ...names);
    for (const id of ids) docker("volume", "rm", "--force", `agentrun-claim-${id}`);
    await docker_.engine.close();
  }, 300_000);

  test("holds a bridge to each ready computer", () => {
    expect(
      watch
        .held()
        .map((r) => r.name)
        .every((n) => /^pool-[0-9a-f]{12}$/.test(n)),
    ).toBe(true);
    expect(watch.held()).toHaveLength(3);
  });

  test("a claim through it takes a held computer with no connect: a rename and a record, then the bridge works", async () => {
    asked.length = 0;
    const c = await claim(watch, { run, epoch: 1 });
    expect(c.ok).toBe(true);
    if (!c.ok) return;
    claimed.push(c.value);
    const calls = asked.map((a) => `${a.method} ${a.path.replace(/[0-9a-f]{64}|(pool|computer)-[0-9a-f]{12}/g, "<c>")}`);
    expect(calls.slice(0, 2)).toEqual(["POST /containers/<c>/rename", "POST /volumes/create"]);
    expect(calls.filter((x) => x.endsWith("/exec"))).toEqual([]);
    const ran = await c.value.client.call("exec.run", { argv: ["sh", "-c", "echo warm"] });
    expect(Buffer.from(ran.stdout, "base64").toString()).toBe("warm\n");
  }, 60_000);

  test("a computer another claimer took is dropped at the next look, its bridge closed", async () => {
    const other = await claim(pool, { run, epoch: 1 });
    expect(other.ok).toBe(true);
    if (other.ok) claimed.push(other.value);
    await watch.look();
    const held = watch.held().map((r) => r.id);
    expect(held).toHaveLength(1);
    expect(held).not.toContain(other.ok ? other.value.ref.id : "");
  }, 60_000);
});

describe("a claim with no watch on an engine of another host: the computer's own stdio, with no exec", () => {
  const asked: Asked[] = [];
  const sshDir = mkdtempSync(join(tmpdir(), "pool-stdio-"));
  const docker_ = provider({ engine: new DockerEngine(engineViaSsh(sshDir), (a) => asked.push(a)) });
  const pool = { provider: docker_, id: `pool-${randomBytes(8).toString("hex")}` };
  const run = `pool-stdio-${randomBytes(4).toString("hex")}`;
  const claimed: Claimed[] = [];
  const scripts: string[] = [];

  /** What the engine reports it did to a container between two times (its own record: exec_create, attach, ...). */
  const actions = async (id: string, since: number, until: number): Promise<string[]> => {
    const filters = JSON.stringify({ container: [id], type: ["container"] });
    const read = await docker_.engine.raw("GET", "/events", { query: { since: since / 1000, until: until / 1000, filters }, timeoutMs: 10_000 });
    expect(read.ok).toBe(true);
    return (read.value ?? Buffer.alloc(0))
      .toString("utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => String((JSON.parse(line) as { Action?: string }).Action).split(":")[0]!);
  };

  beforeAll(async () => {
    const filled = await fillPool(pool, spec({ memoryMb: 128, cpus: 0.5, pids: 128 }), 1);
    expect(filled.ok ? filled.value : filled.error).toHaveLength(1);
  }, 300_000);

  afterAll(async () => {
    for (const c of claimed) await c.close().catch(() => {});
    const names = withLabel({ [POOL_LABEL]: pool.id });
    const ids = names.map((name) => docker("inspect", "--format", "{{.Id}}", name));
    if (names.length) docker("rm", "--force", "--volumes", ...names);
    for (const id of ids) docker("volume", "rm", "--force", `agentrun-claim-${id}`);
    for (const s of [...scripts, sshDir]) rmSync(s, { recursive: true, force: true });
    await docker_.close();
  }, 300_000);

  test("a pool's computer is made with its stdin open for one attach, no log kept, and init serving it", async () => {
    const [name] = withLabel({ [POOL_LABEL]: pool.id });
    const made = JSON.parse(docker("inspect", "--format", "{{json .}}", name!)) as {
      Config: { OpenStdin: boolean; StdinOnce: boolean; Cmd: string[] };
      HostConfig: { LogConfig: { Type: string } };
    };
    expect(made.Config).toMatchObject({ OpenStdin: true, StdinOnce: true });
    expect(made.Config.Cmd.at(-1)).toBe("--stdio");
    expect(made.HostConfig.LogConfig.Type).toBe("none");
  });

  test("the claim attaches and makes no exec in the computer (the engine's own events say so); a second client comes through the bridge and shares its processes", async () => {
    asked.length = 0;
    const since = Date.now() - 50;
    const c = await claim(pool, { run, epoch: 1 });
    expect(c.ok ? c.value.ref.name : c.error).toMatch(/^computer-[0-9a-f]{12}$/);
    if (!c.ok) return;
    claimed.push(c.value);
    const started = await c.value.client.call("process.start", { argv: ["sleep", "780.6161"] });
    const ran = await c.value.client.call("exec.run", { argv: ["sh", "-c", "echo attached"] });
    expect(Buffer.from(ran.stdout, "base64").toString()).toBe("attached\n");
    await new Promise((r) => setTimeout(r, 1_100));
    const claimActions = await actions(c.value.ref.id, since, Date.now());
    expect(claimActions).toContain("attach");
    expect(claimActions.filter((a) => a === "exec_create")).toEqual([]);
    expect(asked.filter((a) => a.path.endsWith("/exec"))).toEqual([]);

    const secondSince = Date.now() - 50;
    const second = await docker_.connect(c.value.ref);
    expect(second.ok).toBe(true);
    if (!second.ok) return;
    const listed = await second.value.client.call("process.list", {});
    expect(listed.processes.map((p) => p.pid)).toContain(started.pid);
    await second.value.close();
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await actions(c.value.ref.id, secondSince, Date.now())).filter((a) => a === "exec_create")).toHaveLength(1);
  }, 120_000);

  test("the claim's client closed, later clients still connect through the bridge", async () => {
    const c = claimed[0]!;
    await c.close();
    const again = await docker_.connect(c.ref);
    expect(again.ok).toBe(true);
    if (!again.ok) return;
    const ran = await again.value.client.call("exec.run", { argv: ["true"] });
    expect(ran.exitCode).toBe(0);
    await again.value.close();
  }, 60_000);

  test.each([
    [
      "refuses to start says why: its words come on the attach made before its start",
      "echo 'computerd init: refusing, for the test' >&2\nexit 1",
      /was not running after its start \(exit code 1: computerd init: refusing, for the test\); it was removed$/,
    ],
    // As a stop of the engine under a create ends it.
    [
      "ends 0 at once says it was stopped, naming Docker",
      "exit 0",
      /was not running after its start \(exit code 0: its init was stopped, as docker stop or the Docker engine stopping does\); it was removed$/,
    ],
  ])(
    "a pool's computer whose init %s",
    async (_, body, words) => {
      const dir = mkdtempSync(join(tmpdir(), "refusing-init-"));
      scripts.push(dir);
      const script = join(dir, "computerd");
      writeFileSync(script, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
      const refusing = provider({ daemonPath: script });
      const made = await refusing.create(spec({ labels: { [POOL_LABEL]: pool.id } }));
      await refusing.engine.close();
      expect(made.ok ? made.value : made.error).toMatchObject({ code: "failed", message: expect.stringMatching(words) });
    },
    120_000,
  );
});
