// The plugin's settings come from the stack's `agentrun:` config and from nowhere else. The
// engine hands them to the plugin as JSON in PULUMI_CONFIG (decrypted; keys as "agentrun:docker"
// or bare); a plugin started just for its schema gets none, which is no error.
import { z } from "zod";
import { CREATE_STEPS } from "../src/docker/pause.js";
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
  /** Tests only: hold a create at a step (src/docker/pause.ts); refused unless the plugin's test flag is on. */
  testPause: z.strictObject({ at: z.enum(CREATE_STEPS), file: z.string().min(1) }).optional(),
});

/** agentrun:modal: the token (secrets), the app and environment, and the daemon's source. */
export const ModalSettings = z.strictObject({
  tokenId: z.string().min(1).optional(),
  tokenSecret: z.string().min(1).optional(),
  app: z.string().min(1).optional(),
  environment: z.string().min(1).optional(),
  serverUrl: z.string().optional(),
  daemonPath: z.string().optional(),
  daemonImage: z.string().optional(),
  user: z.string().optional(),
  /** Tests only: the Docker-backed fake's module; refused unless the plugin's test flag is on. */
  testSdk: z.string().optional(),
});

/** agentrun:daytona: the key (a secret), the API's URL, the runner region and the sandbox class. */
export const DaytonaSettings = z.strictObject({
  apiKey: z.string().min(1).optional(),
  apiUrl: z.string().optional(),
  target: z.string().optional(),
  class: z.enum(["container", "linux-vm"]).optional(),
});

/** agentrun:e2b: the key (a secret) and the domain; testSdk for the plugin's tests alone. */
export const E2BSettings = z.strictObject({
  apiKey: z.string().min(1).optional(),
  domain: z.string().optional(),
  /** Tests only: the Docker-backed fake's module; refused unless the plugin's test flag is on. */
  testSdk: z.string().optional(),
});

const Settings = z.strictObject({
  docker: DockerSettings.optional(),
  modal: ModalSettings.optional(),
  daytona: DaytonaSettings.optional(),
  e2b: E2BSettings.optional(),
});

/** The keys the plugin treats as secrets: they never reach a message or a log. */
export const SECRET_SETTINGS = ["modal.tokenId", "modal.tokenSecret"] as const;

export interface SettingsOptions {
  /** The plugin's test flag (AGENTRUN_COMPUTER_TEST=1): only then may a setting point a provider at a fake. */
  test?: boolean;
}

export type Settings = z.infer<typeof Settings>;

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
    return { ok: false, message: unknownSettings(keys, settingsTaken()) };
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

/** Keys for tests alone, never offered to a stack's user, each with what it does. */
const TEST_SETTINGS: Record<string, string> = {
  "modal.testSdk": "points the plugin at a fake of Modal",
  "e2b.testSdk": "points the plugin at a fake of E2B",
  "docker.testPause": "holds a create at a step (the fault tests' seam)",
};

/** Each provider's settings keys, as the stack's user writes them (agentrun:<provider>.<key>). */
export function settingsTaken(): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(Settings.shape).map(([provider, schema]) => [
      provider,
      Object.keys(schema.unwrap().shape).filter((key) => !(`${provider}.${key}` in TEST_SETTINGS)),
    ]),
  );
}

function safeJson(text: string): unknown {
  try { return JSON.parse(text); } catch { return text; }
}
