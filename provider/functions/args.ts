// The arguments every computer function takes: the provider (a registry id, default docker) and
// the labels a computer must carry to be chosen. Refusals are check failures, each naming its field.
import type { CheckFailure } from "@pulumi/pulumi/provider/index.js";
import { z } from "zod";
import { strings } from "../inputs.js";
import { DEFAULT_PROVIDER } from "../../src/providers.js";
import type { ComputerProvider } from "../../src/contract/provider.js";
import type { Context } from "../resource.js";
import { unknownFields } from "../resource.js";
import { unwrap, type Props } from "../secrets.js";

/** The arguments every computer function takes, as a stack gives them; a function adds its own. */
export const CHOOSING = z.strictObject({ provider: z.string().optional(), labels: strings().optional() });

export interface Chosen {
  provider: ComputerProvider;
  labels: Record<string, string>;
  /** The inputs beside provider and labels, as given. */
  rest: Props;
}

/** The provider and labels of an invoke, or every refusal together. */
export async function chosen(
  ctx: Context,
  raw: Props,
  known: readonly string[],
  token: string,
): Promise<{ ok: true; value: Chosen } | { ok: false; failures: CheckFailure[] }> {
  const { plain } = unwrap(raw);
  const failures = unknownFields(plain, known, token);
  const { provider: id = DEFAULT_PROVIDER, labels = {}, ...rest } = plain;
  const labelsOk = typeof labels === "object" && labels !== null && !Array.isArray(labels) && Object.values(labels).every((v) => typeof v === "string");
  if (!labelsOk) failures.push({ property: "labels", reason: "labels is an object of strings: the labels a computer must carry to be chosen" });
  let provider: ComputerProvider | undefined;
  if (typeof id !== "string" || id === "") failures.push({ property: "provider", reason: "provider is a registry id, such as docker" });
  else {
    const v = await ctx.vendor(id);
    if (v.ok) provider = v.value;
    else failures.push({ property: "provider", reason: v.error.message });
  }
  if (failures.length > 0 || !provider) return { ok: false, failures };
  return { ok: true, value: { provider, labels: labels as Record<string, string>, rest } };
}
