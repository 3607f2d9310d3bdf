// Abort, lifetime, the janitor, run epochs and the run folder on the real engine.
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DockerEngine } from "../../src/docker/api.js";
import { releaseOlder, sweep } from "../../src/fleet/janitor.js";
import { runLabels } from "../../src/contract/labels.js";
import type { ComputerRef } from "../../src/contract/provider.js";
import { cleanup, docker, engineViaSsh, provider, spec, testLabel, withLabel } from "../support/docker-helpers.js";

const made = cleanup();
const sshDir = mkdtempSync(path.join(tmpdir(), "agentrun-lifecycle-ssh-"));
afterAll(() => rmSync(sshDir, { recursive: true, force: true }));

function track(result: { ok: boolean; value?: ComputerRef }): ComputerRef {
  if (!result.ok || !result.value) throw new Error(JSON.stringify(result));
  made.track(result.value.name);
  return result.value;
}

describe("create aborted at each step leaves nothing", () => {
  it("before anything is made: aborted, nothing made, Docker asked nothing", async () => {
    const labels = testLabel();
    const calls: string[] = [];
    const docker_ = provider({ engine: new DockerEngine(undefined, (asked) => calls.push(asked.path)) });
    const result = await docker_.create(spec({ labels }), { signal: AbortSignal.abort() });
    if (result.ok) made.track(result.value.name);
    expect(result).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(calls).toEqual([]);
    expect(withLabel(labels)).toEqual([]);
  });

  // Each step by the Engine API call that begins it.
  const steps: Record<string, (path: string) => boolean> = {
    info: (path) => path === "/info",
    create: (path) => path === "/containers/create",
    start: (path) => /^\/containers\/[0-9a-f]{64}\/start$/.test(path),
    inspect: (path) => /^\/containers\/[0-9a-f]{64}\/json$/.test(path),
    exec: (path) => path.endsWith("/exec"),
    attach: (path) => /^\/exec\/[0-9a-f]+\/start$/.test(path),
  };
  it.each([
    ["during the host's read, before anything is made", "info", 0],
    ["while the container is made", "create", 0],
    ["while the container is made, a moment in", "create", 30],
    ["while it starts", "start", 0],
    ["after its start, during inspect", "inspect", 0],
    // The bridge is an engine elsewhere's way (here the same engine reached as another host's):
    // on this machine's engine create reaches init's socket with no exec.
    ["while the bridge is made, before hello", "exec", 0, true],
    ["while the bridge attaches, before hello", "attach", 0, true],
  ])(
    "%s: aborted, and the computer is removed",
    async (_when, step, delay, elsewhere = false) => {
      const labels = testLabel();
      const controller = new AbortController();
      const docker_ = provider({
        engine: new DockerEngine(elsewhere ? engineViaSsh(sshDir) : undefined, (asked) => {
          if (steps[step]!(asked.path)) setTimeout(() => controller.abort(), delay);
        }),
      });
      try {
        const result = await docker_.create(spec({ labels }), { signal: controller.signal });
        if (result.ok) made.track(result.value.name);
        expect(result).toMatchObject({ ok: false, error: { code: "aborted" } });
        expect(withLabel(labels)).toEqual([]);
      } finally {
        await docker_.close();
      }
    },
    30_000,
  );
});

describe("release asks the engine what the computer had", () => {
  it("a computer on network none is inspected and removed, and no listing looks for egress parts it never had", async () => {
    const labels = testLabel();
    const made_ = track(await provider().create(spec({ labels })));
    const calls: string[] = [];
    const docker_ = provider({ engine: new DockerEngine(undefined, (asked) => calls.push(`${asked.method} ${asked.path}`)) });
    try {
      expect(await docker_.release(made_, "delete")).toEqual({ ok: true, value: undefined });
    } finally {
      await docker_.close();
    }
    expect(calls).toEqual([`GET /containers/${made_.id}/json`, expect.stringMatching(/^DELETE \/containers\/[0-9a-f]{64}$/)]);
    expect(withLabel(labels)).toEqual([]);
  });
});

describe("lifetime and the janitor", () => {
  it("a computer of 10 s stops itself, list shows it stopped, and sweep deletes it", async () => {
    const docker_ = provider();
    const labels = testLabel();
    const ref = track(await docker_.create(spec({ labels, lifetimeMs: 10_000 })));
    const kept = await sweep(docker_, { labels });
    expect(kept).toEqual({ ok: true, value: { deleted: [], kept: 1 } });
    const deadline = Date.parse(ref.spec!.deadline!);
    let state = "running";
    while (Date.now() < deadline + 15_000) {
      const listed = await docker_.list(labels);
      state = listed.ok ? (listed.value[0]?.state ?? "gone") : "error";
      if (state === "stopped") break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(state).toBe("stopped");
    expect(Date.now()).toBeGreaterThanOrEqual(deadline);
    expect(docker("inspect", "--format", "{{.State.ExitCode}}", ref.name)).toBe("0");
    expect(await sweep(docker_, { labels })).toEqual({ ok: true, value: { deleted: [ref.name], kept: 0 } });
    expect(withLabel(labels)).toEqual([]);
  }, 60_000);

  it("a lifetime that ends before docker run finished fails create as timeout, with nothing left", async () => {
    const labels = testLabel();
    const result = await provider().create(spec({ labels, lifetimeMs: 1 }));
    if (result.ok) made.track(result.value.name);
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) {
      expect(result.error.code).toBe("timeout");
      expect(result.error.message).toMatch(/its lifetime of 0.001 s ended before docker run finished \(it took \d+(\.\d)? s\)/);
    }
    expect(withLabel(labels)).toEqual([]);
  }, 30_000);
});

describe("releaseOlder on Docker", () => {
  it("deletes epochs 1 and 2 of a run, keeps 3 and another run's, then is fenced at epoch 2", async () => {
    const docker_ = provider();
    const mark = testLabel();
    const run = `r-${mark["agentrun.test"]}`;
    const other = `o-${mark["agentrun.test"]}`;
    const [e1, e2, e3, o1] = (
      await Promise.all([
        docker_.create(spec({ labels: { ...mark, ...runLabels(run, 1) } })),
        docker_.create(spec({ labels: { ...mark, ...runLabels(run, 2) } })),
        docker_.create(spec({ labels: { ...mark, ...runLabels(run, 3) } })),
        docker_.create(spec({ labels: { ...mark, ...runLabels(other, 1) } })),
      ])
    ).map(track) as [ComputerRef, ComputerRef, ComputerRef, ComputerRef];

    const listed = await docker_.list({ "agentrun.run": run });
    expect(listed.ok && listed.value.map((i) => i.labels["agentrun.epoch"]).sort()).toEqual(["1", "2", "3"]);

    const older = await releaseOlder(docker_, run, 3);
    expect(older.ok).toBe(true);
    if (older.ok) {
      expect(older.value.released.sort()).toEqual([e1.name, e2.name].sort());
      expect(older.value.kept).toEqual([e3.name]);
      expect(older.value.unproven).toEqual([]);
    }
    expect(withLabel(mark).sort()).toEqual([e3.name, o1.name].sort());
    expect((await docker_.attach({ labels: runLabels(run, 3) })).ok).toBe(true);

    const fenced = await releaseOlder(docker_, run, 2);
    expect(fenced).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!fenced.ok) expect(fenced.error.message).toContain(`fenced: run "${run}" has ${e3.name} at epoch 3, above this claim's epoch 2`);
    expect(withLabel(mark).sort()).toEqual([e3.name, o1.name].sort());
  }, 60_000);
});

describe("a computer renamed by hand is still found by its labels", () => {
  it("releaseOlder releases one of an older epoch, and the janitor sweeps one past its deadline, whatever their names", async () => {
    const docker_ = provider();
    const mark = testLabel();
    const run = `renamed-${mark["agentrun.test"]}`;
    const [older, current] = (
      await Promise.all([
        docker_.create(spec({ labels: { ...mark, ...runLabels(run, 1) } })),
        docker_.create(spec({ labels: { ...mark, ...runLabels(run, 2) } })),
      ])
    ).map(track) as [ComputerRef, ComputerRef];
    const renamedOlder = made.track(`renamed-by-hand-${older.name}`);
    const renamedCurrent = made.track(`renamed-by-hand-${current.name}`);
    docker("rename", older.name, renamedOlder);
    docker("rename", current.name, renamedCurrent);

    const released = await releaseOlder(docker_, run, 2);
    expect(released).toEqual({ ok: true, value: { released: [renamedOlder], kept: [renamedCurrent], unproven: [] } });
    expect(withLabel(mark)).toEqual([renamedCurrent]);
    // An hour on, its deadline has passed: the sweep finds it by its label and deletes it by its id.
    const swept = await sweep(docker_, { labels: mark, now: new Date(Date.now() + 3_600_000) });
    expect(swept).toEqual({ ok: true, value: { deleted: [renamedCurrent], kept: 0 } });
    expect(withLabel(mark)).toEqual([]);
  }, 60_000);
});

describe("the run folder, bound at /workspace", () => {
  const root = mkdtempSync(path.join(tmpdir(), "agentrun-run-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("round-trips a file: written outside, read inside at /workspace, and back; attach and list read it back", async () => {
    const folder = path.join(root, "work");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(folder, { mode: 0o700 });
    chownSync(folder, 1000, 1000);
    writeFileSync(path.join(folder, "outside.txt"), "from the host\n");
    const docker_ = provider();
    const labels = testLabel();
    const ref = track(await docker_.create(spec({ labels, mount: { kind: "bind", path: folder } })));
    expect(ref.spec?.mount).toEqual({ kind: "bind", path: folder });
    const connected = await docker_.connect(ref);
    if (!connected.ok) throw new Error(connected.error.message);
    try {
      const client = connected.value.client;
      const read = await client.call("files.read", { path: "/workspace/outside.txt" });
      expect(Buffer.from(read.data, "base64").toString()).toBe("from the host\n");
      const ran = await client.call("exec.run", { argv: ["cat", "outside.txt"], cwd: "/workspace", timeoutMs: 10_000 });
      expect(Buffer.from(ran.stdout, "base64").toString()).toBe("from the host\n");
      await client.call("files.write", { path: "/workspace/inside.txt", data: Buffer.from("from the computer\n").toString("base64") });
    } finally {
      await connected.value.close();
    }
    expect(readFileSync(path.join(folder, "inside.txt"), "utf8")).toBe("from the computer\n");
    const attached = await docker_.attach({ id: ref.name });
    expect(attached.ok && attached.value.spec?.mount).toEqual({ kind: "bind", path: folder });
    const listed = await docker_.list(labels);
    expect(listed.ok && listed.value[0]?.mount).toEqual({ kind: "bind", path: folder });
  });

  it("refuses a folder the computer's user cannot write, before the container is made", async () => {
    const folder = mkdtempSync(path.join(root, "roots-"));
    const labels = testLabel();
    const calls: string[] = [];
    const result = await provider({ engine: new DockerEngine(undefined, (asked) => calls.push(asked.path)) }).create(
      spec({ labels, mount: { kind: "bind", path: folder } }),
    );
    expect(result).toMatchObject({ ok: false, error: { code: "refused", field: "mount" } });
    if (!result.ok)
      expect(result.error.message).toBe(
        `the run folder ${folder} is not writable by the computer's user 1000:1000: it is owned by 0:0 with mode 0700; give it to that user (chown 1000:1000, mode 0700) or ask for the user that owns it`,
      );
    expect(calls).toEqual(["/info"]);
    expect(withLabel(labels)).toEqual([]);
  });
});
