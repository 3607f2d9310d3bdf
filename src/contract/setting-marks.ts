// The marks a vendor's settings schema puts on its own fields, read from the schema by every host
// (the Pulumi plugin, the agentrun CLI), so no host holds a list of any vendor's keys.
import type { z } from "zod";

/** A settings field that is a secret: a stack sets it with --secret, and its value is never in a message, label or log. */
export function secretSetting<T extends z.ZodType>(field: T): T {
  return field.meta({ secret: true });
}

/** True when the settings field carries secretSetting's mark. */
export function isSecretSetting(field: z.ZodType): boolean {
  return field.meta()?.secret === true;
}

/**
 * A settings field that is a test's seam (a fake, a held create), offered to no user: a host
 * refuses it unless its test flag is on. does: what it does, in words a refusal names.
 */
export function testSetting<T extends z.ZodType>(field: T, does: string): T {
  return field.meta({ test: does });
}

/** What a test's seam does, when the settings field carries testSetting's mark. */
export function testSettingDoes(field: z.ZodType): string | undefined {
  const does = field.meta()?.test;
  return typeof does === "string" ? does : undefined;
}

/**
 * A settings field a serve side gives under its own name (the offered row's key, MODAL_TOKEN_ID):
 * TestConnection takes keys by that name. Marks already on the field stay.
 */
export function keySetting<T extends z.ZodType>(name: string, field: T): T {
  return field.meta({ ...field.meta(), key: name });
}

/** The serve-side name of a settings field, when it carries keySetting's mark. */
export function keySettingName(field: z.ZodType): string | undefined {
  const name = field.meta()?.key;
  return typeof name === "string" ? name : undefined;
}
