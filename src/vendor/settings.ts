// Each provider's settings as a host takes them from its user (a Pulumi stack's agentrun:<id>
// config, the agentrun CLI's --set): one strict schema per provider, kept in its own settings
// file, so every host refuses the same keys in the same words. Loading this loads no provider
// and no vendor SDK.
import type { z } from "zod";
import { DAYTONA_SETTINGS } from "../daytona/settings.js";
import { DOCKER_SETTINGS } from "../docker/settings.js";
import { E2B_SETTINGS } from "../e2b/settings.js";
import { MODAL_SETTINGS } from "../modal/settings.js";
import { fail, ok, type Result } from "./result.js";

/** By registry id; a provider with no schema here takes its settings as its options, unchecked. */
export const PROVIDER_SETTINGS: Readonly<Record<string, z.ZodObject>> = {
  docker: DOCKER_SETTINGS,
  modal: MODAL_SETTINGS,
  daytona: DAYTONA_SETTINGS,
  e2b: E2B_SETTINGS,
};

/** Keys a host offers to no user, each with what it does: tests' seams (a fake, a held create). */
export const TEST_SETTINGS: Readonly<Record<string, string>> = {
  "modal.testSdk": "points the plugin at a fake of Modal",
  "e2b.testSdk": "points the plugin at a fake of E2B",
  "docker.testPause": "holds a create at a step (the fault tests' seam)",
};

/** Each provider's settings keys, as its user writes them, test keys left out. */
export function settingsKeys(): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(PROVIDER_SETTINGS).map(([id, schema]) => [id, Object.keys(schema.shape).filter((key) => !(`${id}.${key}` in TEST_SETTINGS))]),
  );
}

/**
 * A provider's settings held to its schema. A refusal names every key it does not take (field:
 * the first, as <key> or <key>.<sub>) and the keys it does take; a value is never echoed (it
 * could be a secret given under the wrong key).
 */
export function checkSettings(id: string, settings: Record<string, unknown>): Result<Record<string, unknown>> {
  const schema = PROVIDER_SETTINGS[id];
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
