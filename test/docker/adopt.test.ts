// Idempotent create on the real Docker engine: a create with an owner labels its container at
// create, adopts a whole computer of the same owner and spec an interrupted create left, removes
// one that is not whole, and a delete removes the owner's computers made before it.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DECLARATION_LABEL, OWNER_LABEL, ownerLabels, ownerLabel } from "../../src/contract/labels.js";
import { cleanup, docker, provider, spec, testLabel, withLabel } from "../support/docker-helpers.js";

const SMALL = { cpus: 0.5, memoryMb: 256, pids: 128 };
const owner = () => `/stack/folder\0urn:pulumi:test::adopt::agentrun:index:Computer::c-${randomBytes(4).toString("hex")}`;

describe("a create with an owner", () => {
  const made = cleanup();
  const docker1 = provider();

  it("labels its container with the owner's and the declaration's hashes, never the owner itself", async () => {
    const labels = testLabel();
    const who = owner();
    const s = spec({ labels, ...SMALL });
    const ref = await docker1.create(s, { owner: who });
    expect(ref.ok).toBe(true);
    if (!ref.ok) return;
    made.track(ref.value.name);
    const read = JSON.parse(docker("inspect", "--format", "{{json .Config.Labels}}", ref.value.name)) as Record<string, string>;
    expect(read[OWNER_LABEL]).toBe(ownerLabel(who)[OWNER_LABEL]);
    expect(read[DECLARATION_LABEL]).toBe(ownerLabels(who, s)[DECLARATION_LABEL]);
    expect(JSON.stringify(read)).not.toContain("urn:pulumi");
  }, 180_000);

  it("adopts a whole computer of the same owner and spec: the same id, nothing made again", async () => {
    const labels = testLabel();
    const who = owner();
    const first = await docker1.create(spec({ labels, ...SMALL }), { owner: who });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    made.track(first.value.name);
    const again = await docker1.create(spec({ labels, ...SMALL }), { owner: who });
    expect(again.ok && again.value.id).toBe(first.value.id);
    expect(again.ok && again.value.hello?.version).toBe(docker1.version);
    expect(withLabel(labels)).toEqual([first.value.name]);
  }, 180_000);

  it("removes a computer of its owner and spec that is not whole (stopped), then makes a new one", async () => {
    const labels = testLabel();
    const who = owner();
    const first = await docker1.create(spec({ labels, ...SMALL }), { owner: who });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    made.track(first.value.name);
    docker("stop", "--time", "1", first.value.name);
    const again = await docker1.create(spec({ labels, ...SMALL }), { owner: who });
    expect(again.ok).toBe(true);
    if (!again.ok) return;
    made.track(again.value.name);
    expect(again.value.id).not.toBe(first.value.id);
    expect(withLabel(labels)).toEqual([again.value.name]);
  }, 180_000);

  it("leaves a computer of its owner declared otherwise, and a delete removes the owner's earlier ones", async () => {
    const labels = testLabel();
    const who = owner();
    const old = await docker1.create(spec({ labels, ...SMALL }), { owner: who });
    expect(old.ok).toBe(true);
    if (!old.ok) return;
    made.track(old.value.name);
    const changed = await docker1.create(spec({ labels, ...SMALL, pids: 256 }), { owner: who });
    expect(changed.ok).toBe(true);
    if (!changed.ok) return;
    made.track(changed.value.name);
    // A replace: the new one is made beside the old; the old one's delete leaves the new one.
    expect(withLabel(labels).sort()).toEqual([old.value.name, changed.value.name].sort());
    const newer = await docker1.create(spec({ labels, ...SMALL, pids: 512 }), { owner: who });
    expect(newer.ok).toBe(true);
    if (!newer.ok) return;
    made.track(newer.value.name);
    expect((await docker1.release(changed.value, "delete")).ok).toBe(true);
    expect(withLabel(labels)).toEqual([newer.value.name]);
  }, 240_000);

  it("refuses the owner and declaration labels in a spec, in words", () => {
    const checked = docker1.check(spec({ labels: { [OWNER_LABEL]: "x" } }));
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.error.message).toMatch(/agentrun\.owner is the provider's own/);
  });
});
