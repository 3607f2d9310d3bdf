// A host's plain settings held to a vendor's schema (its settings.ts), so every host refuses the
// same keys in the same words. The schema comes from the registry's entry; this knows no vendor.
import type { z } from "zod";
import { fail, ok, type Result } from "../daemon/result.js";
import { testSettingDoes } from "./setting-marks.js";

/** A schema's keys as its user writes them, the tests' seams (testSetting) left out. */
export function userKeys(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape)
    .filter(([, field]) => testSettingDoes(field as z.ZodType) === undefined)
    .map(([key]) => key);
}

/**
 * A provider's settings held to its schema. A refusal names every key it does not take (field:
 * the first, as <key> or <key>.<sub>) and the keys it does take; a value is never echoed (it
 * could be a secret given under the wrong key).
 */
export function checkSettings(id: string, schema: z.ZodObject, settings: Record<string, unknown>): Result<Record<string, unknown>> {
  const parsed = schema.safeParse(settings);
  if (parsed.success) return ok(parsed.data as Record<string, unknown>);
  const unknown = parsed.error.issues.flatMap((i) => (i.code === "unrecognized_keys" ? i.keys.map((k) => [...i.path, k].join(".")) : []));
  const wrong = parsed.error.issues.filter((i) => i.code !== "unrecognized_keys").map((i) => `${i.path.join(".")} (${i.message})`);
  const takes = `it takes ${userKeys(schema).join(", ")}`;
  const words = [
    ...(unknown.length > 0 ? [`${id} has no setting ${unknown.join(", ")}: ${takes}`] : []),
    ...(wrong.length > 0 ? [`${id}'s ${wrong.join("; ")}`] : []),
  ].join("; ");
  const field = unknown[0] ?? String(parsed.error.issues[0]?.path.join(".") ?? "");
  return fail("invalid", words, { field });
}
