// A bench stopped half-way removes what it made: fleet-100 (its bare anchors, then its fleet
// through the real engine) is sent SIGTERM while its anchors are being made (issue 53: a timeout's
// SIGTERM there left 100 of them running), and again once its fleet's first computers stand, and
// nothing with its names or its label is left; exec-roundtrip (one computer made by the library in the
// bench's own process, bench/computer.mjs) is sent SIGTERM as the engine makes its container, with
// the create still under way, and its computer is released all the same; state-snapshot is sent
// SIGTERM as its forks are made, and its forks, its snapshots and its parent are all removed; and
// once more with its output's reader gone mid-run (`| head -1`), which is a stop too.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/toolchain.js";

const ps = async (...filters: string[]) =>
  (await execa("docker", ["ps", "--all", "--format", "{{.Names}}", ...filters.flatMap((f) => ["--filter", f])])).stdout.split("\n").filter(Boolean);

describe("a bench stopped half-way", () => {
  it("removes its anchor containers when SIGTERM comes as they are being made", async () => {
    // Its anchors are named agentrun-bench-bare-<its tag>-<n>: the tag is read from the first one
    // made, among names not there before it started (another bench's anchors).
    const prefixOf = (name: string) => name.match(/^(agentrun-bench-bare-fleet-[0-9a-f]{8}-)/)?.[1];
    const before = new Set((await ps("name=agentrun-bench-bare-fleet-")).map(prefixOf));
    const bench = spawn(process.execPath, [join(ROOT, "bench/fleet-100.mjs"), "10"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let said = "";
    bench.stdout.on("data", (d) => (said += d));
    bench.stderr.on("data", (d) => (said += d));
    const ended = new Promise<number | null>((resolve) => bench.once("exit", (code) => resolve(code)));
    let prefix: string | undefined;
    try {
      for (const until = Date.now() + 40_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
        const bare = await ps("name=agentrun-bench-bare-fleet-");
        prefix ??= bare.map(prefixOf).find((p) => p && !before.has(p));
        if (prefix && bare.filter((n) => n.startsWith(prefix!)).length >= 3) break;
        if (bench.exitCode !== null) throw new Error(`the bench ended before its anchors stood:\n${said.slice(-2000)}`);
      }
      expect(prefix).toBeDefined();
      bench.kill("SIGTERM");
      expect(await ended).toBe(143);
      expect(said).toContain("SIGTERM: removing what the bench made");
      expect(await ps(`name=${prefix}`)).toEqual([]);
    } finally {
      if (bench.exitCode === null) bench.kill("SIGKILL");
      if (prefix) {
        const left = await ps(`name=${prefix}`);
        if (left.length) await execa("docker", ["rm", "-f", ...left], { reject: false });
      }
    }
  }, 60_000);

  it("removes its anchors and its fleet on SIGTERM, and exits as the signal would", async () => {
    const bench = spawn(process.execPath, [join(ROOT, "bench/fleet-100.mjs"), "4"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let said = "";
    bench.stdout.on("data", (d) => (said += d));
    bench.stderr.on("data", (d) => (said += d));
    const ended = new Promise<number | null>((resolve) => bench.once("exit", (code) => resolve(code)));
    let tag: string | undefined;
    try {
      // Its fleet's label is its bare anchors' tag: the fleet is under way once a computer carries it.
      for (const until = Date.now() + 600_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
        tag ??= (await ps("name=agentrun-bench-bare-fleet-"))[0]?.match(/agentrun-bench-bare-(fleet-[0-9a-f]{8})-/)?.[1];
        if (tag && (await ps(`label=agentrun.bench=${tag}`)).length > 0) break;
        if (bench.exitCode !== null) throw new Error(`the bench ended before its fleet stood:\n${said.slice(-2000)}`);
      }
      expect(tag).toBeDefined();
      bench.kill("SIGTERM");
      expect(await ended).toBe(143);
      expect(said).toContain("SIGTERM: removing what the bench made");
      expect(await ps(`name=agentrun-bench-bare-${tag}-`)).toEqual([]);
      expect(await ps(`name=agentrun-bench-spare-${tag}-`)).toEqual([]);
      expect(await ps(`label=agentrun.bench=${tag}`)).toEqual([]);
      const { stdout } = await execa("docker", ["volume", "ls", "--quiet", "--filter", `label=agentrun.bench=${tag}`]);
      expect(stdout).toBe("");
    } finally {
      if (bench.exitCode === null) bench.kill("SIGKILL");
      if (tag) {
        const left = [
          ...(await ps(`name=agentrun-bench-bare-${tag}-`)),
          ...(await ps(`name=agentrun-bench-spare-${tag}-`)),
          ...(await ps(`label=agentrun.bench=${tag}`)),
        ];
        if (left.length) await execa("docker", ["rm", "-f", ...left], { reject: false });
      }
    }
  }, 900_000);

  it("releases a computer whose create was under way when SIGTERM came", async () => {
    const since = String(Math.floor(Date.now() / 1000));
    const bench = spawn(process.execPath, [join(ROOT, "bench/exec-roundtrip.mjs"), "100000"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let said = "";
    bench.stdout.on("data", (d) => (said += d));
    bench.stderr.on("data", (d) => (said += d));
    const ended = new Promise<number | null>((resolve) => bench.once("exit", (code) => resolve(code)));
    // Its computer carries agentrun.bench=bench-<its pid> (bench/computer.mjs).
    const label = `label=agentrun.bench=bench-${bench.pid}`;
    // The engine's create event comes as the container is made, before the provider has started, connected to or checked it.
    const events = execa(
      "docker",
      ["events", "--since", since, "--filter", "type=container", "--filter", "event=create", "--filter", label, "--format", "{{.Actor.Attributes.name}}"],
      { reject: false },
    );
    try {
      let made = "";
      events.stdout?.on("data", (d) => (made += d));
      for (const until = Date.now() + 120_000; !made.trim() && Date.now() < until; await new Promise((r) => setTimeout(r, 20)))
        if (bench.exitCode !== null) throw new Error(`the bench ended before its computer was made:\n${said.slice(-2000)}`);
      events.kill();
      expect(made.trim()).toMatch(/^computer-/);
      bench.kill("SIGTERM");
      expect(await ended).toBe(143);
      expect(said).toContain("SIGTERM: removing what the bench made");
      expect(await ps(label)).toEqual([]);
    } finally {
      events.kill();
      if (bench.exitCode === null) bench.kill("SIGKILL");
      const left = await ps(label);
      if (left.length) await execa("docker", ["rm", "-f", "-v", ...left], { reject: false });
    }
  }, 180_000);

  it("releases a computer the bench's own release was removing when SIGTERM came, and makes no more", async () => {
    const since = String(Math.floor(Date.now() / 1000));
    const bench = spawn(process.execPath, [join(ROOT, "bench/docker-create.mjs"), "100"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let said = "";
    bench.stdout.on("data", (d) => (said += d));
    bench.stderr.on("data", (d) => (said += d));
    const ended = new Promise<number | null>((resolve) => bench.once("exit", (code) => resolve(code)));
    const label = `label=agentrun.bench=docker-create-${bench.pid}`;
    // The engine's kill event comes as the bench's release of a computer begins, before it is answered.
    const events = execa(
      "docker",
      ["events", "--since", since, "--filter", "type=container", "--filter", "event=kill", "--filter", label, "--format", "{{.Actor.Attributes.name}}"],
      { reject: false },
    );
    try {
      let killed = "";
      events.stdout?.on("data", (d) => (killed += d));
      for (const until = Date.now() + 120_000; !killed.trim() && Date.now() < until; await new Promise((r) => setTimeout(r, 20)))
        if (bench.exitCode !== null) throw new Error(`the bench ended before it released a computer:\n${said.slice(-2000)}`);
      events.kill();
      expect(killed.trim()).toMatch(/^computer-/);
      bench.kill("SIGTERM");
      expect(await ended).toBe(143);
      expect(said).toContain("SIGTERM: removing what the bench made");
      // Nothing left, and nothing made after the stop.
      await new Promise((r) => setTimeout(r, 2000));
      expect(await ps(label)).toEqual([]);
    } finally {
      events.kill();
      if (bench.exitCode === null) bench.kill("SIGKILL");
      const left = await ps(label);
      if (left.length) await execa("docker", ["rm", "-f", "-v", ...left], { reject: false });
    }
  }, 180_000);

  it("removes its forks, then their snapshots, then its parent when SIGTERM comes as the forks are made", async () => {
    const bench = spawn(process.execPath, [join(ROOT, "bench/state-snapshot.mjs"), "1", "10"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let said = "";
    bench.stdout.on("data", (d) => (said += d));
    bench.stderr.on("data", (d) => (said += d));
    const ended = new Promise<number | null>((resolve) => bench.once("exit", (code) => resolve(code)));
    // Its parent carries agentrun.bench=bench-<its pid> (bench/computer.mjs); its snapshots and their
    // forks carry the parent's name under agentrun.snapshot.computer (the snapshot's image labels).
    const parentLabel = `label=agentrun.bench=bench-${bench.pid}`;
    let parent: string | undefined;
    let events: ReturnType<typeof execa> | undefined;
    const forksOf = () => `label=agentrun.snapshot.computer=${parent}`;
    try {
      for (const until = Date.now() + 30_000; !parent && Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
        parent = (await ps(parentLabel))[0];
        if (bench.exitCode !== null) throw new Error(`the bench ended before its parent was made:\n${said.slice(-2000)}`);
      }
      expect(parent).toBeDefined();
      // All ten forks' create events: the batch's creates are answered, and the bench's own flow goes
      // on to connect to them and release them as the stop's releases run (where a release of the
      // flow's still in flight once the stop's were done left the snapshot in use, so not removed).
      const since = String(Math.floor(Date.now() / 1000) - 1);
      events = execa(
        "docker",
        ["events", "--since", since, "--filter", "type=container", "--filter", "event=create", "--filter", forksOf(), "--format", "{{.Actor.Attributes.name}}"],
        {
          reject: false,
        },
      );
      let made = "";
      events.stdout?.on("data", (d) => (made += d));
      const forks = () => made.split("\n").filter(Boolean);
      for (const until = Date.now() + 45_000; forks().length < 10 && Date.now() < until; await new Promise((r) => setTimeout(r, 20)))
        if (bench.exitCode !== null) throw new Error(`the bench ended before its forks were made:\n${said.slice(-2000)}`);
      expect(forks()).toHaveLength(10);
      bench.kill("SIGTERM");
      expect(await ended).toBe(143);
      expect(said).toContain("SIGTERM: removing what the bench made");
      expect(said).not.toContain("is left");
      expect(await ps(forksOf())).toEqual([]);
      expect(await ps(parentLabel)).toEqual([]);
      expect((await execa("docker", ["images", "--quiet", "--filter", forksOf()])).stdout).toBe("");
    } finally {
      events?.kill();
      if (bench.exitCode === null) bench.kill("SIGKILL");
      const left = [...(await ps(parentLabel)), ...(parent ? await ps(forksOf()) : [])];
      if (left.length) await execa("docker", ["rm", "-f", "-v", ...left], { reject: false });
      if (parent) {
        const images = (await execa("docker", ["images", "--quiet", "--filter", forksOf()])).stdout.split("\n").filter(Boolean);
        if (images.length) await execa("docker", ["rmi", "-f", ...images], { reject: false });
      }
    }
  }, 60_000);

  it("removes what it made when the reader of its output goes (`| head -1`), where the write's error ended it past its cleanup", async () => {
    const bench = spawn(process.execPath, [join(ROOT, "bench/state-snapshot.mjs"), "1", "2"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let said = "";
    bench.stderr.on("data", (d) => (said += d));
    const ended = new Promise<number | null>((resolve) => bench.once("exit", (code) => resolve(code)));
    const parentLabel = `label=agentrun.bench=bench-${bench.pid}`;
    let parent: string | undefined;
    try {
      // Its first figures printed, the reader goes: the forks' figures are written to no one.
      const first = await new Promise<string>((resolve) => bench.stdout.once("data", (d) => resolve(String(d))));
      parent = (await ps(parentLabel))[0];
      bench.stdout.destroy();
      expect(first).toMatch(/snapshot/);
      expect(parent).toBeDefined();
      expect(await ended).toBe(141);
      expect(said).toContain("EPIPE: removing what the bench made");
      expect(await ps(parentLabel)).toEqual([]);
      expect(await ps(`label=agentrun.snapshot.computer=${parent}`)).toEqual([]);
      expect((await execa("docker", ["images", "--quiet", "--filter", `label=agentrun.snapshot.computer=${parent}`])).stdout).toBe("");
    } finally {
      if (bench.exitCode === null) bench.kill("SIGKILL");
      const left = [...(await ps(parentLabel)), ...(parent ? await ps(`label=agentrun.snapshot.computer=${parent}`) : [])];
      if (left.length) await execa("docker", ["rm", "-f", "-v", ...left], { reject: false });
      if (parent) {
        const images = (await execa("docker", ["images", "--quiet", "--filter", `label=agentrun.snapshot.computer=${parent}`])).stdout
          .split("\n")
          .filter(Boolean);
        if (images.length) await execa("docker", ["rmi", "-f", ...images], { reject: false });
      }
    }
  }, 120_000);
});
