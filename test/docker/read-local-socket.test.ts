// A read on an engine of this machine reaches init's socket through the computer's own root in
// /proc, with no exec; a link a program of the computer puts in the socket's place, or a pid that
// is not the container's, never points it anywhere else, and the read takes the bridge as before.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Asked, DockerEngine } from "../../src/docker/api.js";
import { inspect } from "../../src/docker/containers.js";
import { openLocalConnection } from "../../src/docker/local-socket.js";
import type { ComputerRef } from "../../src/contract/provider.js";
import { cleanup, docker, plantHostSocketLink, provider, spec, testLabel } from "../support/docker-helpers.js";

const made = cleanup("all");

/** A provider whose engine counts the execs it is asked to make. */
function counting() {
  const asked: Asked[] = [];
  const docker_ = provider({ engine: new DockerEngine(undefined, (a) => asked.push(a)) });
  return { docker_, execs: () => asked.filter((a) => a.method === "POST" && /\/exec$/.test(a.path)).length };
}

describe("a read over init's socket from this machine", () => {
  let ref: ComputerRef;
  let other: ComputerRef;
  let dir: string;
  beforeAll(async () => {
    const p = provider();
    const [a, b] = await Promise.all([p.create(spec({ labels: testLabel() })), p.create(spec({ labels: testLabel() }))]);
    if (!a.ok) throw new Error(a.error.message);
    made.track(a.value.name);
    if (!b.ok) throw new Error(b.error.message);
    made.track(b.value.name);
    ref = a.value;
    other = b.value;
    dir = mkdtempSync(path.join(tmpdir(), "agentrun-host-socket-"));
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("asks the engine for no exec, and reads the computer as declared with its daemon's hello", async () => {
    const { docker_, execs } = counting();
    const read = await docker_.read({ id: ref.name });
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.drift).toEqual([]);
    expect(read.value.hello).toMatchObject({ version: docker_.version, os: "linux", kind: "linux" });
    expect(execs()).toBe(0);
  });

  it("still reads /work's mode from inside: one opened to others is drift", async () => {
    docker("exec", ref.name, "chmod", "0755", "/work");
    try {
      const { docker_, execs } = counting();
      const read = await docker_.read({ id: ref.name });
      expect(read.ok && read.value.drift).toContain("/work reads mode 0755 from inside, not 0700: it is the user's alone");
      expect(execs()).toBe(0);
    } finally {
      docker("exec", ref.name, "chmod", "0700", "/work");
    }
  });

  it("never follows a link put in the socket's place to a socket of this machine's: the read takes the bridge", async () => {
    const planted = await plantHostSocketLink(ref.name, dir);
    try {
      const { docker_, execs } = counting();
      const read = await docker_.read({ id: ref.name });
      expect(planted.reached()).toBe(0);
      expect(execs()).toBe(1);
      // The bridge, inside the computer, finds no daemon at the link either: it did not answer.
      expect(read.ok && read.value.drift.join("; ")).toMatch(new RegExp(`the daemon in ${ref.name} did not answer hello`));
    } finally {
      await planted.undo();
    }
    const again = await counting().docker_.read({ id: ref.name });
    expect(again.ok && again.value.drift).toEqual([]);
  });

  it("takes no way in through a pid that is not the container's", async () => {
    const engine = new DockerEngine();
    try {
      const mine = await inspect(engine, ref.id, {});
      const theirs = await inspect(engine, other.id, {});
      if (!mine.ok || !theirs.ok) throw new Error("inspect failed");
      // This computer's id with the other's init: its cgroup names the other container.
      const crossed = { ...mine.value, State: { ...mine.value.State, Pid: theirs.value.State?.Pid ?? 0 } };
      expect(await openLocalConnection(engine.address, crossed)).toBeUndefined();
      const own = await openLocalConnection(engine.address, mine.value);
      expect(own?.ok).toBe(true);
      if (own?.ok) await own.value.close();
    } finally {
      await engine.close();
    }
  });

  it("takes no way in for an engine on another host", async () => {
    const engine = new DockerEngine();
    try {
      const mine = await inspect(engine, ref.id, {});
      if (!mine.ok) throw new Error("inspect failed");
      const remote = { kind: "ssh" as const, host: "engine.example", ssh: ["ssh"], address: "ssh://engine.example", from: "a test" };
      expect(await openLocalConnection(remote, mine.value)).toBeUndefined();
    } finally {
      await engine.close();
    }
  });
});
