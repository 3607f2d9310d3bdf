// agentrun:index:ComputerSnapshot, a snapshot of a computer of the stack that forks start from: its
// `image` output is what a Computer's (or a Fleet template's) `image` takes as it is, so a fork
// depends on it and the engine removes the forks before it. check: a provider with no snapshot
// hooks, or a computer gone or of no stack of ours, is refused before anything is made. create: the
// vendor's take, with the resource's owner. read: the snapshot read back by its image; gone → no id,
// so the next up takes it again from its computer (or says in words that it cannot). Every input is
// fixed: a change takes a new one. delete: the vendor's remove.
import type { CheckFailure } from "@pulumi/pulumi/provider/index.js";
import { z } from "zod";
import { OWNER_LABEL } from "../../src/contract/labels.js";
import type { ComputerProvider, ComputerRef, SnapshotHooks } from "../../src/contract/provider.js";
import type { Snapshot } from "../../src/contract/state.js";
import { DEFAULT_PROVIDER } from "../../src/providers.js";
import { ResultFailure, orThrow } from "../../src/daemon/result.js";
import { canonical } from "../../src/contract/canonical.js";
import { fieldsOf, isField, strings } from "../inputs.js";
import type { Context, Step, Stored } from "../resource.js";
import { bounded, resource, resourceOwner, unknownFields, vendorOf } from "../resource.js";
import { whileWaiting } from "../progress.js";
import { UNKNOWN, hasUnknown, unwrap, wrapDerived, type Props } from "../secrets.js";
import type { FieldDiff } from "../server.js";

const TYPE = "agentrun:index:ComputerSnapshot";
// A take copies the computer's files (a large one takes minutes); a read or a remove is one call.
const TAKE_MS = 15 * 60_000;
const STEP_MS = 2 * 60_000;

/** A ComputerSnapshot's inputs as a stack gives them. */
const Given = z.strictObject({
  computer: z.string().min(1),
  provider: z.string().min(1).optional(),
  note: z.string().optional(),
  labels: strings().optional(),
});
const INPUTS = fieldsOf(Given);
const TAKES: Record<(typeof INPUTS)[number], string> = {
  computer: "the Computer's vendorId output",
  provider: `a provider's id, such as "${DEFAULT_PROVIDER}"`,
  note: "a string",
  labels: "an object of string values",
};
/** What check gives: the provider and the labels filled in. */
const Checked = Given.required({ provider: true, labels: true });
type Inputs = z.infer<typeof Checked>;
/** What the steps read of the stored state: the inputs and the snapshot as taken. */
const Stored = Given.extend({ image: z.string(), sizeBytes: z.number(), takenAt: z.string(), holds: z.string() });
type State = Stored<z.infer<typeof Stored>>;

/** The provider's snapshot hooks, or its refusal in words naming it. */
function hooksOf(provider: ComputerProvider): SnapshotHooks | string {
  return (
    provider.snapshots ??
    `the ${provider.id} provider takes no snapshots (its capability row has no snapshot): a ComputerSnapshot needs a provider that takes them, such as docker`
  );
}

/** The computer read back by its vendor id: its ref, or why no snapshot can be taken of it. */
async function computerOf(provider: ComputerProvider, id: string, signal: AbortSignal): Promise<ComputerRef | string> {
  if (!provider.read) return `the ${provider.id} provider cannot read a computer back`;
  const read = await provider.read({ id }, { signal });
  if (!read.ok && read.error.code === "not_found")
    return `computer ${id} is gone, so no snapshot can be taken of it: an up makes its Computer again first, or remove this ComputerSnapshot`;
  if (!read.ok) throw new ResultFailure(read.error);
  if (!read.value.labels[OWNER_LABEL]) return `computer ${id} belongs to no stack of ours: a snapshot is taken of a Computer of this stack`;
  return read.value.ref;
}

async function check(ctx: Context, _olds: Props, news: Props) {
  const { plain, secretKeys } = unwrap(news);
  const failures: CheckFailure[] = unknownFields(plain, INPUTS, TYPE);
  const known = Object.fromEntries(Object.entries(plain).filter(([k, v]) => isField(INPUTS, k) && !hasUnknown(v)));
  const parsed = Given.partial({ computer: true }).safeParse(known);
  const refused = new Set<string>();
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    const property = String(issue.path[0] ?? "");
    if (!isField(INPUTS, property) || refused.has(property)) continue;
    failures.push({ property, reason: `${property} must be ${TAKES[property]}` });
    refused.add(property);
  }
  if (plain.computer === undefined) failures.push({ property: "computer", reason: `computer is required: ${TAKES.computer}` });
  // Labels and the note are stored at the vendor in clear, with the snapshot.
  for (const k of ["note", "labels"])
    if (secretKeys.has(k)) failures.push({ property: k, reason: `${k} (a secret) is refused: it is kept in clear with the snapshot` });
  const id = plain.provider ?? DEFAULT_PROVIDER;
  if (typeof id === "string" && id !== UNKNOWN && !refused.has("provider")) {
    const v = await ctx.vendor(id);
    const hooks = v.ok ? hooksOf(v.value) : v.error.message;
    if (typeof hooks === "string") failures.push({ property: "provider", reason: hooks });
    else if (v.ok && typeof known.computer === "string" && !refused.has("computer")) {
      // A computer known now (one the stack made before) is held to be there and ours, before anything is made.
      const found = await computerOf(v.value, known.computer, bounded(ctx, STEP_MS));
      if (typeof found === "string") failures.push({ property: "computer", reason: found });
    }
  }
  if (failures.length) return { failures };
  return { inputs: wrapDerived({ labels: {}, ...plain, provider: id }, secretKeys) };
}

function outputsOf(inputs: Props, s: Snapshot): Props {
  return { ...inputs, image: s.image, sizeBytes: s.sizeBytes, takenAt: s.takenAt, holds: s.holds };
}

async function create(ctx: Context, { inputs }: Step<Inputs>) {
  const provider = await vendorOf(ctx, inputs.provider);
  const hooks = hooksOf(provider);
  if (typeof hooks === "string") throw new Error(hooks);
  const signal = bounded(ctx, TAKE_MS);
  const ref = await computerOf(provider, inputs.computer, signal);
  if (typeof ref === "string") throw new Error(ref);
  const owner = resourceOwner(ctx);
  const options = { signal, labels: inputs.labels, ...(inputs.note === undefined ? {} : { note: inputs.note }), ...(owner === undefined ? {} : { owner }) };
  const taken = orThrow(await whileWaiting(ctx.say, `taking a snapshot of ${ref.name} on ${provider.id}`, () => hooks.take(ref, options)));
  return { id: taken.image, outs: outputsOf(inputs, taken) };
}

/** The snapshot read back by its image; gone drops it, so the next up takes it again. */
async function read(ctx: Context, id: string, { old }: State, stored?: Props) {
  const provider = await vendorOf(ctx, old.provider ?? DEFAULT_PROVIDER);
  const hooks = hooksOf(provider);
  if (typeof hooks === "string") throw new Error(hooks);
  const image = old.image ?? id;
  const r = await hooks.read(image, { signal: bounded(ctx, STEP_MS) });
  if (!r.ok && r.error.code === "not_found") return {};
  const s = orThrow(r);
  // An import declared nothing: it takes the snapshot's computer, by name, and no labels of its own.
  const inputs: Props = stored ? unwrap(stored).plain : { computer: old.computer ?? s.computer, provider: provider.id, labels: old.labels ?? {} };
  return { id: s.image, props: outputsOf({ ...inputs, ...(old.note === undefined ? {} : { note: old.note }) }, s), inputs };
}

/** Every input is fixed: a snapshot is taken once, so a change takes a new one (and removes the old after). */
async function diff(_ctx: Context, _id: string, { old }: State, news: Props): Promise<FieldDiff> {
  const n: Props = { labels: {}, provider: DEFAULT_PROVIDER, ...news };
  const replaces = INPUTS.filter((k) => canonical(old[k] ?? (k === "labels" ? {} : undefined)) !== canonical(n[k]));
  return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false, diffs: replaces };
}

/** diff asks for no update (every change replaces): an update reads it back. */
async function update(ctx: Context, id: string, olds: State) {
  const r = await read(ctx, id, olds);
  if (!r.props) throw new Error(`the snapshot ${id} is gone; the next up takes it again`);
  return { outs: r.props };
}

async function remove(ctx: Context, id: string, { old }: State) {
  const provider = await vendorOf(ctx, old.provider ?? DEFAULT_PROVIDER);
  const hooks = hooksOf(provider);
  if (typeof hooks === "string") throw new Error(hooks);
  orThrow(await hooks.remove(old.image ?? id, { signal: bounded(ctx, STEP_MS) }));
}

export const computerSnapshot = resource(TYPE, {
  given: Given,
  inputs: INPUTS,
  checked: Checked,
  stored: Stored,
  check,
  diff,
  create,
  read,
  update,
  delete: remove,
});
