// create on the real engine: every hardening flag read back by docker inspect, and from inside
// the computer every capability set zero and NoNewPrivs 1; connect, attach, list, network and
// release on the same computer, one group to a test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerRef, Connection } from "../../src/contract/provider.js";
import { cleanup, docker, IMAGE, provider, spec, testLabel, withLabel } from "../support/docker-helpers.js";

const made = cleanup();

function text(b64: string): string {
  return Buffer.from(b64, "base64").toString("utf8");
}

describe("a Docker computer, made here", () => {
  // One computer made with the defaults, shared by the tests of this block: each reads one group
  // of what the spec says of it (the hardening flags in docker inspect, then from inside), and the
  // last two release it. Removed by its exact name after the block, pass or fail.
  describe("made once with the defaults", () => {
    const kept = cleanup("all");
    const docker_ = provider();
    const labels = testLabel();
    let ref: ComputerRef;
    let host: Record<string, unknown>;
    let config: Record<string, unknown>;
    beforeAll(async () => {
      const result = await docker_.create(spec({ labels }));
      if (result.ok) kept.track(result.value.name);
      expect(result.ok, JSON.stringify(result)).toBe(true);
      if (!result.ok) return;
      ref = result.value;
      const [inspected] = JSON.parse(docker("inspect", ref.name)) as Array<{ HostConfig: Record<string, unknown>; Config: Record<string, unknown> }>;
      host = inspected!.HostConfig;
      config = inspected!.Config;
    });

    it("is named computer-<12 hex> and its spec read back with the provider's defaults", () => {
      expect(ref.name).toMatch(/^computer-[0-9a-f]{12}$/);
      expect(ref.spec).toMatchObject({
        image: IMAGE,
        user: "1000:1000",
        network: "none",
        cpus: 2,
        memoryMb: 4096,
        pids: 1024,
        workdir: "/work",
        kind: "linux",
      });
    });

    it("inspect: every capability dropped, none added, not privileged, no new privileges", () => {
      expect(host.CapDrop).toEqual(["ALL"]);
      expect(host.CapAdd).toBeNull();
      expect(host.Privileged).toBe(false);
      expect(host.SecurityOpt).toEqual(["no-new-privileges"]);
    });

    it("inspect: IPC and cgroup namespaces private, network none", () => {
      expect(host.IpcMode).toBe("private");
      expect(host.CgroupnsMode).toBe("private");
      expect(host.NetworkMode).toBe("none");
    });

    it("inspect: CPU quota, memory and swap, pids bounded to the spec", () => {
      expect(host.CpuPeriod).toBe(100000);
      expect(host.CpuQuota).toBe(200000);
      expect(host.Memory).toBe(4096 * 1024 * 1024);
      expect(host.MemorySwap).toBe(4096 * 1024 * 1024);
      expect(host.PidsLimit).toBe(1024);
    });

    it("inspect: restart policy no", () => {
      expect(host.RestartPolicy).toMatchObject({ Name: "no" });
    });

    it("inspect: /run/agentrun and /work are tmpfs with their options", () => {
      expect(host.Tmpfs).toEqual({
        "/run/agentrun": "uid=1000,gid=1000,mode=0700,noexec,nosuid,nodev,size=1m",
        "/work": "uid=1000,gid=1000,mode=0700,exec,nosuid,nodev,size=2048m",
      });
    });

    it("inspect: the daemon is the one mount, bound read-only from the cache", () => {
      expect(host.Mounts).toEqual([
        expect.objectContaining({
          Type: "bind",
          Target: "/opt/agentrun/computerd",
          ReadOnly: true,
          Source: expect.stringMatching(/\/computerd-[0-9a-f]{64}$/),
        }),
      ]);
    });

    it("inspect: computerd init with its deadline as the user in /work, labelled, HOME=/work", () => {
      expect(config).toMatchObject({
        User: "1000:1000",
        WorkingDir: "/work",
        Entrypoint: ["/opt/agentrun/computerd"],
        Cmd: ["init", "--deadline", ref.spec!.deadline],
        Labels: expect.objectContaining({ "agentrun.computer": "1", "agentrun.computer.deadline": ref.spec!.deadline, ...labels }),
      });
      expect(config.Env).toContain("HOME=/work");
    });

    describe("from inside", () => {
      let connection: Connection;
      let lines: string[];
      beforeAll(async () => {
        const connected = await docker_.connect(ref);
        expect(connected.ok).toBe(true);
        if (!connected.ok) return;
        connection = connected.value;
        const ran = await connection.client.call("exec.run", {
          argv: [
            "sh",
            "-c",
            "id -u; id -g; grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status; stat -c '%a %u:%g' /work /run/agentrun; echo $HOME; pwd; cat /proc/1/cmdline | tr '\\0' ' '",
          ],
          timeoutMs: 10_000,
        });
        lines = text(ran.stdout).trim().split("\n");
      });
      afterAll(async () => {
        await connection?.close();
      });

      it("its user has a name (agent, home /work), so a shell never says it has none", async () => {
        const ran = await connection.client.call("exec.run", { argv: ["sh", "-c", "id -un; id -gn; getent passwd 1000 | cut -d: -f6"], timeoutMs: 10_000 });
        expect(text(ran.stdout).trim().split("\n")).toEqual(["agent", "agent", "/work"]);
      });

      it("is called by its computer's name: the hostname is the computer's", async () => {
        const ran = await connection.client.call("exec.run", { argv: ["hostname"], timeoutMs: 10_000 });
        expect(text(ran.stdout).trim()).toBe(ref.name);
      });

      it("says hello as this provider's daemon", () => {
        expect(connection.hello).toMatchObject({ version: docker_.version, os: "linux", kind: "linux", arch: "amd64" });
      });

      it("runs as 1000:1000 with every capability set zero and NoNewPrivs 1", () => {
        expect(lines.slice(0, 2)).toEqual(["1000", "1000"]);
        for (const set of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) expect(lines).toContain(`${set}:\t0000000000000000`);
        expect(lines).toContain("NoNewPrivs:\t1");
      });

      it("has /work and /run/agentrun the user's alone, HOME and the working folder /work, and computerd init as PID 1", () => {
        // /work and /run/agentrun, each the user's alone (init narrows /work: see src/docker/home.ts)
        expect(lines.filter((l) => l === "700 1000:1000")).toHaveLength(2);
        expect(lines).toContain("/work");
        expect(lines.at(-1)).toBe(`/opt/agentrun/computerd init --deadline ${ref.spec!.deadline}`);
      });

      it("cannot write the daemon, and / is not the user's", async () => {
        const denied = await connection.client.call("exec.run", {
          argv: ["sh", "-c", "echo x > /opt/agentrun/computerd; echo x > /etc/x"],
          timeoutMs: 10_000,
        });
        expect(text(denied.stderr)).toMatch(/Read-only file system|Permission denied/);
        expect(denied.exitCode).not.toBe(0);
      });
    });

    it("reads its network back as none, and refuses to open it", async () => {
      expect(await docker_.network(ref)).toEqual({ ok: true, value: "none" });
      expect(await docker_.network(ref, "none")).toEqual({ ok: true, value: "none" });
      const moved = await docker_.network(ref, "open");
      expect(moved).toMatchObject({ ok: false, error: { code: "unsupported" } });
      expect(docker("inspect", "--format", "{{.HostConfig.NetworkMode}}", ref.name)).toBe("none");
    });

    it("is attached by its name, its id and its labels", async () => {
      const attached = await docker_.attach({ id: ref.name });
      expect(attached).toEqual({ ok: true, value: ref });
      expect(await docker_.attach({ id: ref.id })).toEqual({ ok: true, value: ref });
      expect(await docker_.attach({ labels })).toEqual({ ok: true, value: ref });
    });

    it("is listed by its labels, running, with its deadline and network", async () => {
      const listed = await docker_.list(labels);
      expect(listed.ok && listed.value).toEqual([
        {
          ref: { id: ref.id, name: ref.name, provider: "docker" },
          labels: expect.objectContaining(labels),
          deadline: new Date(ref.spec!.deadline!),
          state: "running",
          network: "none",
        },
      ]);
    });

    it("is counted by testConnection", async () => {
      const tested = await docker_.testConnection();
      expect(tested.ok && tested.value.detail).toMatch(/^Docker answers; \d+ computers? of this provider$/);
    });

    it("is stopped by release stop: listed stopped, and attached by inspect alone with no kind", async () => {
      expect(await docker_.release(ref, "stop")).toEqual({ ok: true, value: undefined });
      const stopped = await docker_.list(labels);
      expect(stopped.ok && stopped.value[0]?.state).toBe("stopped");
      // A stopped computer is checked by inspect alone, and read back with no kind.
      const again = await docker_.attach({ id: ref.name });
      expect(again.ok && again.value.spec?.kind).toBeUndefined();
    });

    it("is deleted by release delete, leaving nothing with its labels; a second delete is fine, and attach finds none", async () => {
      expect(await docker_.release(ref, "delete")).toEqual({ ok: true, value: undefined });
      expect(withLabel(labels)).toEqual([]);
      expect(await docker_.release(ref, "delete")).toEqual({ ok: true, value: undefined });
      expect(await docker_.attach({ id: ref.name })).toMatchObject({ ok: false, error: { code: "not_found" } });
    });
  });

  it("runs an open computer on the default bridge alone, with its own sizes, as root when the spec asks", async () => {
    const docker_ = provider();
    const result = await docker_.create(spec({ network: "open", cpus: 0.5, memoryMb: 256, pids: 64, user: "0" }));
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    made.track(result.value.name);
    expect(result.value.spec).toMatchObject({ network: "open", cpus: 0.5, memoryMb: 256, pids: 64, user: "0:0" });
    expect(await docker_.network(result.value)).toEqual({ ok: true, value: "open" });
    const connected = await docker_.connect(result.value);
    if (!connected.ok) throw new Error(connected.error.message);
    const ran = await connected.value.client.call("exec.run", {
      argv: ["sh", "-c", "id -u; grep -E '^CapEff' /proc/self/status; df -m /work | tail -n1"],
      timeoutMs: 10_000,
    });
    await connected.value.close();
    const out = text(ran.stdout);
    expect(out).toMatch(/^0\nCapEff:\t0000000000000000\n/);
    expect(out).toMatch(/\s128\s/); // /work holds half of 256 MiB
  });

  it("takes the spec's create form, { image: { image } }, and reads back the image it names", async () => {
    const labels = testLabel();
    const result = await provider().create({ image: { image: IMAGE }, lifetimeMs: 600_000, network: "none", labels });
    if (result.ok) made.track(result.value.name);
    expect(result.ok ? result.value.spec?.image : result.error.message).toBe(IMAGE);
    expect(withLabel(labels)).toHaveLength(1);
  });

  it("finds by labels only one computer: none is not_found, two are invalid", async () => {
    const docker_ = provider();
    const labels = testLabel();
    expect(await docker_.attach({ labels })).toMatchObject({ ok: false, error: { code: "not_found" } });
    const [a, b] = await Promise.all([docker_.create(spec({ labels })), docker_.create(spec({ labels }))]);
    for (const r of [a, b]) if (r?.ok) made.track(r.value.name);
    expect(a?.ok && b?.ok).toBe(true);
    const both = await docker_.attach({ labels });
    expect(both).toMatchObject({ ok: false, error: { code: "invalid" } });
    if (!both.ok) expect(both.error.message).toMatch(/^2 computers match the labels agentrun\.test=/);
  });

  it("refuses an image the host does not have, pulling nothing and leaving nothing", async () => {
    const labels = testLabel();
    const result = await provider().create(spec({ labels, image: "agentrun-no-such-image:1" }));
    if (result.ok) made.track(result.value.name);
    expect(result).toMatchObject({ ok: false, error: { code: "not_found", field: "image" } });
    if (!result.ok) expect(result.error.message).toMatch(/^the image agentrun-no-such-image:1 is not on this Docker host, and create pulls nothing/);
    // The data a host's words take (the plugin's, in a stack's terms): the tag, and the setting for the provider's own image.
    if (!result.ok) expect(result.error.detail).toEqual({ kind: "image-missing", tag: "agentrun-no-such-image:1", provider: "docker", setting: "image" });
    expect(withLabel(labels)).toEqual([]);
  });

  it("does not count a container that is not a computer", async () => {
    const docker_ = provider();
    const name = made.track(`computer-${Math.random().toString(16).slice(2, 14).padEnd(12, "0")}`);
    docker("create", "--name", name, IMAGE, "true");
    expect(await docker_.attach({ id: name })).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(await docker_.network({ id: name, name, provider: "docker" })).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(await docker_.release({ id: name, name, provider: "docker" }, "delete")).toMatchObject({ ok: false, error: { code: "not_found" } });
    expect(docker("inspect", "--format", "{{.Name}}", name)).toBe(`/${name}`);
  });
});
