// The RunEpoch resource's handlers without the engine, against the in-memory provider: the claim
// releases older epochs and is refused when fenced, read names a later claim as drift, and delete
// releases its own epoch's computers and no one else's.
import { beforeEach, describe, expect, it } from "vitest";
import { PROVIDER_IDS } from "../../src/providers.js";
import type { Context } from "../../provider/resource.js";
import { runEpoch } from "../../provider/resources/run-epoch.js";
import { UNKNOWN, isSecret, secret, type Props } from "../../provider/secrets.js";
import { ResultFailure, ok } from "../../src/daemon/result.js";
import { JANITOR_VENDOR, MemoryComputers } from "../support/memory-computers.js";

let memory: MemoryComputers;
let ctx: Context;
beforeEach(() => {
  memory = new MemoryComputers(JANITOR_VENDOR);
  ctx = {
    settings: {},
    vendor: async (id) => (id === "memory" ? ok(memory) : (await import("../../src/providers.js")).providerFromSettings(id, {})),
    signal: new AbortController().signal,
  };
});

const run = (r: string, epoch: number) => ({ "agentrun.run": r, "agentrun.epoch": String(epoch) });
const claim = { provider: "memory", run: "r1", epoch: 2 };

describe("RunEpoch check", () => {
  it("takes a claim, with docker as the default provider", async () => {
    expect(await runEpoch.check(ctx, {}, claim)).toEqual({ inputs: claim });
    expect((await runEpoch.check(ctx, {}, { run: "r1", epoch: 0 })).inputs).toEqual({ provider: "docker", run: "r1", epoch: 0 });
  });

  it("refuses every bad field together, in words", async () => {
    const r = await runEpoch.check(ctx, {}, { provider: "fly", run: "", epoch: 1.5, colour: "blue" });
    expect(r.failures?.map((f) => `${f.property}: ${f.reason}`)).toEqual([
      'colour: agentrun:index:RunEpoch has no field "colour"; it takes provider, run, epoch',
      `provider: there is no provider "fly": the registry holds ${PROVIDER_IDS.join(", ")}`,
      "run: a run id is a non-empty string",
      "epoch: an epoch is a whole number",
    ]);
    expect((await runEpoch.check(ctx, {}, { provider: "memory" })).failures?.map((f) => f.property)).toEqual(["run", "epoch"]);
  });

  it("waits on values not known yet, and keeps a secret run secret", async () => {
    expect((await runEpoch.check(ctx, {}, { ...claim, epoch: UNKNOWN })).failures).toBeUndefined();
    const r = await runEpoch.check(ctx, {}, { ...claim, run: secret("r1") });
    expect(isSecret((r.inputs as Props).run)).toBe(true);
  });
});

describe("RunEpoch create", () => {
  it("releases the run's computers of older epochs, keeps its own and other runs'", async () => {
    const older = memory.add(run("r1", 1));
    const own = memory.add(run("r1", 2));
    const other = memory.add(run("r2", 0));
    const r = await runEpoch.create(ctx, claim);
    expect(r.id).toBe("r1@2");
    expect(r.outs).toEqual({ ...claim, labels: run("r1", 2), released: [older], drift: [] });
    expect([...memory.store.keys()].sort()).toEqual([own, other].sort());
  });

  it("is refused when fenced by a later claim, releasing nothing", async () => {
    const older = memory.add(run("r1", 1));
    memory.add(run("r1", 3));
    const thrown = await runEpoch.create(ctx, claim).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ResultFailure);
    expect(thrown).toMatchObject({
      code: "refused",
      message: expect.stringMatching(/^fenced: run "r1" has computer-\d+ at epoch 3, above this claim's epoch 2/),
    });
    expect(memory.store.has(older)).toBe(true);
  });
});

describe("RunEpoch read", () => {
  it("has no drift while no later claim holds the run", async () => {
    memory.add(run("r1", 2));
    const r = await runEpoch.read(ctx, "r1@2", { ...claim, released: ["computer-x"] });
    expect(r).toEqual({ id: "r1@2", props: { ...claim, labels: run("r1", 2), released: ["computer-x"], drift: [] }, inputs: claim });
  });

  it("names a later claim's computers as drift, and an import reads the claim from its id", async () => {
    const later = memory.add(run("r1", 5));
    const r = await runEpoch.read(ctx, "r1@2", { provider: "memory" });
    expect(r.inputs).toEqual(claim);
    expect((r.props as Props).drift).toEqual([`fenced: a later claim holds run r1 (${later} at epoch 5), above this claim's epoch 2`]);
    expect((await runEpoch.diff(ctx, "r1@2", r.props as Props, claim)).replaces).toEqual(["drift"]);
  });
});

describe("RunEpoch diff", () => {
  it("replaces the claim for a new epoch, run or provider, and not otherwise", async () => {
    const outs = { ...claim, labels: run("r1", 2), released: [], drift: [] };
    expect(await runEpoch.diff(ctx, "r1@2", outs, claim)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect((await runEpoch.diff(ctx, "r1@2", outs, { ...claim, epoch: 3 })).replaces).toEqual(["epoch"]);
  });
});

describe("RunEpoch delete", () => {
  it("releases the claim's own epoch's computers, never a later claim's or another run's", async () => {
    const own = memory.add(run("r1", 2));
    const later = memory.add(run("r1", 3));
    const other = memory.add(run("r2", 2));
    await runEpoch.delete(ctx, "r1@2", claim);
    expect(memory.released).toEqual([own]);
    expect([...memory.store.keys()].sort()).toEqual([later, other].sort());
  });

  it("names each computer it could not release, and releases the rest", async () => {
    const stuck = memory.add(run("r1", 2));
    const freed = memory.add(run("r1", 2));
    memory.failing.set(stuck, "Docker refused the removal");
    await expect(runEpoch.delete(ctx, "r1@2", claim)).rejects.toThrow(`the claim on run r1 at epoch 2 could not release ${stuck} (Docker refused the removal)`);
    expect(memory.released).toEqual([freed]);
  });
});
