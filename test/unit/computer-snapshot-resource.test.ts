// The ComputerSnapshot resource's handlers without the engine, against a provider held in memory
// (test/support/state-provider.ts): refused at check where no snapshot can be taken, taken with the
// resource's owner, read back (gone drops it, and the next take says in words when its computer is
// gone too), every input fixed, and removed by its image.
import { describe, expect, it } from "vitest";
import { computerSnapshot } from "../../provider/resources/computer-snapshot.js";
import { resourceOwner } from "../../provider/resource.js";
import { secret } from "../../provider/secrets.js";
import { stateWorld, worldContext } from "../support/state-provider.js";

const URN = "urn:pulumi:dev::p::agentrun:index:ComputerSnapshot::env";
const V = "v".repeat(12);

/** A world whose one computer belongs to a stack (it carries an owner label). */
function owned(id = "held", hooks = {}) {
  const world = stateWorld(id, hooks);
  world.computer.labels = { "agentrun.owner": "abc" };
  return world;
}

describe("ComputerSnapshot check", () => {
  it("fills the provider and labels, and takes a computer not known yet (a preview's)", async () => {
    const world = owned();
    expect((await computerSnapshot.check(worldContext(world, URN), {}, { computer: V, provider: "held" })).inputs).toEqual({
      computer: V,
      provider: "held",
      labels: {},
    });
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    expect((await computerSnapshot.check(worldContext(world, URN), {}, { computer: unknown, provider: "held" })).failures).toBeUndefined();
  });

  it("refuses a provider with no snapshot hooks, naming the provider", async () => {
    const world = owned("nosnap", { snapshots: false });
    const r = await computerSnapshot.check(worldContext(world, URN), {}, { computer: V, provider: "nosnap" });
    expect(r.failures).toEqual([{ property: "provider", reason: expect.stringContaining("the nosnap provider takes no snapshots") }]);
  });

  it("refuses a computer that is gone, or belongs to no stack of ours, before anything is made", async () => {
    const world = owned();
    world.computer.labels = {};
    const mine = await computerSnapshot.check(worldContext(world, URN), {}, { computer: V, provider: "held" });
    expect(mine.failures).toEqual([
      { property: "computer", reason: `computer ${V} belongs to no stack of ours: a snapshot is taken of a Computer of this stack` },
    ]);
    world.computer.state = "gone";
    const gone = await computerSnapshot.check(worldContext(world, URN), {}, { computer: V, provider: "held" });
    expect(gone.failures).toEqual([{ property: "computer", reason: expect.stringContaining(`computer ${V} is gone, so no snapshot can be taken of it`) }]);
    expect(world.calls.filter((c) => c.startsWith("take"))).toEqual([]);
  });

  it("refuses a field it does not take, a missing computer, and a secret note or labels", async () => {
    const world = owned();
    const r = await computerSnapshot.check(worldContext(world, URN), {}, { provider: "held", colour: "red", note: secret("hush"), labels: { a: "b" } });
    expect(r.failures?.map((f) => f.property)).toEqual(["colour", "computer", "note"]);
    expect(JSON.stringify(r.failures)).not.toContain("hush");
  });
});

describe("ComputerSnapshot steps", () => {
  const inputs = { computer: V, provider: "held", labels: { task: "t1" }, note: "prepared" };

  it("takes the snapshot with the resource's owner, its note and labels; its image is the Computer's image to fork", async () => {
    const world = owned();
    const ctx = worldContext(world, URN);
    const made = await computerSnapshot.create(ctx, inputs);
    expect(made.id).toBe("snapshot://held/sha256:1");
    expect(made.outs).toEqual({ ...inputs, image: "snapshot://held/sha256:1", sizeBytes: 4096, takenAt: "2026-12-05T03:00:00.000Z", holds: "its files" });
    expect(world.calls).toEqual([`take ${V} owner=${resourceOwner(ctx)} note=prepared`]);
    expect(world.snapshots.get(made.id)?.labels).toEqual({ task: "t1", "agentrun.snapshot": "1" });
  });

  it("reads it back as taken; removed by hand it is dropped, and taken again from its computer", async () => {
    const world = owned();
    const ctx = worldContext(world, URN);
    const made = await computerSnapshot.create(ctx, inputs);
    const r = await computerSnapshot.read(ctx, made.id, made.outs!, inputs);
    expect(r).toEqual({ id: made.id, props: made.outs, inputs });
    world.snapshots.clear();
    expect(await computerSnapshot.read(ctx, made.id, made.outs!, inputs)).toEqual({});
    expect((await computerSnapshot.create(ctx, inputs)).outs).toMatchObject({ image: expect.stringMatching(/^snapshot:\/\/held\//) });
  });

  it("with its computer gone too, the take again says in words that it cannot", async () => {
    const world = owned();
    world.computer.state = "gone";
    await expect(computerSnapshot.create(worldContext(world, URN), inputs)).rejects.toThrow(
      `computer ${V} is gone, so no snapshot can be taken of it: an up makes its Computer again first, or remove this ComputerSnapshot`,
    );
    expect(world.calls.filter((c) => c.startsWith("take"))).toEqual([]);
  });

  it("replaces on any input's change, and removes by its image", async () => {
    const world = owned();
    const ctx = worldContext(world, URN);
    const made = await computerSnapshot.create(ctx, inputs);
    expect((await computerSnapshot.diff(ctx, made.id, made.outs!, inputs)).changes).toBe(false);
    expect(await computerSnapshot.diff(ctx, made.id, made.outs!, { ...inputs, note: "again", computer: "w" })).toMatchObject({
      changes: true,
      replaces: ["computer", "note"],
    });
    await computerSnapshot.delete(ctx, made.id, made.outs!);
    expect(world.calls.at(-1)).toBe(`remove ${made.id}`);
    expect(world.snapshots.size).toBe(0);
  });
});
