// A Computer's check holds cpus to the Docker host it reads (docker info), as Docker's --cpus
// would: more than the host has is refused at check, in words, and nothing is made.
import { describe, expect, it } from "vitest";
import { computer } from "../../provider/resources/computer.js";
import { testContext } from "../support/context.js";
import { docker } from "../support/docker-helpers.js";

describe("a Computer's check on this Docker host", () => {
  const ncpu = Number(docker("info", "--format", "{{.NCPU}}"));

  it("refuses more cpus than the host has, saying how many it has", async () => {
    const r = await computer.check(testContext(), {}, { lifetimeMs: 600_000, cpus: ncpu + 1 });
    expect(r.failures).toEqual([
      { property: "cpus", reason: `cpus is ${ncpu + 1}, more than this Docker host's ${ncpu} CPUs (docker info): ask for at most ${ncpu}` },
    ]);
  });

  it("takes the host's CPUs", async () => {
    expect((await computer.check(testContext(), {}, { lifetimeMs: 600_000, cpus: ncpu })).failures).toBeUndefined();
  });
});
