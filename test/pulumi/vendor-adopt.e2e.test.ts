// Idempotent create through the real engine and the plugin, on a vendor other than Docker: a
// Daytona computer against the fake. A sandbox the stack's state lost (a create whose answer never
// reached the state, made here by `pulumi state delete`) is adopted by the next up, not made
// twice; a refresh of a computer gone by its id finds the resource's sandbox by its owner label;
// destroy leaves nothing.
import { describe, expect, test } from "vitest";
import { DECLARATION_LABEL, OWNER_LABEL } from "../../src/contract/labels.js";
import { useDaytonaStack } from "../support/daytona-helpers.js";

const KEY = `fake-key-adopt-${process.pid}`;
const COMPUTER = "agentrun:index:Computer";

describe("an idempotent create on Daytona through the real engine, against the fake", () => {
  const held = useDaytonaStack(
    "vadopt",
    KEY,
    {
      d: { type: COMPUTER, properties: { provider: "daytona", image: "default", lifetimeMs: 600_000, network: "none" } },
    },
    { id: "${d.id}", vendorId: "${d.vendorId}" },
  );
  let first = "";

  const computerUrn = async () => {
    const state = await held.s.stack.exportStack();
    return (state.deployment.resources as Array<{ urn: string; type: string }>).find((r) => r.type === COMPUTER)?.urn;
  };

  test("up makes one sandbox, labelled for its resource", async () => {
    const up = await held.s.stack.up({ color: "never" });
    first = String(up.outputs.vendorId?.value);
    expect([...held.fake.sandboxes.keys()]).toEqual([first]);
    const labels = held.fake.sandboxes.get(first)!.labels;
    expect(labels[OWNER_LABEL]).toMatch(/^[0-9a-f]{32}$/);
    expect(labels[DECLARATION_LABEL]).toMatch(/^[0-9a-f]{32}$/);
  }, 300_000);

  test("a sandbox the state lost is adopted by the next up: the same sandbox, none made", async () => {
    const urn = await computerUrn();
    expect(urn).toBeDefined();
    const deleted = await held.s.cli("state", "delete", urn!, "--yes");
    expect(deleted.exitCode, deleted.stderr).toBe(0);
    expect(await computerUrn()).toBeUndefined();
    expect(held.fake.sandboxes.size).toBe(1);
    const up = await held.s.stack.up({ color: "never" });
    expect(String(up.outputs.vendorId?.value)).toBe(first);
    expect([...held.fake.sandboxes.keys()]).toEqual([first]);
  }, 300_000);

  test("a refresh of a computer gone by its id finds the resource's sandbox by its owner label", async () => {
    const state = await held.s.stack.exportStack();
    const computer = (state.deployment.resources as Array<{ type: string; id: string; outputs: Record<string, unknown> }>).find((r) => r.type === COMPUTER)!;
    computer.id = "computer-000000000000";
    computer.outputs = { ...computer.outputs, name: "computer-000000000000", vendorId: "00000000-0000-4000-8000-000000000000" };
    await held.s.stack.importStack(state);
    const refreshed = await held.s.cli("refresh", "--yes", "--skip-preview");
    expect(refreshed.exitCode, refreshed.stdout + refreshed.stderr).toBe(0);
    const after = (await held.s.stack.exportStack()).deployment.resources as Array<{ type: string; id: string; outputs: Record<string, unknown> }>;
    const found = after.find((r) => r.type === COMPUTER)!;
    expect({ id: found.id, vendorId: found.outputs.vendorId }).toEqual({ id: held.fake.sandboxes.get(first)!.name, vendorId: first });
    expect(held.fake.sandboxes.size).toBe(1);
  }, 300_000);

  // The file's end checks that no container of the fake is left.
  test("destroy removes the adopted sandbox", async () => {
    await held.s.stack.destroy({ color: "never" });
    expect([...held.fake.sandboxes.keys()]).toEqual([]);
  }, 300_000);
});
