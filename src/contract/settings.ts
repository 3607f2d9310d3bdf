// Each provider's settings as a host takes them from its user (a Pulumi stack's agentrun:<id>
// config, the agentrun CLI's --set): one strict schema per provider, kept in its own settings
// file, so every host refuses the same keys in the same words. Loading this loads no provider
// and no vendor SDK.
import type { z } from "zod";
import { BROWSERBASE_SETTINGS } from "../browserbase/settings.js";
import { DAYTONA_SETTINGS } from "../daytona/settings.js";
import { DOCKER_SETTINGS } from "../docker/settings.js";
import { E2B_SETTINGS } from "../e2b/settings.js";
import { KERNEL_SETTINGS } from "../kernel/settings.js";
import { KUBERNETES_SETTINGS } from "../kubernetes/settings.js";
import { MODAL_SETTINGS } from "../modal/settings.js";
import { PHONE_HARNESS_SETTINGS } from "../phone-harness/settings.js";
import { fail, ok, type Result } from "./result.js";
import { isSecretSetting } from "./setting-marks.js";

/** By registry id; a provider with no schema here takes its settings as its options, unchecked. */
export const PROVIDER_SETTINGS = {
  docker: DOCKER_SETTINGS,
  modal: MODAL_SETTINGS,
  daytona: DAYTONA_SETTINGS,
  e2b: E2B_SETTINGS,
  browserbase: BROWSERBASE_SETTINGS,
  kernel: KERNEL_SETTINGS,
  "phone-harness": PHONE_HARNESS_SETTINGS,
  kubernetes: KUBERNETES_SETTINGS,
} as const satisfies Readonly<Record<string, z.ZodObject>>;

/** Each provider's settings as its schema parses them, by registry id. */
export type ProviderSettings = { [Id in keyof typeof PROVIDER_SETTINGS]?: z.infer<(typeof PROVIDER_SETTINGS)[Id]> };

const SCHEMAS: Readonly<Record<string, z.ZodObject>> = PROVIDER_SETTINGS;

/** Keys a host offers to no user, each with what it does: tests' seams (a fake, a held create). */
export const TEST_SETTINGS: Readonly<Record<string, string>> = {
  "modal.testSdk": "points the plugin at a fake of Modal",
  "e2b.testSdk": "points the plugin at a fake of E2B",
  "docker.testPause": "holds a create at a step (the fault tests' seam)",
  "docker.testHostRoot": "reads the container signs under a folder of the test's (a plugin in a container taken for one on the Docker host)",
};

/** Every setting its provider's schema marks secret (secretSetting), as <id>.<key>. */
export function secretSettings(): string[] {
  return Object.entries(SCHEMAS).flatMap(([id, schema]) =>
    Object.entries(schema.shape)
      .filter(([, field]) => isSecretSetting(field as z.ZodType))
      .map(([key]) => `${id}.${key}`),
  );
}

/** The values given for the settings their schemas mark secret: the words no message may hold. */
export function secretValues(settings: Readonly<Record<string, unknown>>): string[] {
  return secretSettings().flatMap((setting) => {
    const [id, key] = setting.split(".") as [string, string];
    const value = (settings[id] as Record<string, unknown> | undefined)?.[key];
    return typeof value === "string" && value !== "" ? [value] : [];
  });
}

/** Each provider's settings keys, as its user writes them, test keys left out. */
export function settingsKeys(): Record<string, string[]> {
  return Object.fromEntries(Object.entries(SCHEMAS).map(([id, schema]) => [id, Object.keys(schema.shape).filter((key) => !(`${id}.${key}` in TEST_SETTINGS))]));
}

/**
 * A provider's settings held to its schema. A refusal names every key it does not take (field:
 * the first, as <key> or <key>.<sub>) and the keys it does take; a value is never echoed (it
 * could be a secret given under the wrong key).
 */
export function checkSettings(id: string, settings: Record<string, unknown>): Result<Record<string, unknown>> {
  const schema = SCHEMAS[id];
  if (!schema) return ok(settings);
  const parsed = schema.safeParse(settings);
  if (parsed.success) return ok(parsed.data as Record<string, unknown>);
  const unknown = parsed.error.issues.flatMap((i) => (i.code === "unrecognized_keys" ? i.keys.map((k) => [...i.path, k].join(".")) : []));
  const wrong = parsed.error.issues.filter((i) => i.code !== "unrecognized_keys").map((i) => `${i.path.join(".")} (${i.message})`);
  const takes = `it takes ${settingsKeys()[id]!.join(", ")}`;
  const words = [
    ...(unknown.length > 0 ? [`${id} has no setting ${unknown.join(", ")}: ${takes}`] : []),
    ...(wrong.length > 0 ? [`${id}'s ${wrong.join("; ")}`] : []),
  ].join("; ");
  const field = unknown[0] ?? String(parsed.error.issues[0]?.path.join(".") ?? "");
  return fail("invalid", words, { field });
}
