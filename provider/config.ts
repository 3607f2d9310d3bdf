// The plugin's settings come from the stack's `agentrun:` config and from nowhere else. The
// engine hands them to the plugin as JSON in PULUMI_CONFIG (decrypted; keys as "agentrun:docker"
// or bare); a plugin started just for its schema gets none, which is no error.
import { z } from "zod";
import { PROVIDER_SETTINGS, settingsKeys, TEST_SETTINGS, type ProviderSettings } from "../src/registry/settings.js";
import { unknownSettings } from "./words.js";

/** Each provider's settings, the library's schema (src/contract/settings.ts): the CLI's --set takes the same keys. */
const Settings = z.strictObject(Object.fromEntries(Object.entries(PROVIDER_SETTINGS).map(([id, schema]) => [id, schema.optional()])));

export interface SettingsOptions {
  /** The plugin's test flag (AGENTRUN_COMPUTER_TEST=1): only then may a setting point a provider at a fake. */
  test?: boolean;
}

/**
 * By provider id, its settings as its schema parsed them. Which of them are secrets the schema
 * says (src/contract/settings.ts secretSettings): the plugin holds no list of any vendor's keys.
 */
export type Settings = ProviderSettings;

/** Parses PULUMI_CONFIG's text. A config value is a string: objects arrive as JSON text. */
export function settingsFrom(configJson: string | undefined, options: SettingsOptions = {}): { ok: true; value: Settings } | { ok: false; message: string } {
  if (!configJson) return { ok: true, value: {} };
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(configJson);
  } catch {
    return { ok: false, message: "the stack's agentrun config could not be read (PULUMI_CONFIG is not JSON)" };
  }
  const ours: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw ?? {})) {
    const [ns, name] = key.includes(":") ? key.split(":", 2) : ["agentrun", key];
    if (ns !== "agentrun" || name === undefined) continue;
    ours[name] = typeof value === "string" && /^\s*[{[]/.test(value) ? safeJson(value) : value;
  }
  const parsed = Settings.safeParse(ours);
  if (!parsed.success) {
    // Names the keys only: a value could be a secret put in the wrong place.
    const keys = parsed.error.issues.flatMap((i) => (i.code === "unrecognized_keys" ? i.keys.map((k) => [...i.path, k].join(".")) : [i.path.join(".")]));
    return { ok: false, message: unknownSettings(keys, settingsKeys()) };
  }
  for (const [key, what] of Object.entries(TEST_SETTINGS)) {
    const [provider, name] = key.split(".") as [string, string];
    const given = (parsed.data as Record<string, Record<string, unknown> | undefined>)[provider]?.[name];
    if (given !== undefined && !options.test) {
      return { ok: false, message: `agentrun:${key} ${what}, for tests only: it is refused unless the plugin's test flag (AGENTRUN_COMPUTER_TEST=1) is on` };
    }
  }
  return { ok: true, value: parsed.data };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
