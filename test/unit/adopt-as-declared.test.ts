// What a computer left by an interrupted create must be to be adopted, at every vendor: the spec
// declared, field by field (the provider's defaults filled in as create fills them, a size the
// vendor gives of its own not compared), and a deadline no later than a create now would give it.
import { describe, expect, it } from "vitest";
import { notAsDeclared } from "../../src/contract/adopt.js";
import { DEFAULT_CPUS, DEFAULT_MEMORY_MB, DEFAULT_PIDS, HOME } from "../../src/docker/constants.js";
import type { ComputerSpec, ReadBack, SpecDefaults } from "../../src/contract/provider.js";

const NOW = Date.parse("2026-12-01T06:00:00Z");
// Docker's defaults, as its capabilities() gives them with the user 1000:1000.
const DOCKER: SpecDefaults = { cpus: DEFAULT_CPUS, memoryMb: DEFAULT_MEMORY_MB, pids: DEFAULT_PIDS, workdir: HOME, user: "1000:1000" };
const declared: ComputerSpec = { image: "base:1", lifetimeMs: 600_000, network: "none", labels: { team: "a" }, cpus: 0.5, memoryMb: 256 };

function readBack(change: Partial<NonNullable<ReadBack["ref"]["spec"]>> = {}, labels: Record<string, string> = { team: "a" }): ReadBack {
  return {
    ref: {
      id: "f".repeat(64),
      name: "computer-000000000001",
      provider: "docker",
      spec: {
        image: "base:1",
        user: "1000:1000",
        network: "none",
        cpus: 0.5,
        memoryMb: 256,
        pids: 1024,
        workdir: "/work",
        deadline: new Date(NOW + 300_000).toISOString(),
        ...change,
      },
    },
    state: "running",
    labels: { "agentrun.computer": "1", "image.own": "x", ...labels },
    drift: [],
  };
}

describe("notAsDeclared", () => {
  it("takes a computer that is the spec declared, whatever labels its image adds", () => {
    expect(notAsDeclared(declared, readBack(), DOCKER, NOW)).toBeUndefined();
  });

  it("takes an allowlist read back in another order, and one in a test network's range (no plan is made, so nothing throws)", () => {
    const allowed: ComputerSpec = { ...declared, network: { allow: ["10.251.7.1/32", "Example.com"] } };
    expect(notAsDeclared(allowed, readBack({ network: { allow: ["example.com", "10.251.7.1/32"] } }), DOCKER, NOW)).toBeUndefined();
  });

  it.each([
    ["another image", readBack({ image: "base:2" }), /image reads "base:2"/],
    ["another user", readBack({ user: "1001:1001" }), /user reads "1001:1001"/],
    ["another size", readBack({ memoryMb: 512 }), /memoryMb reads 512, not 256/],
    ["a default size changed", readBack({ pids: 64 }), /pids reads 64, not 1024/],
    ["another network", readBack({ network: "open" }), /network is not the one declared/],
    ["a mount not declared", readBack({ mount: { kind: "bind", path: "/srv/run" } }), /^its mount is not the one declared$/],
    ["a declared label changed", readBack({}, { team: "b" }), /label team is not the one declared/],
    ["a deadline passed", readBack({ deadline: new Date(NOW - 1).toISOString() }), /deadline has passed/],
    ["a deadline later than the lifetime", readBack({ deadline: new Date(NOW + 600_001).toISOString() }), /later than the lifetime declared/],
  ])("refuses %s", (_name, read, words) => {
    expect(notAsDeclared(declared, read, DOCKER, NOW)).toMatch(words);
  });
});

describe("notAsDeclared at a vendor whose sizes are its own (Daytona's snapshot, E2B's template)", () => {
  const vendor: SpecDefaults = { workdir: "/work", user: "2510:2510" };
  const spec: ComputerSpec = { image: "default", lifetimeMs: 600_000, network: "none" };
  const read = (change: Partial<NonNullable<ReadBack["ref"]["spec"]>> = {}): ReadBack => ({
    ref: {
      id: "sb-1",
      name: "computer-000000000002",
      provider: "daytona",
      spec: {
        image: "default",
        user: "2510:2510",
        network: "none",
        cpus: 1,
        memoryMb: 1024,
        workdir: "/work",
        kind: "linux",
        deadline: new Date(NOW + 60_000).toISOString(),
        ...change,
      },
    },
    state: "running",
    labels: {},
    drift: [],
  });

  it("takes the vendor's own sizes, which neither the spec nor the defaults name", () => {
    expect(notAsDeclared(spec, read({ cpus: 4, memoryMb: 8192 }), vendor, NOW)).toBeUndefined();
  });

  it("holds a uid alone to its uid:gid", () => {
    expect(notAsDeclared({ ...spec, user: "2510" }, read(), vendor, NOW)).toBeUndefined();
  });

  it.each([
    ["a workdir its daemon did not report", read({ workdir: undefined }), /workdir reads undefined, not "\/work"/],
    ["another kind than declared", read({ kind: "desktop" }), /kind reads "desktop", not "linux"/],
  ])("refuses %s", (_name, r, words) => {
    expect(notAsDeclared({ ...spec, kind: "linux" }, r, vendor, NOW)).toMatch(words);
  });
});
