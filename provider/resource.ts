// What each resource module gives the plugin (the handler contract and the context it is called
// with), and the helpers every handler shares. The table of resources is the plugin's (plugin.ts),
// so this contract imports no handler.
import type { ComponentResourceOptions, Inputs } from "@pulumi/pulumi";
import { z } from "zod";
import type { CheckResult, ConstructResult, CreateResult, ReadResult, UpdateResult } from "@pulumi/pulumi/provider/index.js";
import type { FieldDiff } from "./server.js";
import type { ComputerProvider } from "../src/contract/provider.js";
import { boundedBy } from "../src/daemon/bound.js";
import { orThrow } from "../src/daemon/result.js";
import type { Settings } from "./config.js";
import type { Say } from "./progress.js";
import { hasUnknown, unwrap, type Props } from "./secrets.js";
import type { Vendors } from "./vendors.js";

export interface Context {
  settings: Settings;
  /** The library's provider of an id, built once from the settings. */
  vendor: Vendors;
  /** Aborted when the engine cancels the operation (Ctrl-C): every vendor call takes it. */
  signal: AbortSignal;
  /** Says a line on this resource's line in the engine (a long wait's reason); absent outside a step. */
  say?: Say;
  /** Says a line the engine keeps among the resource's diagnostics, shown after the step too; absent outside a step. */
  tell?: Say;
  /** The resource's URN, in a check or a step (create, read, update, delete); a key for what it keeps inside a computer. */
  urn?: string;
}

/** What the plugin calls: a resource's steps on the values the engine sends (secrets wrapped, unknowns as the engine's). */
export interface ResourceHandler {
  /** Its inputs' types as a stack gives them (provider/inputs.ts): schema.json's, field by field and type by type, by a test. */
  given: z.ZodObject;
  /** The input fields the resource takes: given's. */
  inputs: readonly string[];
  check(ctx: Context, olds: Props, news: Props): Promise<CheckResult>;
  /** A FieldDiff names each changed field, which is then what the engine prints; a DiffResult leaves the engine to diff the inputs. */
  diff(ctx: Context, id: string, olds: Props, news: Props): Promise<FieldDiff>;
  create(ctx: Context, inputs: Props): Promise<CreateResult>;
  /** props: the stored outputs; inputs: the stored inputs (none on an import). */
  read(ctx: Context, id: string, props: Props, inputs?: Props): Promise<ReadResult>;
  update(ctx: Context, id: string, olds: Props, news: Props): Promise<UpdateResult>;
  /** The outputs a create (olds undefined) or an update will make, for a preview; without it a preview takes the inputs as the outputs. */
  preview?(ctx: Context, news: Props, olds?: Props): Promise<Props>;
  delete(ctx: Context, id: string, props: Props): Promise<void>;
}

/** A step's inputs: what check gave, parsed by the resource's `checked` schema. */
export interface Step<I> {
  inputs: I;
  /** The top-level fields that held a secret. */
  secretKeys: Set<string>;
  /** The inputs as the engine sent them, secrets still wrapped. */
  raw: Props;
}

/** Stored state: every field as stored, a field of the resource's `stored` schema left out when it holds no value of its type (an import's state has none). */
export interface Stored<S> {
  old: Partial<S> & Props;
  /** The top-level fields that held a secret. */
  secretKeys: Set<string>;
  /** The state as stored, secrets still wrapped. */
  raw: Props;
}

/**
 * A resource's steps typed by its schemas: create, update and preview take the inputs check gave,
 * parsed by `checked`; read, delete and diff take the stored state read by `stored`. check and
 * diff's news are the engine's values, unknowns and all (a preview's), which check holds to its
 * rules in its own words.
 */
export interface Resource<C extends z.ZodType, S extends z.ZodObject> {
  given: z.ZodObject;
  inputs: readonly string[];
  /** What check gives: the inputs of a create, an update and a preview. */
  checked: C;
  /** The fields of the stored state the steps read. */
  stored: S;
  check(ctx: Context, olds: Props, news: Props): Promise<CheckResult>;
  /** news: unwrapped, unknowns kept. */
  diff(ctx: Context, id: string, olds: Stored<z.output<S>>, news: Props): Promise<FieldDiff>;
  create(ctx: Context, news: Step<z.output<C>>): Promise<CreateResult>;
  read(ctx: Context, id: string, props: Stored<z.output<S>>, inputs?: Props): Promise<ReadResult>;
  update(ctx: Context, id: string, olds: Stored<z.output<S>>, news: Step<z.output<C>>): Promise<UpdateResult>;
  /** Called when every input is known; a preview with one unknown takes the inputs as the outputs. */
  preview?(ctx: Context, news: Step<z.output<C>>, olds?: Stored<z.output<S>>): Promise<Props>;
  delete(ctx: Context, id: string, props: Stored<z.output<S>>): Promise<void>;
}

/** The inputs check gave, parsed: a failure is the plugin's own fault, said with the field. */
function checkedOf<C extends z.ZodType>(type: string, schema: C, raw: Props): Step<z.output<C>> {
  const { plain, secretKeys } = unwrap(raw);
  const parsed = schema.safeParse(plain);
  if (!parsed.success) {
    const at = parsed.error.issues.map((i) => `${i.path.join(".") || "(inputs)"}: ${i.message}`).join("; ");
    throw new Error(`the ${type} inputs check gave cannot be read (${at}): a fault of the plugin's`);
  }
  return { inputs: parsed.data, secretKeys, raw };
}

/** Stored state, each field of the schema parsed alone: one of another type is left out, as a field never stored is. */
function storedOf<S extends z.ZodObject>(schema: S, raw: Props): Stored<z.output<S>> {
  const { plain, secretKeys } = unwrap(raw);
  const shape: Record<string, z.core.$ZodType> = schema.shape;
  const wrong = (k: string) => k in shape && plain[k] !== undefined && !z.safeParse(shape[k]!, plain[k]).success;
  // The values as stored, each field of the schema held to its type above: a parse's output would
  // put an object's keys in the schema's order, and a diff compares them as they were stored.
  const old = Object.fromEntries(Object.entries(plain).filter(([k]) => !wrong(k))) as Partial<z.output<S>> & Props;
  return { old, secretKeys, raw };
}

/** The handler the plugin calls: each step's values parsed at this one boundary, then the resource's own step. */
export function resource<C extends z.ZodType, S extends z.ZodObject>(type: string, r: Resource<C, S>): ResourceHandler {
  const given = (raw: Props) => checkedOf(type, r.checked, raw);
  const stored = (raw: Props) => storedOf(r.stored, raw);
  const handler: ResourceHandler = {
    given: r.given,
    inputs: r.inputs,
    check: (ctx, olds, news) => r.check(ctx, olds, news),
    diff: (ctx, id, olds, news) => r.diff(ctx, id, stored(olds), unwrap(news).plain),
    create: (ctx, news) => r.create(ctx, given(news)),
    read: (ctx, id, props, inputs) => r.read(ctx, id, stored(props), inputs),
    update: (ctx, id, olds, news) => r.update(ctx, id, stored(olds), given(news)),
    delete: (ctx, id, props) => r.delete(ctx, id, stored(props)),
  };
  const preview = r.preview;
  if (preview) handler.preview = async (ctx, news, olds) => (hasUnknown(unwrap(news).plain) ? news : preview(ctx, given(news), olds && stored(olds)));
  return handler;
}

/**
 * Who a step's computer or folder is made for: the stack's folder (the plugin's working
 * directory, the program's) and the resource's URN, so stacks of the same project and stack name
 * in other folders never share one. Undefined outside a step.
 */
export function resourceOwner(ctx: Context): string | undefined {
  return ctx.urn === undefined ? undefined : `${process.cwd()}\0${ctx.urn}`;
}

/** A component's construct (Fleet): registers its children with the engine's monitor, gives its URN and outputs. */
export type Construct = (ctx: Context, name: string, inputs: Inputs, options: ComponentResourceOptions) => Promise<ConstructResult>;

/** A URN's type token: the part after the last `$` of its type (a child's type names its parent's). */
export function typeOf(urn: string): string {
  const type = urn.split("::")[2] ?? "";
  return type.slice(type.lastIndexOf("$") + 1);
}

/** Input fields not in `known`, as check failures: an unknown field is refused, never ignored. */
export function unknownFields(news: Props, known: readonly string[], type: string) {
  return Object.keys(news)
    .filter((k) => !known.includes(k))
    .map((k) => ({ property: k, reason: `${type} has no field "${k}"; it takes ${known.join(", ")}` }));
}

/** The provider of an id, or a throw in its words (a step's failure). */
export async function vendorOf(ctx: Context, id: string): Promise<ComputerProvider> {
  return orThrow(await ctx.vendor(id));
}

/** A vendor call's signal: the engine's cancel, or the step's own bound. */
export function bounded(ctx: Context, ms: number): AbortSignal {
  return boundedBy(ms, ctx.signal).signal;
}
