// agentrun:index:Fleet, a component made by the plugin's construct (YAML has no loops): `size`
// Computers as children, `<fleet>-<n>` for n from 0, each made from the template with the fleet's
// mount and labels. The children are registered with the engine's monitor like any program's, so
// each is a Computer of its own: a changed size adds or removes the tail alone (the names of the
// rest do not move), and preview --refresh shows each drifted child by its name. The `drift` output
// is what was found before this up healed them (fleet-drift.ts).
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { GIVEN, INPUTS, TEMPLATE, TYPE as COMPUTER } from "./computer.js";
import { fieldsOf, isField, strings } from "../inputs.js";
import { isObject } from "../secrets.js";
import type { Construct } from "../resource.js";
import { DEFAULT_PROVIDER } from "../../src/providers.js";
import type { RunState } from "../../src/contract/state.js";
import { driftAtStart } from "./fleet-drift.js";
import { declaredState } from "./computer-state.js";

const TYPE = "agentrun:index:Fleet";
/** A Fleet's inputs as a stack gives them. */
export const FLEET_GIVEN = z.strictObject({ size: z.number().int(), template: TEMPLATE.optional(), mount: GIVEN.shape.mount, labels: strings().optional() });
export const FLEET_INPUTS = fieldsOf(FLEET_GIVEN);
/** A bound on what one construct registers: a larger fleet is two, or a WarmPool. */
export const MAX_SIZE = 1000;

/** Why a fleet's size is refused, or undefined: a whole number from 0 to MAX_SIZE, known at preview. */
export function sizeProblem(size: unknown): string | undefined {
  if (size === undefined) return "size is required: how many computers the fleet has";
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0 || size > MAX_SIZE) {
    return `size is a whole number from 0 to ${MAX_SIZE}`;
  }
  return undefined;
}

/** Why a template is refused (a field a Computer does not take), or undefined. */
export function templateProblem(template: unknown): string | undefined {
  if (template === undefined) return undefined;
  if (typeof template !== "object" || template === null || Array.isArray(template)) return "template is an object of a Computer's inputs";
  const unknown = Object.keys(template).filter((k) => !isField(INPUTS, k));
  if (unknown.length) return `template has no field ${unknown.map((k) => `"${k}"`).join(", ")}; it takes a Computer's inputs: ${INPUTS.join(", ")}`;
  return undefined;
}

/** Whether an Output carries the runtime's own promise (in its code, not in its public types). */
function withPromise(output: object): output is { promise(withUnknowns: boolean): Promise<unknown> } {
  return "promise" in output && typeof output.promise === "function";
}

/** The value behind an input, once known; preview's unknown comes back as pulumi's unknown. */
async function valueOf(input: unknown): Promise<unknown> {
  if (!pulumi.Output.isInstance(input)) return input;
  // The runtime's own promise with unknowns kept (the provider server awaits outputs the same way).
  if (!withPromise(input)) throw new Error("this @pulumi/pulumi's Output has no promise(): the plugin's runtime is not the one it was built with");
  return input.promise(true);
}

/** The template's declared state once known (absent is running); undefined while any of it is unknown. */
function stateOf(template: unknown): RunState | undefined {
  if (template === pulumi.unknown) return undefined;
  const state = isObject(template) ? template.state : undefined;
  return state === pulumi.unknown || pulumi.Output.isInstance(state) ? undefined : declaredState(state);
}

/**
 * A fleet's child: a Computer registered with the template's fields as the stack gave them, for the
 * Computer's own check to judge and refuse by field (the SDK's typed args would claim them checked).
 */
class FleetChild extends pulumi.CustomResource {
  declare readonly name: pulumi.Output<string>;
  constructor(name: string, args: pulumi.Inputs, options: pulumi.CustomResourceOptions) {
    super(COMPUTER, name, { ...args, name: undefined }, options);
  }
}

class FleetComponent extends pulumi.ComponentResource {
  constructor(name: string, options: pulumi.ComponentResourceOptions) {
    super(TYPE, name, {}, options);
  }
  done(outputs: pulumi.Inputs) {
    this.registerOutputs(outputs);
  }
}

export const fleet: Construct = async (ctx, name, inputs, options) => {
  const size = await valueOf(inputs.size);
  if (size === pulumi.unknown) {
    throw new pulumi.InputPropertyError({ propertyPath: "size", reason: "size must be known at preview: the children are named by it" });
  }
  const problem = sizeProblem(size);
  if (problem) throw new pulumi.InputPropertyError({ propertyPath: "size", reason: problem });
  const count = FLEET_GIVEN.shape.size.parse(size);
  const unknownInputs = Object.keys(inputs).filter((k) => !isField(FLEET_INPUTS, k));
  if (unknownInputs.length) {
    throw new pulumi.InputPropertyError({
      propertyPath: unknownInputs[0]!,
      reason: `${TYPE} has no field "${unknownInputs[0]}"; it takes ${FLEET_INPUTS.join(", ")}`,
    });
  }
  const templateNow = await valueOf(inputs.template);
  const bad = templateNow === pulumi.unknown ? undefined : templateProblem(templateNow);
  if (bad) throw new pulumi.InputPropertyError({ propertyPath: "template", reason: bad });

  const component = new FleetComponent(name, options);
  // The children as found before this up heals them (read-only, so a preview does it too).
  const urn = z.string().parse(await valueOf(component.urn));
  const vendorId = templateNow === pulumi.unknown ? undefined : isObject(templateNow) ? (templateNow.provider ?? DEFAULT_PROVIDER) : DEFAULT_PROVIDER;
  const vendor = typeof vendorId !== "string" ? undefined : await ctx.vendor(vendorId);
  const drift = await driftAtStart(
    ctx,
    vendor === undefined ? "the template's provider is not known yet" : vendor.ok ? vendor.value : vendor.error.message,
    urn,
    name,
    count,
    stateOf(templateNow),
  );
  // The template arrives as one value (an Output when any part of it is a secret or depends on a
  // resource); each field is taken from it and carries its secrecy and dependencies to the children.
  const template = pulumi.output(inputs.template ?? {});
  const field = (k: string) => template.apply((t) => (isObject(t) ? t[k] : undefined));
  const labels = pulumi
    .all([field("labels"), inputs.labels ?? {}])
    .apply(([own, fleetLabels]) => ({ ...(isObject(own) ? own : {}), ...(isObject(fleetLabels) ? fleetLabels : {}) }));
  const args: pulumi.Inputs = {};
  for (const k of INPUTS) if (k !== "labels" && k !== "mount") args[k] = field(k);
  args.mount = inputs.mount !== undefined ? inputs.mount : field("mount");
  args.labels = labels;

  const children = Array.from({ length: count }, (_, n) => new FleetChild(`${name}-${n}`, args, { parent: component }));
  const names = pulumi.all(children.map((c) => c.name));
  const state = { size, names, drift };
  component.done(state);
  return { urn: component.urn, state };
};
