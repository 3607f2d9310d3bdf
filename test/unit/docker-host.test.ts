// hostOf on docker info recorded from this machine's engine (20.10.24), and on copies of it with
// each requirement missing.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type DockerInfo, engineMajor, hostOf } from "../../src/docker/host.js";
import { checkSpec } from "../../src/docker/check.js";
import { CAPABILITIES } from "../../src/docker/context.js";

const recorded = JSON.parse(readFileSync(new URL("../fixtures/docker/info-20.10.24.json", import.meta.url), "utf8")) as DockerInfo;

describe("hostOf", () => {
  it("reads this machine's engine: amd64, seccomp, no AppArmor or SELinux, no remapping, nothing lacking", () => {
    expect(hostOf(recorded)).toMatchObject({ arch: "amd64", apparmor: false, selinux: false, engine: "20.10.24+dfsg1", cpus: 2, lacks: [] });
    expect(hostOf(recorded).kernel).toBe(recorded.KernelVersion);
    expect(Object.keys(hostOf(recorded).runtimes ?? {})).toContain("runc");
    expect(engineMajor(hostOf(recorded))).toBe(20);
  });

  it.each([
    ["MemoryLimit", "this Docker host does not enforce memory limits, so a computer's memory size is only configuration"],
    ["SwapLimit", "this Docker host does not enforce swap limits, so a computer could swap past its memory size"],
    ["PidsLimit", "this Docker host does not enforce pids limits, so a computer's pids limit is only configuration"],
    ["CpuCfsQuota", "this Docker host does not enforce CPU quotas, so a computer's cpus are only configuration"],
    ["CpuCfsPeriod", "this Docker host does not enforce CPU periods, so a computer's cpus are only configuration"],
  ])("refuses a host without %s in the spec's words", (field, words) => {
    expect(hostOf({ ...recorded, [field]: false }).lacks).toEqual([words]);
    const { [field]: _gone, ...absent } = recorded;
    expect(hostOf(absent).lacks).toEqual([words]);
  });

  it("refuses a host with no seccomp, and one whose default profile is unconfined", () => {
    expect(hostOf({ ...recorded, SecurityOptions: [] }).lacks).toEqual(["this Docker host has no seccomp, so a computer could make any system call"]);
    expect(hostOf({ ...recorded, SecurityOptions: ["name=seccomp,profile=unconfined"] }).lacks).toEqual([
      "this Docker host has no seccomp (its default seccomp profile is unconfined), so a computer could make any system call",
    ]);
  });

  it("names every requirement missing at once", () => {
    const bare = { ...recorded, MemoryLimit: false, SwapLimit: false, PidsLimit: false, CpuCfsQuota: false, CpuCfsPeriod: false, SecurityOptions: null };
    expect(hostOf(bare).lacks).toHaveLength(6);
  });

  it("reports AppArmor, SELinux, user remapping and the architecture", () => {
    const h = hostOf({
      ...recorded,
      Architecture: "aarch64",
      SecurityOptions: ["name=apparmor", "name=seccomp,profile=builtin", "name=selinux", "name=userns"],
    });
    expect(h).toMatchObject({ arch: "arm64", apparmor: true, selinux: true, remap: "userns", lacks: [] });
    expect(hostOf({ ...recorded, SecurityOptions: ["name=seccomp,profile=default", "name=rootless", "name=cgroupns"] }).remap).toBe("rootless");
  });

  it("reports no engine when docker info has no version", () => {
    const { ServerVersion: _v, ...none } = recorded;
    expect(hostOf(none).engine).toBeUndefined();
    expect(engineMajor(hostOf(none))).toBeUndefined();
    expect(engineMajor(hostOf({ ...recorded, ServerVersion: "26.1.0" }))).toBe(26);
  });
});

describe("a spec held to the host it was read from", () => {
  const host = hostOf(recorded);
  const spec = { image: "debian:bookworm-slim", lifetimeMs: 600_000, network: "none" as const };
  it("refuses more cpus than the host has, as Docker's --cpus would, in its terms", () => {
    expect(checkSpec({ ...spec, cpus: 3 }, { capabilities: CAPABILITIES, host })).toEqual([
      { field: "cpus", message: "cpus is 3, more than this Docker host's 2 CPUs (docker info): ask for at most 2" },
    ]);
  });
  it("takes the host's CPUs and fewer", () => {
    expect(checkSpec({ ...spec, cpus: 2 }, { capabilities: CAPABILITIES, host })).toEqual([]);
    expect(checkSpec({ ...spec, cpus: 3 }, { capabilities: CAPABILITIES })).toEqual([]);
  });
});
