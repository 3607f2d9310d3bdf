// What a computer left by an interrupted create must be to be adopted: the spec declared, field
// by field (its defaults filled in as create fills them), and a deadline no later than a create
// now would give it.
import { describe, expect, it } from "vitest";
import { notAsDeclared } from "../../src/docker/adopt.js";
import type { ComputerSpec, ReadBack } from "../../src/provider.js";

const NOW = Date.parse("2026-12-01T06:00:00Z");
const declared: ComputerSpec = { image: "base:1", lifetimeMs: 600_000, network: "none", labels: { team: "a" }, cpus: 0.5, memoryMb: 256 };

function readBack(change: Partial<NonNullable<ReadBack["ref"]["spec"]>> = {}, labels: Record<string, string> = { team: "a" }): ReadBack {
  return {
    ref: {
      id: "f".repeat(64), name: "computer-000000000001", provider: "docker",
      spec: { image: "base:1", user: "1000:1000", network: "none", cpus: 0.5, memoryMb: 256, pids: 1024, workdir: "/work", deadline: new Date(NOW + 300_000).toISOString(), ...change },
    },
    state: "running",
    labels: { "agentrun.computer": "1", "image.own": "x", ...labels },
    drift: [],
  };
}

describe("notAsDeclared", () => {
  it("takes a computer that is the spec declared, whatever labels its image adds", () => {
    expect(notAsDeclared(declared, readBack(), { userDefault: "1000:1000" }, NOW)).toBeUndefined();
  });

  it("takes an allowlist in the test network's range when create was given that network (its test-only seam)", () => {
    const allowed: ComputerSpec = { ...declared, network: { allow: ["10.251.7.1/32"] } };
    const read = readBack({ network: { allow: ["10.251.7.1/32"] } });
    expect(notAsDeclared(allowed, read, { userDefault: "1000:1000", testNetwork: "10.251.7.0/24" }, NOW)).toBeUndefined();
  });

  it.each([
    ["another image", readBack({ image: "base:2" }), /image reads "base:2"/],
    ["another user", readBack({ user: "1001:1001" }), /user reads "1001:1001"/],
    ["another size", readBack({ memoryMb: 512 }), /memoryMb reads 512, not 256/],
    ["a default size changed", readBack({ pids: 64 }), /pids reads 64, not 1024/],
    ["another network", readBack({ network: "open" }), /network is not the one declared/],
    ["a declared label changed", readBack({}, { team: "b" }), /label team is not the one declared/],
    ["a deadline passed", readBack({ deadline: new Date(NOW - 1).toISOString() }), /deadline has passed/],
    ["a deadline later than the lifetime", readBack({ deadline: new Date(NOW + 600_001).toISOString() }), /later than the lifetime declared/],
  ])("refuses %s", (_name, read, words) => {
    expect(notAsDeclared(declared, read, { userDefault: "1000:1000" }, NOW)).toMatch(words);
  });
});
