// The library's refusals in a stack's user's terms. The library speaks to library callers
// (docker.image(), ensureImage, a recipe option); a stack's user writes Pulumi config and runs
// docker and pulumi commands, so where the two differ the plugin says what they can run. Each rule
// matches the library's own words, and test/unit/stack-words.test.ts holds both sides to them.
import { ResultFailure, type ResultError } from "../src/vendor/result.js";

/** The one setting these rules read: the stack's image for Docker's computers (no import of config.ts, which uses this file). */
type StackSettings = { docker?: { image?: string | undefined } | undefined };

/** `pulumi config set` for one of a provider's settings. */
export const configSet = (provider: string, key: string, value = `<${key}>`) => `pulumi config set --path agentrun:${provider}.${key} ${value}`;
/** `pulumi config rm` for one of a provider's settings. */
export const configRm = (provider: string, key: string) => `pulumi config rm --path agentrun:${provider}.${key}`;

// The library's words these rules translate (src/docker/provider.ts create, src/docker/image.ts pullWords).
const MISSING_AT_CREATE = /^the image (\S+) is not on this Docker host, and create pulls nothing\b/;
const NOT_PULLED =
  /^the image (\S+) is not on this Docker host and could not be pulled: (.*?)(?:; pull or load it on this host ahead \(docker load\), or give a recipe)?$/;

function missingImage(tag: string): string {
  return (
    `the image ${tag} is not on this Docker host, and nothing is pulled while a Computer is made: ` +
    `build it here (\`docker build -t ${tag} <folder with its Dockerfile>\`), or pull it where a registry answers (\`docker pull ${tag}\`); ` +
    `or leave the Computer's image out, for the provider's own image (\`${configSet("docker", "image")}\` names one for every Computer). Nothing was made`
  );
}

function missingSetting(tag: string, why: string): string {
  return (
    `the image ${tag}, which the stack's agentrun:docker.image names, is not on this Docker host${why}. ` +
    `Build it here (\`docker build -t ${tag} <folder with its Dockerfile>\`) or load it (\`docker load -i <file>\`), ` +
    `or unset it for the provider's own image (\`${configRm("docker", "image")}\`)`
  );
}

/** A refusal as a stack's user reads it (settings: the stack's, to tell its image from a Computer's); anything no rule knows keeps the library's words. */
export function forStack(error: ResultError, settings: StackSettings = {}): ResultError {
  const fromSetting = (tag: string) => tag === settings.docker?.image;
  const missing = MISSING_AT_CREATE.exec(error.message);
  if (missing && error.field === "image") {
    const tag = missing[1]!;
    return { ...error, message: fromSetting(tag) ? missingSetting(tag, ", and nothing is pulled while a Computer is made") : missingImage(tag) };
  }
  const unpulled = NOT_PULLED.exec(error.message);
  if (unpulled) return { ...error, message: missingSetting(unpulled[1]!, ` and could not be pulled: ${unpulled[2]!}`) };
  return error;
}

// The library names an option as its class's (DockerProvider's user option); the stack names it agentrun:docker.user.
const OPTION = /\b\w+Provider's (\w+)(?: option)?/g;

/**
 * A provider's settings refused by the registry, with the config lines that set or unset the one
 * it names; a refusal that names no setting (the host's DOCKER_HOST) keeps the library's words.
 */
export function settingsRefused(provider: string, error: ResultError): ResultError {
  const key = [...error.message.matchAll(OPTION)].map((m) => m[1]!)[0];
  if (key === undefined) return error;
  const words = error.message.replace(new RegExp(`^${provider}: `), "").replace(OPTION, (_, name: string) => `agentrun:${provider}.${name}`);
  return {
    ...error,
    message:
      `the stack's agentrun:${provider} settings were refused: ${words}. ` +
      `Change it with \`${configSet(provider, key, "<value>")}\`, or unset it with \`${configRm(provider, key)}\``,
  };
}

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
    const said = forStack(
      { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}), ...(error.refusals ? { refusals: error.refusals } : {}) },
      settings,
    );
    if (said.message === error.message) throw error;
    throw new ResultFailure(said);
  }
}
