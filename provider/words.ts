// The library's refusals in a stack's user's terms. The library speaks to library callers
// (a provider's image(), ensureImage, a recipe option, its options by their class); a stack's user
// writes Pulumi config and runs docker and pulumi commands, so where the two differ the plugin says
// what they can run. Each rule reads the failure's detail (src/daemon/result.ts RESULT_DETAIL),
// never its words, and takes the provider and the setting from it: this file names no vendor's key.
// The image rules speak of a Docker host and docker commands: the details they read are set by
// the Docker provider alone today. test/unit/stack-words.test.ts holds the words.
import { ResultFailure, type ResultDetail, type ResultError } from "../src/daemon/result.js";
import { secretSettings } from "../src/registry/settings.js";

/** The stack's settings by provider id, to tell a provider's own image (its setting's) from a Computer's (no import of config.ts, which uses this file). */
type StackSettings = Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>;

/** `pulumi config set` for one of a provider's settings (`--secret` for one its schema marks secret). */
export const configSet = (provider: string, key: string, value = `<${key}>`, secret = false) =>
  `pulumi config set${secret ? " --secret" : ""} --path agentrun:${provider}.${key} ${value}`;
/** `pulumi config rm` for one of a provider's settings. */
export const configRm = (provider: string, key: string) => `pulumi config rm --path agentrun:${provider}.${key}`;

/** The setting a detail names, when it names a provider and one of its settings. */
type Named = { provider: string; setting: string };
const named = (detail: { provider?: string | undefined; setting?: string | undefined }): Named | undefined =>
  detail.provider !== undefined && detail.setting !== undefined ? { provider: detail.provider, setting: detail.setting } : undefined;

function missingImage(tag: string, { provider, setting }: Named): string {
  return (
    `the image ${tag} is not on this Docker host, and nothing is pulled while a Computer is made: ` +
    `build it here (\`docker build -t ${tag} <folder with its Dockerfile>\`), or pull it where a registry answers (\`docker pull ${tag}\`); ` +
    `or leave the Computer's image out, for the provider's own image (\`${configSet(provider, setting)}\` names one for every Computer). Nothing was made`
  );
}

function missingSetting(tag: string, why: string, { provider, setting }: Named): string {
  return (
    `the image ${tag}, which the stack's agentrun:${provider}.${setting} names, is not on this Docker host${why}. ` +
    `Build it here (\`docker build -t ${tag} <folder with its Dockerfile>\`) or load it (\`docker load -i <file>\`), ` +
    `or unset it for the provider's own image (\`${configRm(provider, setting)}\`)`
  );
}

/** The stack's words for a detail, or undefined where the library's stand. */
function stackWords(detail: ResultDetail, settings: StackSettings): string | undefined {
  switch (detail.kind) {
    case "image-missing": {
      const setting = named(detail);
      if (!setting) return undefined;
      // The image the provider's setting names is the stack's fault, not a Computer's.
      const fromSetting = settings[setting.provider]?.[setting.setting] === detail.tag;
      return fromSetting ? missingSetting(detail.tag, ", and nothing is pulled while a Computer is made", setting) : missingImage(detail.tag, setting);
    }
    case "image-unpulled": {
      const setting = named(detail);
      return setting && missingSetting(detail.tag, ` and could not be pulled: ${detail.reason}`, setting);
    }
    case "option":
      return undefined;
  }
}

/** A refusal as a stack's user reads it (settings: the stack's, to tell its image from a Computer's); anything no rule knows keeps the library's words. */
export function forStack(error: ResultError, settings: StackSettings = {}): ResultError {
  const words = error.detail && stackWords(error.detail, settings);
  return words === undefined ? error : { ...error, message: words };
}

/**
 * A provider's settings refused by the registry, with the config lines that set or unset the
 * option it names (its detail): one the stack does not set is set (as a secret where the
 * provider's schema marks it one); a refusal that names no option (the host's DOCKER_HOST) keeps
 * the library's words. given: the stack's settings of that provider.
 */
export function settingsRefused(provider: string, error: ResultError, given: Readonly<Record<string, unknown>> = {}): ResultError {
  const detail = error.detail;
  if (detail?.kind !== "option" || detail.provider !== provider) return error;
  const setting = `agentrun:${provider}.${detail.option}`;
  const set = configSet(provider, detail.option, "<value>", secretSettings().includes(`${provider}.${detail.option}`));
  const topKey = detail.option.split(".")[0]!;
  const lines = topKey in given ? `Change it with \`${set}\`, or unset it with \`${configRm(provider, detail.option)}\`` : `Set it with \`${set}\``;
  return { ...error, message: `the stack's agentrun:${provider} settings were refused: ${setting}${detail.problem}. ${lines}` };
}

/**
 * A vendor's connection test failed before the plugin first used it: the answer's class (its
 * code, kept), the vendor's words, and the settings to look at: its keys when the key was
 * refused, where it is sent when it was not reached, else both.
 */
export function connectionRefused(provider: string, error: ResultError, look: { keys: readonly string[]; urls: readonly string[] }): ResultError {
  const names = (fields: readonly string[]) => fields.map((f) => `agentrun:${provider}.${f}`).join(", ");
  const secrets = look.keys.filter((f) => secretSettings().includes(`${provider}.${f}`));
  const shown = secrets.length > 0 ? secrets : look.keys;
  const setKey = secrets.length === 0 ? "" : ` (\`${configSet(provider, secrets[0]!, `<${secrets[0]!}>`, true)}\`)`;
  const keys = `check its ${shown.length === 1 ? "key" : "keys"}, ${names(shown)}${setKey}`;
  const urls =
    look.urls.length > 0
      ? `check where it is sent, ${names(look.urls)} (unset: the vendor's own address), and this machine's network`
      : "check this machine's network";
  const next = error.code === "unauthorized" ? keys : error.code === "unreachable" ? urls : `${keys}; ${urls}`;
  return {
    ...error,
    message: `${provider} did not pass its connection test (${error.code}), so nothing was made or read: ${error.message.replace(/\.+$/, "")}. ${capital(next)}`,
  };
}

const capital = (words: string) => words.charAt(0).toUpperCase() + words.slice(1);

/** Settings keys the plugin does not take, each with the line that removes it, and the keys it takes. */
export function unknownSettings(keys: string[], takes: Record<string, readonly string[]>): string {
  const lines = keys.map((key) => `\`pulumi config rm --path agentrun:${key}\``).join(", ");
  const known = Object.entries(takes)
    .map(([provider, names]) => `agentrun:${provider}.{${names.join(",")}}`)
    .join(", ");
  return `the stack's agentrun config has settings this plugin does not take or cannot read: ${keys.map((k) => `agentrun:${k}`).join(", ")}; remove each (${lines}), or set one it takes (${known}) with \`pulumi config set --path agentrun:<provider>.<key> <value>\``;
}

/** Runs a step; a library refusal it throws is thrown again in the stack's terms, its code, field and cause kept. */
export async function inStackWords<T>(settings: StackSettings, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof ResultFailure)) throw error;
    const said = forStack(error.error, settings);
    if (said.message === error.message) throw error;
    throw new ResultFailure(said);
  }
}
