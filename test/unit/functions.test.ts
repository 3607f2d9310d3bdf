// The plugin's functions (invokes): schema.json declares exactly the ones it serves, with their
// inputs and outputs; listComputers reports each computer's state, deadline, drift and whether it
// outlived its deadline; sweep deletes only what is past its deadline, and a dry run nothing; bad
// arguments are refused together, each naming its field. Against an in-memory provider.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { functions, makeProvider } from "../../provider/plugin.js";
import type { Context } from "../../provider/resource.js";
import type { AttachBy, ReadBack } from "../../src/contract/provider.js";
import { fail, ok, type Result } from "../../src/daemon/result.js";
import { ROOT } from "../support/toolchain.js";
import { JANITOR_VENDOR, MemoryComputers } from "../support/memory-computers.js";

const schema = JSON.parse(readFileSync(`${ROOT}/schema/schema.json`, "utf8"));

/** The memory provider with a read: a computer named in `drifted` reads back with that drift. */
class ReadableMemory extends MemoryComputers {
  readonly drifted = new Map<string, string[]>();
  async read(by: AttachBy): Promise<Result<ReadBack>> {
    const c = "id" in by ? this.store.get(by.id) : undefined;
    if (!c) return fail("not_found", "no such computer");
    return ok({ ref: c.ref, state: c.state, labels: c.labels, drift: this.drifted.get(c.ref.name) ?? [] });
  }
}

function contextWith(provider: MemoryComputers): Context {
  return {
    settings: {},
    vendor: async (id) => (id === "memory" ? ok(provider) : fail("invalid", `there is no provider "${id}"`, { field: "provider" })),
    signal: new AbortController().signal,
  };
}

const invoke = async (token: string, ctx: Context, inputs: Record<string, unknown>) => (await functions[token]!()).invoke(ctx, inputs);
const past = () => new Date(Date.now() - 60_000);

describe("schema.json's functions", () => {
  test("are exactly the ones the plugin serves", () => {
    expect(Object.keys(schema.functions).sort()).toEqual(Object.keys(functions).sort());
  });

  test.each(Object.keys(functions))("%s: the plugin takes the schema's inputs and gives its outputs, each described", async (token) => {
    const handler = await functions[token]!();
    const declared = schema.functions[token];
    expect(Object.keys(declared.inputs.properties).sort()).toEqual([...handler.inputs].sort());
    expect(Object.keys(declared.outputs.properties).sort()).toEqual([...handler.outputs].sort());
    for (const [name, p] of Object.entries({ ...declared.inputs.properties, ...declared.outputs.properties })) {
      expect((p as { description?: string }).description, `${token}.${name}`).toBeTruthy();
    }
  });
});

describe("listComputers", () => {
  test("reports each computer carrying the labels, with its state, deadline, drift, and the overdue ones by name", async () => {
    const memory = new ReadableMemory(JANITOR_VENDOR);
    const fresh = memory.add({ "agentrun.run": "r1" });
    const late = memory.add({ "agentrun.run": "r1" }, past(), "stopped");
    memory.add({ "agentrun.run": "r2" }, past());
    memory.drifted.set(fresh, ["memoryMb is 200, not 256"]);
    const r = await invoke("agentrun:index:listComputers", contextWith(memory), { provider: "memory", labels: { "agentrun.run": "r1" } });
    expect(r.failures).toBeUndefined();
    expect(r.outputs!.overdue).toEqual([late]);
    expect(r.outputs!.computers).toEqual([
      expect.objectContaining({
        name: fresh,
        state: "running",
        overdue: false,
        drift: ["memoryMb is 200, not 256"],
        readBack: true,
        deadline: expect.any(String),
      }),
      // Stopped is drift, as a refresh shows it, in the drift's words.
      expect.objectContaining({
        name: late,
        state: "stopped",
        overdue: true,
        drift: [expect.stringMatching(/^stopped: its deadline \S+ has passed$/)],
        readBack: true,
      }),
    ]);
  });

  test("a computer with no deadline is overdue, and its deadline is left out rather than undefined", async () => {
    const memory = new ReadableMemory(JANITOR_VENDOR);
    const name = memory.add({ team: "a" }, null);
    const r = await invoke("agentrun:index:listComputers", contextWith(memory), { provider: "memory", labels: { team: "a" } });
    expect(r.outputs!.overdue).toEqual([name]);
    expect(Object.keys(r.outputs!.computers[0])).not.toContain("deadline");
  });

  test("a provider that cannot read back says so in drift, and readBack is false", async () => {
    const memory = new MemoryComputers(JANITOR_VENDOR);
    memory.add({ team: "a" });
    const r = await invoke("agentrun:index:listComputers", contextWith(memory), { provider: "memory", labels: { team: "a" } });
    expect(r.outputs!.computers[0]).toMatchObject({ readBack: false, drift: ["memory cannot read a computer's drift"] });
  });

  test("bad arguments are refused together, each naming its field, and nothing is listed", async () => {
    const memory = new MemoryComputers(JANITOR_VENDOR);
    const r = await invoke("agentrun:index:listComputers", contextWith(memory), { provider: "nope", labels: ["x"], colour: "red" });
    expect(r.failures?.map((f) => f.property).sort()).toEqual(["colour", "labels", "provider"]);
    expect(memory.listed).toEqual([]);
  });
});

describe("sweep", () => {
  test("deletes the computers with the labels past their deadline, keeps the rest, and touches no other label's", async () => {
    const memory = new MemoryComputers(JANITOR_VENDOR);
    const late = memory.add({ "agentrun.run": "r1" }, past(), "stopped");
    memory.add({ "agentrun.run": "r1" });
    const other = memory.add({ "agentrun.run": "r2" }, past());
    const r = await invoke("agentrun:index:sweep", contextWith(memory), { provider: "memory", labels: { "agentrun.run": "r1" } });
    expect(r.outputs).toEqual({ deleted: [late], due: [late], kept: 1 });
    expect(memory.released).toEqual([late]);
    expect(memory.store.has(other)).toBe(true);
  });

  test("a dry run names what is due and deletes nothing", async () => {
    const memory = new MemoryComputers(JANITOR_VENDOR);
    const late = memory.add({ "agentrun.run": "r1" }, past());
    const r = await invoke("agentrun:index:sweep", contextWith(memory), { provider: "memory", labels: { "agentrun.run": "r1" }, dryRun: true });
    expect(r.outputs).toEqual({ deleted: [], due: [late], kept: 0 });
    expect(memory.released).toEqual([]);
  });

  test("a provider whose vendor ends its computers is refused in the janitor's words", async () => {
    const memory = new MemoryComputers({ ...JANITOR_VENDOR, lifetime: "vendor" });
    memory.add({ team: "a" }, past());
    await expect(invoke("agentrun:index:sweep", contextWith(memory), { provider: "memory" })).rejects.toThrow(
      /sweep is for a provider whose computers the janitor deletes/,
    );
    expect(memory.released).toEqual([]);
  });

  test("dryRun that is not a boolean is refused, and nothing is deleted", async () => {
    const memory = new MemoryComputers(JANITOR_VENDOR);
    memory.add({ team: "a" }, past());
    const r = await invoke("agentrun:index:sweep", contextWith(memory), { provider: "memory", dryRun: "yes" });
    expect(r.failures).toEqual([{ property: "dryRun", reason: "dryRun must be true or false" }]);
    expect(memory.released).toEqual([]);
  });
});

describe("the plugin's invoke", () => {
  test("an unknown function is refused naming the ones it has", async () => {
    const provider = makeProvider({ version: "0.0.0", schema: "{}", settings: { ok: true, value: {} } });
    await expect(provider.invoke!("agentrun:index:nope", {})).rejects.toThrow(
      "agentrun has no function agentrun:index:nope; it has agentrun:index:listComputers, agentrun:index:sweep",
    );
  });
});
