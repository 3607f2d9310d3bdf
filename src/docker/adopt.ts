// An idempotent create on Docker: src/contract/adopt.ts's adoption and delete rule over the engine's own
// lookups, with the egress parts beside each computer. A computer made for an owner carries the
// owner and declaration labels from its container's create request on (the plan's labels, so its
// egress proxy and volume carry them too). A computer that adoption or a delete removes goes with
// its egress parts, and adoption removes the declaration's egress parts whose computer was never made.
// A pool's computer a run has claimed is the run's: never adopted, never removed here.
import type { CallOptions } from "../daemon/client.js";
import { type Adoption, removeEarlier as removeEarlierBy } from "../contract/adopt.js";
import { declarationLabel } from "../contract/labels.js";
import type { ComputerRef, ComputerSpec, ReadBack, SpecDefaults } from "../contract/provider.js";
import { ok, type Result } from "../daemon/result.js";
import type { DockerEngine } from "./api.js";
import { POOL_LABEL } from "../contract/labels.js";
import { claimRecords } from "./claims.js";
import { COMPUTER_LABEL } from "./constants.js";
import { failure, remove } from "./containers.js";
import { removeEgress } from "./egress.js";
import { EGRESS_LABEL } from "./egress-request.js";
import { type Inspected, labelsOf, nameOf } from "./readback.js";

const CALL_MS = 30_000;

/** The part of a DockerProvider adoption uses. */
export interface Adopter {
  readonly engine: DockerEngine;
  read(by: { id: string }, options: CallOptions): Promise<Result<ReadBack>>;
}

/** Egress parts carrying these labels, by the computer each serves. */
async function egressOf(engine: DockerEngine, labels: Record<string, string>, options: CallOptions): Promise<Result<Set<string>>> {
  const filters = JSON.stringify({ label: [EGRESS_LABEL, ...Object.entries(labels).map(([k, v]) => `${k}=${v}`)] });
  const [containers, volumes] = await Promise.all([
    engine.call<Array<{ Labels?: Record<string, string> | null }>>("GET", "/containers/json", {
      query: { all: true, filters },
      signal: options.signal,
      timeoutMs: CALL_MS,
    }),
    engine.call<{ Volumes?: Array<{ Labels?: Record<string, string> | null }> | null }>("GET", "/volumes", {
      query: { filters },
      signal: options.signal,
      timeoutMs: CALL_MS,
    }),
  ]);
  if (!containers.ok) return failure(engine, "finding egress parts left by an interrupted create", containers);
  if (!volumes.ok) return failure(engine, "finding egress volumes left by an interrupted create", volumes);
  const parts = [...(containers.value ?? []), ...(volumes.value?.Volumes ?? [])];
  return ok(new Set(parts.map((p) => p.Labels?.[EGRESS_LABEL] ?? "").filter(Boolean)));
}

/**
 * Computers (in any state) carrying these labels, inspected whole, but for a pool's computers a
 * run has claimed (a claim record names them): a refill's computer of the same slot has the same
 * labels, and must neither take one back into the pool nor remove it.
 */
async function computersOf(engine: DockerEngine, labels: Record<string, string>, options: CallOptions): Promise<Result<Inspected[]>> {
  const filters = JSON.stringify({ label: [`${COMPUTER_LABEL}=1`, ...Object.entries(labels).map(([k, v]) => `${k}=${v}`)] });
  const listed = await engine.call<Array<{ Id: string }>>("GET", "/containers/json", {
    query: { all: true, filters },
    signal: options.signal,
    timeoutMs: CALL_MS,
  });
  if (!listed.ok) return failure(engine, "finding computers left by an interrupted create", listed);
  const out: Inspected[] = [];
  for (const { Id } of listed.value ?? []) {
    const read = await engine.call<Inspected>("GET", `/containers/${Id}/json`, { signal: options.signal, timeoutMs: CALL_MS });
    if (read.status === 404) continue; // removed meanwhile
    if (!read.ok || !read.value) return failure(engine, `inspecting ${Id}`, read);
    out.push(read.value);
  }
  if (!out.some((c) => labelsOf(c)[POOL_LABEL] !== undefined)) return ok(out);
  const claimed = await claimRecords(engine, options);
  if (!claimed.ok) return claimed;
  return ok(out.filter((c) => !claimed.value.has(c.Id)));
}

/** Docker's Created (RFC 3339, up to nanoseconds) as a string that sorts in time order. */
function createdKey(created: unknown): string {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(.*)$/.exec(String(created ?? ""));
  return m ? `${m[1]}.${(m[2] ?? "").padEnd(9, "0")}${m[3]}` : "";
}

/**
 * Adoption's lookups on the engine: computers in every state, each removed with its egress parts
 * whatever the caller's signal; and, once adoption has chosen, the declaration's egress parts
 * whose computer was never made (cut off between the volume and the container).
 */
export function dockerAdoption(provider: Adopter, defaults?: SpecDefaults): Adoption {
  return {
    list: async (labels, options) => {
      const found = await computersOf(provider.engine, labels, options);
      if (!found.ok) return found;
      return ok(
        found.value.map((c) => ({
          ref: { id: c.Id, name: nameOf(c), provider: "docker" },
          state: c.State?.Running ? "running" : "stopped",
          created: createdKey(c.Created),
        })),
      );
    },
    read: (by, options) => provider.read(by, options),
    remove: async (ref) => {
      const removed = await remove(provider.engine, ref.id);
      return removed.ok ? removeEgress(provider.engine, ref.name) : removed;
    },
    defaults,
    leftovers: (spec, owner, adopted, options) => removeLeftParts(provider.engine, spec, owner, adopted, options),
  };
}

/** The declaration's egress parts whose computer was never made; the adopted computer's stay. */
async function removeLeftParts(
  engine: DockerEngine,
  spec: ComputerSpec,
  owner: string,
  adopted: ComputerRef | undefined,
  options: CallOptions,
): Promise<Result<undefined>> {
  // Only a computer with an allowlist of its own makes egress parts, and a declaration is one
  // spec: any other has none to look for (two engine calls saved on every such create).
  const ownProxy = spec.egress === undefined && typeof spec.network === "object" && spec.network !== null && "allow" in spec.network;
  if (!ownProxy) return ok();
  const parts = await egressOf(engine, declarationLabel(owner, spec), options);
  if (!parts.ok) return parts;
  for (const computer of parts.value) {
    if (computer === adopted?.name) continue;
    const removed = await removeEgress(engine, computer);
    if (!removed.ok) return removed;
  }
  return ok();
}

/** After a delete: the owner's computers made before the one deleted (src/contract/adopt.ts removeEarlier), with their egress parts. */
export function removeEarlier(provider: Adopter, deleted: Inspected): Promise<Result<string[]>> {
  return removeEarlierBy(dockerAdoption(provider), { id: deleted.Id, labels: labelsOf(deleted), created: createdKey(deleted.Created) });
}
