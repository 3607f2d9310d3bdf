// agentrun:index:WarmPool, computers made ahead for runs to claim (src/fleet/pool.ts claim, in
// milliseconds). create and update fill the pool to its size; read counts the ready ones, and a
// pool short of its size is drift; diff counts them too, so a plain `up` after claims refills it.
// A changed template makes a new pool (new computers) before the old one's ready computers go.
// delete releases the ready computers (and any a cut-off fill left); the claimed ones are their
// runs', released by their RunEpoch, releaseOlder or the sweep. Each computer is made for the resource and its slot, so a
// create or update cut off (the plugin killed mid-fill) is adopted by the next one, one computer
// per slot, and the pool never holds more than its size; a create's pool id is kept meanwhile
// (pool-pending.ts), so the next create fills the same pool.
import { randomBytes } from "node:crypto";
import { ownerLabels, DECLARATION_LABEL, EPOCH_LABEL, RUN_LABEL } from "../../src/contract/labels.js";
import { clearPool, drainPool, fillPool, POOL_LABEL, poolReady, type Pool } from "../../src/fleet/pool.js";
import { ResultFailure, orThrow } from "../../src/daemon/result.js";
import { dropPending, readPending, writePending } from "../pool-pending.js";
import type { Context, Step, Stored } from "../resource.js";
import { bounded, resource, resourceOwner, unknownFields, vendorOf } from "../resource.js";
import { UNKNOWN, isObject, unwrap, wrapDerived, secret, type Props } from "../secrets.js";
import { CHECKED, computer, specOf, TEMPLATE, type Inputs as ComputerInputs } from "./computer.js";
import { defaultImage } from "./computer-image.js";
import { z } from "zod";
import { fieldsOf } from "../inputs.js";

const TYPE = "agentrun:index:WarmPool";
/** A WarmPool's inputs as a stack gives them. */
const Given = z.strictObject({ size: z.number().int(), template: TEMPLATE.optional() });
const INPUTS = fieldsOf(Given);
/** What check gives: the size, and the template as a Computer's check gives it. */
const Checked = z.strictObject({ size: z.number().int(), template: CHECKED });
type Inputs = z.infer<typeof Checked>;
/** What the steps read of the stored state: the size and the template. */
const Stored = z.object({ size: z.number().int(), template: TEMPLATE });
type State = Stored<z.infer<typeof Stored>>;
/** A pool is a few computers kept warm; a larger one is two pools. */
export const MAX_POOL = 100;
const FILL_MS = 15 * 60_000;
const STEP_MS = 2 * 60_000;
/** Labels a pool's computers get when claimed, or that are the pool's own: never in a template. */
const CLAIM_LABELS = [RUN_LABEL, EPOCH_LABEL, POOL_LABEL];

/** Why a pool's size is refused, or undefined. */
export function poolSizeProblem(size: unknown): string | undefined {
  if (size === undefined) return "size is required: how many ready computers the pool keeps";
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0 || size > MAX_POOL) return `size is a whole number from 0 to ${MAX_POOL}`;
  return undefined;
}

/** Why a checked template cannot be a pool's, or undefined. */
export function poolTemplateProblems(template: Props): Array<{ property: string; reason: string }> {
  const out: Array<{ property: string; reason: string }> = [];
  if (template.network === "allow" || template.egress !== undefined) {
    out.push({
      property: "template",
      reason:
        "a warm pool takes network none or open: an allowlist's proxy is made for one computer by its name, which a claim changes, and a pool does not join a shared proxy",
    });
  }
  if (template.state === "paused")
    out.push({ property: "template", reason: "template.state paused is refused: a warm pool keeps its computers running, ready to claim; leave state out" });
  const labels = isObject(template.labels) ? template.labels : {};
  for (const k of CLAIM_LABELS) {
    if (k in labels)
      out.push({ property: "template", reason: `template.labels has ${k}, which a claim gives (run and epoch) or the pool does (its id): leave it out` });
  }
  return out;
}

async function check(ctx: Context, _olds: Props, news: Props) {
  const { plain, secretKeys } = unwrap(news);
  const failures = unknownFields(plain, INPUTS, TYPE);
  if (plain.size !== UNKNOWN) {
    const p = poolSizeProblem(plain.size);
    if (p) failures.push({ property: "size", reason: p });
  }
  const given = plain.template ?? {};
  if (!isObject(given)) {
    failures.push({ property: "template", reason: "template is an object of a Computer's inputs" });
    return { failures };
  }
  // The template is checked as a Computer is, with the provider's defaults filled in.
  const checked = await computer.check(ctx, {}, given);
  // A problem of the whole computer (no property) is said as it is, not as a field's.
  for (const f of checked.failures ?? []) failures.push({ property: "template", reason: f.property ? `template.${f.property}: ${f.reason}` : f.reason });
  // The pool's own refusals are said beside the template's, from what was given where the check refused it.
  const template: Props = checked.inputs ? unwrap(checked.inputs).plain : given;
  failures.push(...poolTemplateProblems(template));
  if (failures.length) return { failures };
  if (template.provider === UNKNOWN) return { inputs: wrapDerived({ size: plain.size, template }, secretKeys) };
  const provider = await vendorOf(ctx, String(template.provider));
  if (!provider.pool)
    return {
      failures: [{ property: "template", reason: `template.provider: the ${provider.id} provider has no warm pools (it gives no atomic claim); use a Fleet` }],
    };
  return { inputs: wrapDerived({ size: plain.size, template }, secretKeys) };
}

function poolOf(ctx: Context, id: string, template: Props): Promise<Pool> {
  return vendorOf(ctx, String(template.provider)).then((provider) => ({ provider, id }));
}

/** The pool's state: its inputs, its id, and its ready computers now against its size. */
function outputsOf(size: number, template: Props, poolId: string, ready: string[], secretKeys: Set<string>): Props {
  const short = ready.length < size ? [`short: ${ready.length} of ${size} computers ready (claimed or gone); the next up refills it`] : [];
  const outs: Props = { size, template, poolId, ready: ready.length, members: ready, drift: short };
  return secretKeys.has("template") ? { ...outs, template: secret(template) } : outs;
}

async function fillTo(ctx: Context, pool: Pool, template: ComputerInputs, size: number): Promise<string[]> {
  const signal = bounded(ctx, FILL_MS);
  const inputs = { ...template };
  inputs.image ??= await defaultImage(pool.provider, signal, ctx);
  const owner = resourceOwner(ctx);
  orThrow(await fillPool(pool, specOf(inputs), size, { signal, ...(owner === undefined ? {} : { owner }) }));
  // Past its size (a smaller pool), the extra ready computers go.
  orThrow(await drainPool(pool, size, { signal }));
  return orThrow(await poolReady(pool, { signal })).map((r) => r.name);
}

/**
 * The pool a create fills: the one a cut-off create of this resource was filling, when declared
 * the same (its computers are then adopted); else a new one, recorded before any computer is
 * made, and a cut-off one declared otherwise is cleared.
 */
async function poolIdFor(ctx: Context, owner: string | undefined, template: Props): Promise<string> {
  const fresh = `pool-${randomBytes(8).toString("hex")}`;
  if (owner === undefined) return fresh;
  const declaration = ownerLabels(owner, template)[DECLARATION_LABEL]!;
  const pending = await readPending(owner);
  if (pending?.declaration === declaration) return pending.poolId;
  if (pending) orThrow(await clearPool(await poolOf(ctx, pending.poolId, { provider: pending.provider }), { signal: bounded(ctx, STEP_MS) }));
  await writePending(owner, { poolId: fresh, declaration, provider: String(template.provider) });
  return fresh;
}

async function create(ctx: Context, { inputs: { template, size }, secretKeys }: Step<Inputs>) {
  const owner = resourceOwner(ctx);
  const pool = await poolOf(ctx, await poolIdFor(ctx, owner, template), template);
  try {
    const ready = await fillTo(ctx, pool, template, size);
    if (owner !== undefined) await dropPending(owner);
    return { id: pool.id, outs: outputsOf(size, template, pool.id, ready, secretKeys) };
  } catch (error) {
    // A failed create leaves nothing: the computers it made are released.
    await clearPool(pool);
    if (owner !== undefined) await dropPending(owner);
    throw error;
  }
}

async function read(ctx: Context, id: string, { old, secretKeys }: State) {
  const template = old.template ?? {};
  const pool = await poolOf(ctx, id, template);
  const ready = orThrow(await poolReady(pool, { signal: bounded(ctx, STEP_MS) })).map((r) => r.name);
  const outs = outputsOf(old.size ?? 0, template, id, ready, secretKeys);
  return { id, props: outs, inputs: wrapDerived({ size: old.size, template }, secretKeys) };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

async function diff(ctx: Context, id: string, { old: o }: State, n: Props) {
  if (!same(o.template, n.template)) return { changes: true, replaces: ["template"], deleteBeforeReplace: false };
  if (o.size !== n.size) return { changes: true, replaces: [], deleteBeforeReplace: false };
  // Counted now, not as last read: computers claimed since make a plain up refill the pool.
  if (typeof n.size === "number" && isObject(n.template)) {
    const ready = await poolReady(await poolOf(ctx, id, n.template), { signal: bounded(ctx, STEP_MS) });
    if (!ready.ok) throw new ResultFailure(ready.error);
    if (ready.value.length !== n.size) return { changes: true, replaces: [], deleteBeforeReplace: false };
  }
  return { changes: false, replaces: [], deleteBeforeReplace: false };
}

async function update(ctx: Context, id: string, _olds: State, { inputs: { template, size }, secretKeys }: Step<Inputs>) {
  const ready = await fillTo(ctx, await poolOf(ctx, id, template), template, size);
  return { outs: outputsOf(size, template, id, ready, secretKeys) };
}

async function remove(ctx: Context, id: string, { old }: State) {
  orThrow(await clearPool(await poolOf(ctx, id, old.template ?? {}), { signal: bounded(ctx, STEP_MS) }));
}

export const warmPool = resource(TYPE, { given: Given, inputs: INPUTS, checked: Checked, stored: Stored, check, diff, create, read, update, delete: remove });
