// The types of the plugin's inputs, as zod schemas. Each resource's `given` is its inputs as a
// stack gives them (the handler's Inputs are inferred from it), and test/unit/schema-inputs.test.ts
// holds schema/schema.json's input types to it field by field and type by type, so the SDK says
// what the check takes. A Pulumi type JSON has no word for (an asset, an archive, any value) is a
// zod type that carries its Pulumi name.
import { z } from "zod";

/** The Pulumi type a zod type stands for where JSON has none: schema.json's $ref for it. */
export const PULUMI_TYPE = "pulumiType";

const pulumiTyped = (ref: string) => z.unknown().meta({ [PULUMI_TYPE]: ref });

/** An asset or an archive of the engine's (fn::stringAsset, fn::fileAsset, fn::fileArchive). */
export const asset = () => pulumiTyped("pulumi.json#/Asset");
/** An archive of the engine's (fn::fileArchive, fn::assetArchive). */
export const archive = () => pulumiTyped("pulumi.json#/Archive");
/** Any value, which the check holds to its rules in its own words. */
export const anyValue = () => pulumiTyped("pulumi.json#/Any");

/** An object of strings (labels, env). */
export const strings = () => z.record(z.string(), z.string());

/** Whether a value is a whole number from min to max. */
export const wholeIn = (v: unknown, min: number, max: number): v is number => typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;

/** Whether a name is one of a resource's fields. */
export const isField = <F extends string>(fields: readonly F[], k: string): k is F => fields.some((f) => f === k);

/** A schema's fields, in order: a handler's `inputs`. */
export function fieldsOf<S extends z.ZodObject>(schema: S): Array<keyof S["shape"] & string> {
  return Object.keys(schema.shape) as Array<keyof S["shape"] & string>;
}
