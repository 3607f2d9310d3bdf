// The read-back from docker inspect: network, run folder, deadline and spec, on recorded
// computers and copies of them changed as Docker could report them.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { deadlineOf, hasComputerName, type Inspected, isComputer, mountOf, networkOf, specOf } from "../../src/docker/readback.js";

const load = (name: string) =>
  (JSON.parse(readFileSync(new URL(`../fixtures/docker/${name}.json`, import.meta.url), "utf8")) as { inspected: Inspected }).inspected;
const none = load("inspect-none");
const open = load("inspect-open-bind");

describe("the read-back", () => {
  it("reads the spec of computers made here", () => {
    expect(specOf(none)).toEqual({
      image: "agentrun-base:f46053ab1cd8",
      user: "1000:1000",
      network: "none",
      cpus: 2,
      memoryMb: 4096,
      pids: 1024,
      workdir: "/work",
      deadline: "2026-11-29T21:15:00.000Z",
    });
    expect(specOf(open)).toEqual({
      image: "agentrun-base:f46053ab1cd8",
      user: "0:0",
      network: "open",
      cpus: 0.5,
      memoryMb: 512,
      pids: 64,
      workdir: "/workspace",
      deadline: "2026-11-29T21:15:00.000Z",
      mount: { kind: "bind", path: "/tmp/runfolder" },
    });
    expect(isComputer(none)).toBe(true);
    expect(isComputer({ ...none, Config: { ...none.Config, Labels: {} } })).toBe(false);
  });

  it("counts a computer by its label whatever its name; a name create does not give is told apart", () => {
    expect(isComputer({ ...none, Name: "/renamed-by-hand" })).toBe(true);
    expect(hasComputerName(none)).toBe(true);
    expect(hasComputerName({ ...none, Name: "/renamed-by-hand" })).toBe(false);
  });

  it("reads a network as none, open, or words for anything else", () => {
    expect(networkOf(none)).toBe("none");
    expect(networkOf(open)).toBe("open");
    expect(networkOf({ ...open, NetworkSettings: { Networks: { bridge: {}, mine: {} } } })).toEqual({ other: "network mode bridge, but on bridge, mine" });
    expect(networkOf({ ...none, HostConfig: { NetworkMode: "host" }, NetworkSettings: { Networks: { host: {} } } })).toEqual({
      other: "network mode host on host",
    });
    expect(networkOf({ ...none, HostConfig: { NetworkMode: "container:abc" }, NetworkSettings: { Networks: {} } })).toEqual({
      other: "network mode container:abc on no network",
    });
  });

  it("reads the run folder: a read-write bind at /workspace, else words", () => {
    expect(mountOf(none)).toBeUndefined();
    expect(mountOf(open)).toEqual({ kind: "bind", path: "/tmp/runfolder" });
    const at = (m: Record<string, unknown>) => ({ ...none, Mounts: [m] });
    expect(mountOf(at({ Type: "bind", Source: "/x", Destination: "/workspace", RW: false }))).toEqual({ other: "a read-only bind of /x at /workspace" });
    expect(mountOf(at({ Type: "volume", Name: "v", Destination: "/workspace", RW: true }))).toEqual({ other: "a volume mounted at /workspace, not a bind" });
    expect(mountOf({ ...none, Mounts: [...(open.Mounts ?? []), { Type: "bind", Source: "/y", Destination: "/workspace", RW: true }] })).toEqual({
      other: "2 mounts at /workspace",
    });
  });

  it("reads a deadline only when it is the ISO time create writes, at most 30 days and a minute away", () => {
    const now = Date.parse("2026-11-29T20:00:00.000Z");
    expect(deadlineOf("2026-11-29T21:00:00.000Z", now)).toEqual(new Date("2026-11-29T21:00:00.000Z"));
    expect(deadlineOf("2026-11-29T19:00:00.000Z", now)).toEqual(new Date("2026-11-29T19:00:00.000Z"));
    expect(deadlineOf(undefined, now)).toBeUndefined();
    expect(deadlineOf("2026-11-29T21:00:00Z", now)).toBeUndefined();
    expect(deadlineOf("tomorrow", now)).toBeUndefined();
    expect(deadlineOf(new Date(now + 30 * 86_400_000 + 60_000).toISOString(), now)).toBeInstanceOf(Date);
    expect(deadlineOf(new Date(now + 30 * 86_400_000 + 60_001).toISOString(), now)).toBeUndefined();
  });
});
