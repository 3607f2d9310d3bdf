// What each function module (an invoke: fn::invoke in YAML, a function of the SDK) gives the
// plugin. The table of functions is the plugin's (plugin.ts), so this contract imports none.
import type { InvokeResult } from "@pulumi/pulumi/provider/index.js";
import type { z } from "zod";
import type { Context } from "./resource.js";
import type { Props } from "./secrets.js";

export interface FunctionHandler {
  /** Its inputs' types as a stack gives them (provider/inputs.ts): schema.json's, field by field and type by type, by a test. */
  given: z.ZodObject;
  /** The input fields the function takes: given's. */
  inputs: readonly string[];
  /** The output fields it gives (held to schema.json by a test). */
  outputs: readonly string[];
  invoke(ctx: Context, inputs: Props): Promise<InvokeResult>;
}
