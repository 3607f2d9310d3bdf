// TestConnection: the serve side's test of a provider's keys, (providerId, { keys, signal }), keys
// by their serve-side names (the offered row's: MODAL_TOKEN_ID), each mapped onto the settings
// field its vendor's schema marks with that name (keySetting). The provider is built as any host
// builds it, from its settings, and asked its one account-level read (testConnection), bounded.
// The plugin's and the command's checks of keys call this too. No answer carries a key.
import type { z } from "zod";
import { isSecretSetting, keySettingName } from "../contract/setting-marks.js";
import type { ComputerProvider, HostEnvironment } from "../contract/provider.js";
import { redactWords, withoutValues } from "../daemon/redact.js";
import { fail, type Result } from "../daemon/result.js";
import { entryOf, isProviderId, PROVIDER_IDS, providerFromSettings } from "../providers.js";

/** How long a test may take, its read's own bound included: past it, the vendor was not reached in time. */
export const TEST_CONNECTION_MS = 30_000;

export interface TestConnectionOptions {
  /** By their serve-side names (the offered row's keys); values are never in an answer. */
  keys?: Readonly<Record<string, string>>;
  signal?: AbortSignal;
  /** The provider's other settings (Modal's app, a vendor's URL), as a host's config gives them. */
  settings?: Readonly<Record<string, unknown>>;
  /** The host's environment, for a setting that defaults as the vendor's own CLI finds it (Docker's engine). */
  host?: HostEnvironment;
  /** The bound (TEST_CONNECTION_MS). */
  timeoutMs?: number;
}

/** Each serve-side key name of a provider, with the settings field it fills. */
export function keySettings(providerId: string): Record<string, string> {
  if (!isProviderId(providerId)) return {};
  const shape = entryOf(providerId).settings.shape as Record<string, z.ZodType>;
  return Object.fromEntries(
    Object.entries(shape).flatMap(([field, schema]) => {
      const name = keySettingName(schema);
      return name === undefined ? [] : [[name, field]];
    }),
  );
}

/** The provider's one account-level read, from its keys: { detail } in words, or unauthorized, unreachable, else the read's own code. */
export async function TestConnection(providerId: string, options: TestConnectionOptions = {}): Promise<Result<{ detail: string }>> {
  const keys = options.keys ?? {};
  // The secret keys' values: a namespace or a URL given as a key is no secret, and words may name it.
  const shape = isProviderId(providerId) ? (entryOf(providerId).settings.shape as Record<string, z.ZodType | undefined>) : {};
  const fields = keySettings(providerId);
  const plain = (name: string) => {
    const field = shape[fields[name] ?? ""];
    return field !== undefined && !isSecretSetting(field);
  };
  const values = Object.entries(keys)
    .filter(([name, v]) => typeof v === "string" && v.length > 0 && !plain(name))
    .map(([, v]) => v);
  const answer = await tested(providerId, keys, options);
  return withoutKeys(answer, values);
}

async function tested(providerId: string, keys: Readonly<Record<string, string>>, options: TestConnectionOptions): Promise<Result<{ detail: string }>> {
  if (!isProviderId(providerId)) return fail("invalid", `there is no provider ${JSON.stringify(providerId)}: the registry holds ${PROVIDER_IDS.join(", ")}`);
  const fields = keySettings(providerId);
  const offered = entryOf(providerId).offer.keys;
  const takes = offered.length > 0 ? `it takes ${offered.map((k) => k.name).join(", ")}` : "it takes none";
  const unknown = Object.keys(keys).filter((name) => fields[name] === undefined);
  if (unknown.length > 0) return fail("invalid", `${providerId} has no key ${unknown.join(", ")}: ${takes}`, { field: "keys" });
  const missing = offered.filter((k) => k.required && !keys[k.name]).map((k) => k.name);
  if (missing.length > 0) return fail("invalid", `${providerId} needs ${missing.join(" and ")} to test its connection`, { field: "keys" });
  const settings: Record<string, unknown> = { ...options.settings };
  for (const [name, value] of Object.entries(keys)) settings[fields[name]!] = value;
  const made = await providerFromSettings(providerId, settings, options.host);
  if (!made.ok) return made;
  return testProvider(providerId, made.value, options);
}

/**
 * A provider's one account-level read, bounded (TEST_CONNECTION_MS): { detail }, or its failure
 * in words; a throw is a failure, and past the bound the vendor was not reached in time. Its
 * words may quote what the vendor refused: a caller that holds keys takes them out.
 */
export async function testProvider(
  providerId: string,
  provider: ComputerProvider,
  options: Pick<TestConnectionOptions, "signal" | "timeoutMs"> = {},
): Promise<Result<{ detail: string }>> {
  if (!provider.testConnection) return fail("unsupported", `${providerId} has no connection test`);
  const ms = options.timeoutMs ?? TEST_CONNECTION_MS;
  const bound = AbortSignal.timeout(ms);
  const signal = options.signal ? AbortSignal.any([options.signal, bound]) : bound;
  const late = new Promise<Result<never>>((resolve) => {
    const answer = () =>
      resolve(
        options.signal?.aborted
          ? fail("aborted", `the test of ${providerId}'s connection was aborted`)
          : fail("unreachable", `${providerId} did not answer within ${ms / 1000} s`),
      );
    if (signal.aborted) answer();
    else signal.addEventListener("abort", answer, { once: true });
  });
  try {
    return await Promise.race([provider.testConnection({ signal }), late]);
  } catch (error) {
    return fail("failed", `${providerId}'s connection test failed: ${redactWords(error instanceof Error ? error.message : String(error))}`);
  }
}

/** The answer with every key's value taken out of its words (a vendor may quote what it refused). */
function withoutKeys(answer: Result<{ detail: string }>, values: string[]): Result<{ detail: string }> {
  const scrub = (words: string) => withoutValues(words, values, "[key]");
  if (answer.ok) return { ok: true, value: { detail: scrub(answer.value.detail) } };
  const { code, message, field } = answer.error;
  return fail(code, scrub(message), field === undefined ? {} : { field });
}
