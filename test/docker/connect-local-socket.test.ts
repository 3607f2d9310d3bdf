// Every connection of the provider's (create's verify, connect, a pool's claim) reaches init's
// socket from this machine with no exec (and no attach) when the engine is on this machine, and
// takes frames there; an engine reached as another host's (ssh, here a stand-in for ssh's hop in
// front of the same engine) takes the bridge as before. A link a program of the computer puts in
// the socket's place never reaches a socket of this machine's: connect then takes the bridge. (A
// claim on such an engine takes the computer's own stdio: test/docker/pool-claim.test.ts.)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Asked, DockerEngine } from "../../src/docker/api.js";
import type { ComputerRef } from "../../src/contract/provider.js";
import { claim, fillPool, POOL_LABEL } from "../../src/fleet/pool.js";
import { cleanup, docker, engineViaSsh, plantHostSocketLink, provider, spec, testLabel, withLabel } from "../support/docker-helpers.js";

const made = cleanup("all");
const dir = mkdtempSync(path.join(tmpdir(), "agentrun-connect-local-"));
const label = testLabel();

/** A provider whose engine counts the execs and attaches it is asked for. */
function counting(address?: ConstructorParameters<typeof DockerEngine>[0]) {
  const asked: Asked[] = [];
  const docker_ = provider({ engine: new DockerEngine(address, (a) => asked.push(a)) });
  const count = (re: RegExp) => asked.filter((a) => a.method === "POST" && re.test(a.path)).length;
  return { docker_, execs: () => count(/\/exec$/), attaches: () => count(/\/attach$/), reset: () => (asked.length = 0) };
}

afterAll(() => {
  for (const name of withLabel(label)) docker("rm", "--force", "--volumes", name);
  rmSync(dir, { recursive: true, force: true });
});

describe("connections on an engine of this machine", () => {
  const local = counting();
  let ref: ComputerRef;
  beforeAll(async () => {
    const created = await local.docker_.create(spec({ labels: label }));
    if (!created.ok) throw new Error(created.error.message);
    ref = created.value;
    made.track(ref.name);
  }, 120_000);
  afterAll(() => local.docker_.close());

  it("create's verification asked for no exec and no attach", () => {
    expect(local.execs()).toBe(0);
    expect(local.attaches()).toBe(0);
  });

  it("connect asks for no exec, and the connection carries frames", async () => {
    local.reset();
    const connected = await local.docker_.connect(ref);
    expect(connected.ok).toBe(true);
    if (!connected.ok) return;
    try {
      expect(connected.value.client.framed).toBe(true);
      const ran = await connected.value.client.call("exec.run", { argv: ["sh", "-c", "id -u"] });
      expect(ran.exitCode).toBe(0);
      expect(local.execs()).toBe(0);
      expect(local.attaches()).toBe(0);
    } finally {
      await connected.value.close();
    }
  });

  it("a claim with no watch asks for no exec and no attach", async () => {
    const pool = { provider: local.docker_, id: `pool-${randomBytes(8).toString("hex")}` };
    const filled = await fillPool(pool, spec({ labels: { ...label, [POOL_LABEL]: pool.id } }), 1);
    expect(filled.ok).toBe(true);
    local.reset();
    const claimed = await claim(pool, { run: "connect-local", epoch: 1 });
    expect(claimed.ok).toBe(true);
    if (!claimed.ok) return;
    made.track(claimed.value.ref.name);
    try {
      expect(claimed.value.client.framed).toBe(true);
      expect((await claimed.value.client.call("exec.run", { argv: ["true"] })).exitCode).toBe(0);
      expect(local.execs()).toBe(0);
      expect(local.attaches()).toBe(0);
    } finally {
      await claimed.value.close();
      await local.docker_.release(claimed.value.ref, "delete");
    }
  }, 120_000);

  it("never follows a link put in the socket's place to a socket of this machine's: connect takes the bridge", async () => {
    const planted = await plantHostSocketLink(ref.name, dir);
    try {
      local.reset();
      const connected = await local.docker_.connect(ref);
      expect(planted.reached()).toBe(0);
      expect(local.execs()).toBe(1);
      // The bridge, inside the computer, finds no daemon at the link either.
      expect(connected.ok).toBe(false);
    } finally {
      await planted.undo();
    }
  }, 60_000);
});

describe("connections on an engine reached as another host's", () => {
  const remote = counting(engineViaSsh(dir));
  let ref: ComputerRef;
  beforeAll(async () => {
    const created = await remote.docker_.create(spec({ labels: label }));
    if (!created.ok) throw new Error(created.error.message);
    ref = created.value;
    made.track(ref.name);
  }, 120_000);
  afterAll(() => remote.docker_.close());

  it("create's verification took the bridge", () => {
    expect(remote.execs()).toBe(1);
  });

  it("connect takes the bridge", async () => {
    remote.reset();
    const connected = await remote.docker_.connect(ref);
    expect(connected.ok).toBe(true);
    if (connected.ok) await connected.value.close();
    expect(remote.execs()).toBe(1);
  });
});
