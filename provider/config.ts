// The plugin's settings come from the stack's `agentrun:` config and from nowhere else. The
// engine hands them to the plugin as JSON in PULUMI_CONFIG (decrypted; keys as "agentrun:docker"
// or bare); a plugin started just for its schema gets none, which is no error.
import { z } from "zod";
import { unknownSettings } from "./words.js";

export const DockerSettings = z.strictObject({
  user: z.string().optional(),
  image: z.string().optional(),
  daemonPath: z.string().optional(),
  daemonCache: z.string().optional(),
  /** The Docker engine's unix socket; unset, the one the docker CLI would use (DOCKER_HOST, its context). */
  engine: z.string().optional(),
  /** An allowlist's egress proxy: the Docker host's own addresses (required in a container) and the refusals' hint. */
  egress: z.strictObject({ hostAddresses: z.array(z.string()).optional(), hint: z.string().optional() }).optional(),
});

const Settings = z.strictObject({
  docker: DockerSettings.optional(),
});

export type Settings = z.infer<typeof Settings>;

/** Parses PULUMI_CONFIG's text. A config value is a string: objects arrive as JSON text. */
export function settingsFrom(configJson: string | undefined): { ok: true; value: Settings } | { ok: false; message: string } {
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
    return { ok: false, message: unknownSettings(keys, settingsTaken()) };
  }
  return { ok: true, value: parsed.data };
}

/** Each provider's settings keys, as the stack's user writes them (agentrun:<provider>.<key>). */
function settingsTaken(): Record<string, string[]> {
  return Object.fromEntries(Object.entries(Settings.shape).map(([provider, schema]) => [provider, Object.keys(schema.unwrap().shape)]));
}

function safeJson(text: string): unknown {
  try { return JSON.parse(text); } catch { return text; }
}
