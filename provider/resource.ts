// What each resource module gives the plugin (the handler contract and the context it is called
// with), and the helpers every handler shares. The table of resources is the plugin's (plugin.ts),
// so this contract imports no handler.
import type { ComponentResourceOptions, Inputs } from "@pulumi/pulumi";
import type { z } from "zod";
import type { CheckResult, ConstructResult, CreateResult, ReadResult, UpdateResult } from "@pulumi/pulumi/provider/index.js";
import type { FieldDiff } from "./server.js";
import type { ComputerProvider } from "../src/contract/provider.js";
import { boundedBy } from "../src/daemon/bound.js";
import { orThrow } from "../src/daemon/result.js";
import type { Settings } from "./config.js";
import type { Say } from "./progress.js";
import type { Props } from "./secrets.js";
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
