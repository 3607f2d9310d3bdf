// A Computer's declared state (running or paused) through its handlers, against a provider held in
// memory (test/support/state-provider.ts): refused at check where it cannot be, made paused, read
// back with drift named `state`, put back by an update (a pause or a resume), never a replace.
import { describe, expect, it } from "vitest";
import { computer } from "../../provider/resources/computer.js";
import type { Props } from "../../provider/secrets.js";
import { stateWorld, worldContext } from "../support/state-provider.js";

const good = { image: "agentrun-base:x", lifetimeMs: 600_000 };
const declared = { ...good, provider: "held", network: "none", labels: {}, kind: "linux", user: "1000:1000" };
const failuresOf = async (news: Props, world = stateWorld()) =>
  (await computer.check(worldContext(world), {}, { ...good, provider: "held", ...news })).failures ?? [];

describe("Computer state at check", () => {
  it("takes running and paused, and refuses anything else in checkRunState's words, naming the field", async () => {
    expect(await failuresOf({ state: "paused" })).toEqual([]);
    expect(await failuresOf({ state: "running" })).toEqual([]);
    expect(await failuresOf({ state: "frozen" })).toEqual([{ property: "state", reason: 'state must be running or paused, not "frozen"' }]);
  });

  it("refuses paused on a provider that cannot pause, naming the provider and the field; running passes", async () => {
    const none = stateWorld("nopause", { pause: false });
    const failures = await failuresOf({ state: "paused", provider: "nopause" }, none);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.property).toBe("state");
    expect(failures[0]!.reason).toContain("nopause cannot pause a computer");
    expect(await failuresOf({ state: "running", provider: "nopause" }, none)).toEqual([]);
  });

  it("refuses a fork of another provider's snapshot at the image field, and takes its own", async () => {
    const failures = await failuresOf({ image: "snapshot://modal/im-123" });
    expect(failures).toEqual([
      { property: "image", reason: expect.stringContaining("is a snapshot taken on modal, which a computer on held cannot start from") },
    ]);
    expect(await failuresOf({ image: "snapshot://held/sha256:1" })).toEqual([]);
  });
});

describe("Computer state through create, read, diff and update", () => {
  const urn = "urn:pulumi:dev::p::agentrun:index:Computer::c";

  it("creates a paused computer by a create then a pause, its state output paused", async () => {
    const world = stateWorld();
    const made = await computer.create(worldContext(world, urn), { ...declared, state: "paused" });
    expect(world.calls).toEqual(["create agentrun-base:x", `pause ${"v".repeat(12)}`]);
    expect(made.outs).toMatchObject({ state: "paused" });
    expect(world.computer.state).toBe("paused");
  });

  it("a pause that fails at create removes what it made and fails in its words", async () => {
    const world = stateWorld();
    world.failPause = "the engine did not answer";
    await expect(computer.create(worldContext(world, urn), { ...declared, state: "paused" })).rejects.toThrow("the engine did not answer");
    expect(world.calls.at(-1)).toBe(`release ${"v".repeat(12)}`);
    expect(world.computer.state).toBe("gone");
  });

  it("reads a paused computer declared paused back with no drift and no diff", async () => {
    const world = stateWorld();
    const made = await computer.create(worldContext(world, urn), { ...declared, state: "paused" });
    const r = await computer.read(worldContext(world, urn), made.id, made.outs!, { ...declared, state: "paused" });
    expect(r.props).toMatchObject({ state: "paused", drift: [] });
    expect(r.inputs).toMatchObject({ state: "paused" });
    expect((await computer.diff(worldContext(world, urn), made.id, r.props!, { ...declared, state: "paused" })).changes).toBe(false);
  });

  it("declared paused and found running is drift named state; the up pauses it in place (an update, not a replace)", async () => {
    const world = stateWorld();
    const made = await computer.create(worldContext(world, urn), { ...declared, state: "paused" });
    world.computer.state = "running"; // resumed by hand
    const r = await computer.read(worldContext(world, urn), made.id, made.outs!, { ...declared, state: "paused" });
    expect(r.props).toMatchObject({ state: "running", drift: ["running, though declared paused: an up pauses it again"] });
    expect(r.inputs).toMatchObject({ state: "running" });
    const d = await computer.diff(worldContext(world, urn), made.id, r.props!, { ...declared, state: "paused" });
    expect(d).toMatchObject({ changes: true, replaces: [], diffs: ["state"], detailedDiff: { state: "update", drift: "update" } });
    world.calls.length = 0;
    const u = await computer.update(worldContext(world, urn), made.id, r.props!, { ...declared, state: "paused" });
    expect(world.calls).toEqual([`pause ${"v".repeat(12)}`]);
    expect(u.outs).toMatchObject({ state: "paused", drift: [] });
  });

  it("declared running and found paused is drift named state; the up resumes it", async () => {
    const world = stateWorld();
    const made = await computer.create(worldContext(world, urn), declared);
    world.computer.state = "paused"; // paused by hand
    const r = await computer.read(worldContext(world, urn), made.id, made.outs!, declared);
    expect(r.props).toMatchObject({ state: "paused", drift: ["paused, though declared running: an up resumes it"] });
    const d = await computer.diff(worldContext(world, urn), made.id, r.props!, declared);
    expect(d).toMatchObject({ changes: true, replaces: [], diffs: ["state"] });
    world.calls.length = 0;
    const u = await computer.update(worldContext(world, urn), made.id, r.props!, declared);
    expect(world.calls).toEqual([`resume ${"v".repeat(12)}`]);
    expect(u.outs).toMatchObject({ state: "running", drift: [] });
  });

  it("a change of the declared state alone is an update of that computer; a stopped one is still made again", async () => {
    const world = stateWorld();
    const made = await computer.create(worldContext(world, urn), declared);
    const toPaused = await computer.diff(worldContext(world, urn), made.id, made.outs!, { ...declared, state: "paused" });
    expect(toPaused).toMatchObject({ changes: true, replaces: [], diffs: ["state"], detailedDiff: { state: "update" } });
    const stopped = await computer.diff(worldContext(world, urn), made.id, { ...made.outs!, state: "stopped" }, { ...declared, state: "paused" });
    expect(stopped.replaces).toEqual(["state"]);
    const preview = await computer.preview!(worldContext(world, urn), { ...declared, state: "paused" }, made.outs!);
    expect(preview).toMatchObject({ state: "paused" });
  });

  it("an import of a paused computer takes paused as declared", async () => {
    const world = stateWorld();
    world.computer.state = "paused";
    const r = await computer.read(worldContext(world, urn), "v".repeat(12), {});
    expect(r.props).toMatchObject({ state: "paused", drift: [] });
    expect(r.inputs).toMatchObject({ state: "paused" });
  });
});
