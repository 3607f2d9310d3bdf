// The idempotent create as a story every vendor's Docker-backed fake tells the same way: a create
// for an owner labels its sandbox in the create request; a second create of the same owner and
// spec adopts it; one that is not whole is removed and another made; another declaration leaves
// it; and a delete removes the owner's computers made before it where the vendor reads back when
// it made them. Each step is its own test over the sandboxes the steps before it left.
import { randomBytes } from "node:crypto";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { ownerLabels, DECLARATION_LABEL, OWNER_LABEL, ownerLabel } from "../../src/contract/labels.js";
import type { ComputerProvider, ComputerRef, ComputerSpec } from "../../src/contract/provider.js";
import { orThrow } from "../../src/daemon/result.js";

export interface AdoptionCase {
  provider(): ComputerProvider;
  spec: ComputerSpec;
  /** The labels the vendor holds on the sandbox as its create request set them, read from the fake, not the provider. */
  labelsMade(id: string): Promise<Record<string, string>>;
  /** True while the vendor still holds the sandbox (a terminated Modal sandbox is gone to Modal). */
  held(id: string): Promise<boolean>;
  /** How the sandbox is made not whole, in words, and the doing of it. */
  broken: { how: string; make(provider: ComputerProvider, ref: ComputerRef): Promise<void> };
  /** Whether the vendor reads back when it made a computer, so a delete removes the owner's earlier ones. */
  readsCreated: boolean;
}

const STEP_MS = 240_000;

/** A fake's container labels under a prefix (the tags or metadata the create request gave it), the prefix cut off. */
export async function containerLabels(id: string, prefix: string): Promise<Record<string, string>> {
  const { stdout } = await execa("docker", ["inspect", "--type", "container", "--format", "{{json .Config.Labels}}", id]);
  const labels = JSON.parse(stdout) as Record<string, string>;
  return Object.fromEntries(
    Object.entries(labels)
      .filter(([k]) => k.startsWith(prefix))
      .map(([k, v]) => [k.slice(prefix.length), v]),
  );
}

export function adoptionStory(vendor: string, c: AdoptionCase): void {
  const owner = `/work/stack\0urn:pulumi:test::adopt::agentrun:index:Computer::c-${randomBytes(4).toString("hex")}`;
  const other: ComputerSpec = { ...c.spec, labels: { ...c.spec.labels, "agentrun.test.declared": "otherwise" } };
  const made: Record<string, ComputerRef> = {};
  const owned = async () =>
    orThrow(await c.provider().list(ownerLabel(owner)))
      .map((x) => x.ref.id)
      .sort();

  describe(`an idempotent create on ${vendor}`, () => {
    it(
      "labels the sandbox with the owner and its declaration in the create request, and reads it back with no drift",
      async () => {
        made.first = orThrow(await c.provider().create(c.spec, { owner }));
        const labels = await c.labelsMade(made.first.id);
        expect({ owner: labels[OWNER_LABEL], declaration: labels[DECLARATION_LABEL] }).toEqual({
          owner: ownerLabels(owner, c.spec)[OWNER_LABEL],
          declaration: ownerLabels(owner, c.spec)[DECLARATION_LABEL],
        });
        const read = orThrow(await c.provider().read!({ id: made.first.id }));
        expect({ state: read.state, drift: read.drift }).toEqual({ state: "running", drift: [] });
        expect(orThrow(await c.provider().attach({ id: made.first.id })).name).toBe(made.first.name);
      },
      STEP_MS,
    );

    it(
      "adopts it on a second create of the same owner and spec: the same sandbox, none made",
      async () => {
        const again = orThrow(await c.provider().create(c.spec, { owner }));
        expect({ id: again.id, name: again.name }).toEqual({ id: made.first!.id, name: made.first!.name });
        expect(await owned()).toEqual([made.first!.id]);
      },
      STEP_MS,
    );

    it(
      `removes it when it is not whole (${c.broken.how}) and makes another`,
      async () => {
        await c.broken.make(c.provider(), made.first!);
        made.second = orThrow(await c.provider().create(c.spec, { owner }));
        expect(made.second.id).not.toBe(made.first!.id);
        expect(await c.held(made.first!.id)).toBe(false);
        expect(await owned()).toEqual([made.second.id]);
      },
      STEP_MS,
    );

    it(
      "leaves it on a create of the same owner declared otherwise",
      async () => {
        made.third = orThrow(await c.provider().create(other, { owner }));
        expect(made.third.id).not.toBe(made.second!.id);
        expect(await owned()).toEqual([made.second!.id, made.third.id].sort());
      },
      STEP_MS,
    );

    if (c.readsCreated) {
      it(
        "a delete leaves the owner's computer made after the one deleted (a replace's new one)",
        async () => {
          expect(await c.provider().release(made.second!, "delete")).toEqual({ ok: true, value: undefined });
          expect(await owned()).toEqual([made.third!.id]);
        },
        STEP_MS,
      );

      it(
        "a delete removes the owner's computers made before the one deleted (left by an interrupted create)",
        async () => {
          const last = orThrow(await c.provider().create({ ...other, labels: { ...other.labels, "agentrun.test.declared": "later" } }, { owner }));
          expect(await owned()).toEqual([made.third!.id, last.id].sort());
          expect(await c.provider().release(last, "delete")).toEqual({ ok: true, value: undefined });
          expect(await c.held(made.third!.id)).toBe(false);
          expect(await owned()).toEqual([]);
        },
        STEP_MS,
      );
    } else {
      it(
        "a delete leaves the owner's other computers: the vendor reads back no creation time to order them by",
        async () => {
          expect(await c.provider().release(made.third!, "delete")).toEqual({ ok: true, value: undefined });
          expect(await owned()).toEqual([made.second!.id]);
          expect(await c.provider().release(made.second!, "delete")).toEqual({ ok: true, value: undefined });
          expect(await owned()).toEqual([]);
        },
        STEP_MS,
      );
    }
  });
}
