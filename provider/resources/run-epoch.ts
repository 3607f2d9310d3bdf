// agentrun:index:RunEpoch, a claim on a run. create: releaseOlder(provider, run, epoch), refused
// when fenced; its outputs are the run and epoch labels for the run's computers. read: a computer
// of the run at a higher epoch is drift ("fenced: a later claim holds run r1"). Raising the epoch
// replaces the claim, and the new claim releases the older computers first. delete releases the
// computers of its epoch that are still there, so a destroy leaves none behind.
import { z } from "zod";
import { releaseOlder } from "../../src/fleet/janitor.js";
import { fieldsOf } from "../inputs.js";
import { EPOCH_LABEL, RUN_LABEL, epochOf, epochProblem, runLabels, runProblem } from "../../src/contract/labels.js";
import type { ComputerProvider } from "../../src/contract/provider.js";
import { DEFAULT_PROVIDER } from "../../src/providers.js";
import { orThrow } from "../../src/daemon/result.js";
import type { Context, Step, Stored } from "../resource.js";
import { bounded, resource, unknownFields, vendorOf } from "../resource.js";
import { UNKNOWN, unwrap, wrapDerived, type Props } from "../secrets.js";

const TYPE = "agentrun:index:RunEpoch";
const STEP_MS = 5 * 60_000;
const DERIVED = { labels: ["run", "epoch"], released: ["run"], drift: ["run"] } as const;

/** A RunEpoch's inputs as a stack gives them. */
const Given = z.strictObject({ provider: z.string().min(1).optional(), run: z.string(), epoch: z.number().int() });
const INPUTS = fieldsOf(Given);
/** What check gives: the provider filled in. */
const Checked = Given.required();
type Inputs = z.infer<typeof Checked>;
/** What the steps read of the stored state: the inputs, and what was released and found. */
const Stored = Given.extend({ released: z.array(z.string()), drift: z.array(z.string()) });

async function check(ctx: Context, _olds: Props, news: Props) {
  const { plain, secretKeys } = unwrap(news);
  const failures = unknownFields(plain, INPUTS, TYPE);
  const provider = plain.provider ?? DEFAULT_PROVIDER;
  if (typeof provider !== "string" || provider === "") failures.push({ property: "provider", reason: "provider is a registry id, such as docker" });
  else if (provider !== UNKNOWN) {
    const v = await ctx.vendor(provider);
    if (!v.ok) failures.push({ property: "provider", reason: v.error.message });
  }
  if (plain.run !== UNKNOWN) {
    const p = plain.run === undefined ? "run is required: the run's id" : runProblem(plain.run);
    if (p) failures.push({ property: "run", reason: p });
  }
  if (plain.epoch !== UNKNOWN) {
    const p = plain.epoch === undefined ? "epoch is required: the claim's epoch, a whole number" : epochProblem(plain.epoch);
    if (p) failures.push({ property: "epoch", reason: p });
  }
  if (failures.length) return { failures };
  return { inputs: wrapDerived({ provider, run: plain.run, epoch: plain.epoch }, secretKeys) };
}

async function create(ctx: Context, { inputs, secretKeys }: Step<Inputs>) {
  const provider = await vendorOf(ctx, inputs.provider);
  const claimed = orThrow(await releaseOlder(provider, inputs.run, inputs.epoch, { signal: bounded(ctx, STEP_MS) }));
  const outs = { ...inputs, labels: runLabels(inputs.run, inputs.epoch), released: claimed.released, drift: [] };
  return { id: `${inputs.run}@${inputs.epoch}`, outs: wrapDerived(outs, secretKeys, DERIVED) };
}

/** The run's computers at a higher epoch than this claim's: each a drift sentence. */
async function fencedBy(provider: ComputerProvider, inputs: Inputs, signal: AbortSignal): Promise<string[]> {
  const listed = orThrow(await provider.list({ [RUN_LABEL]: inputs.run }, { signal }));
  const later = listed.filter((i) => {
    const e = epochOf(i.labels);
    return i.labels[RUN_LABEL] === inputs.run && e.ok && e.value > inputs.epoch;
  });
  if (later.length === 0) return [];
  const at = later.map((i) => `${i.ref.name} at epoch ${i.labels[EPOCH_LABEL]}`).join(", ");
  return [`fenced: a later claim holds run ${inputs.run} (${at}), above this claim's epoch ${inputs.epoch}`];
}

/** The claim stored state names; an import's, from its id (run@epoch). */
function claimOf(id: string, old: Partial<Inputs>): Inputs {
  const at = id.lastIndexOf("@");
  return { provider: old.provider ?? DEFAULT_PROVIDER, run: old.run ?? id.slice(0, at), epoch: old.epoch ?? Number(id.slice(at + 1)) };
}

async function read(ctx: Context, id: string, { old, secretKeys }: Stored<z.infer<typeof Stored>>) {
  const inputs = claimOf(id, old);
  const provider = await vendorOf(ctx, inputs.provider);
  const drift = await fencedBy(provider, inputs, bounded(ctx, STEP_MS));
  const outs = { ...inputs, labels: runLabels(inputs.run, inputs.epoch), released: old.released ?? [], drift };
  return { id, props: wrapDerived(outs, secretKeys, DERIVED), inputs: wrapDerived(inputs, secretKeys) };
}

async function diff(_ctx: Context, _id: string, { old: o }: Stored<z.infer<typeof Stored>>, n: Props) {
  const replaces: string[] = INPUTS.filter((k) => o[k] !== n[k]);
  // A fenced claim is no claim: the next up claims again, and is refused in words if still fenced.
  if (o.drift?.length) replaces.push("drift");
  return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
}

async function update(): Promise<never> {
  throw new Error("a run claim is never changed in place; a new epoch is a new claim");
}

async function remove(ctx: Context, id: string, stored: Stored<z.infer<typeof Stored>>) {
  const old = claimOf(id, stored.old);
  const provider = await vendorOf(ctx, old.provider);
  const signal = bounded(ctx, STEP_MS);
  // The claim's own computers still there; a later claim's are never touched.
  const listed = orThrow(await provider.list({ [RUN_LABEL]: old.run, [EPOCH_LABEL]: String(old.epoch) }, { signal }));
  const left: string[] = [];
  for (const info of listed) {
    if (info.labels[RUN_LABEL] !== old.run || info.labels[EPOCH_LABEL] !== String(old.epoch)) continue;
    const released = await provider.release(info.ref, "delete", { signal });
    if (!released.ok) left.push(`${info.ref.name} (${released.error.message})`);
  }
  if (left.length) throw new Error(`the claim on run ${old.run} at epoch ${old.epoch} could not release ${left.join("; ")}`);
}

export const runEpoch = resource(TYPE, { given: Given, inputs: INPUTS, checked: Checked, stored: Stored, check, diff, create, read, update, delete: remove });
