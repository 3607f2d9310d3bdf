// The plugin's one door to the library's providers: built from the stack's settings through the
// registry (src/providers.ts), once per plugin process, so a provider's reads of its host are
// shared by every resource. A resource knows a vendor only through here, and this file knows
// none: each provider's module maps its own settings onto its options.
import { hostEnvironment } from "../src/contract/host.js";
import { withoutValues } from "../src/daemon/redact.js";
import { secretValues } from "../src/registry/settings.js";
import type { ComputerProvider } from "../src/contract/provider.js";
import type { Result, ResultError } from "../src/daemon/result.js";
import type { Settings } from "./config.js";
import { connectionRefused, settingsRefused } from "./words.js";

export type Vendors = (id: string) => Promise<Result<ComputerProvider>>;

/** A refusal with the value of every setting its schema marks secret taken out of its words. */
export function withoutSecrets(error: ResultError, settings: Settings): ResultError {
  const secrets = secretValues(settings as Record<string, unknown>);
  const hide = (words: string) => withoutValues(words, secrets, "<secret>");
  return {
    ...error,
    message: hide(error.message),
    ...(error.refusals ? { refusals: error.refusals.map((r) => ({ ...r, message: hide(r.message) })) } : {}),
  };
}

/**
 * A vendor that takes keys is asked its one account-level read before the plugin's first use of
 * it, so a wrong, expired or unreachable key fails the preview at once, naming the settings to
 * look at, and never a create half-way. Docker takes no key, and its engine answers the first call.
 */
async function keysTested(id: string, provider: ComputerProvider, settings: Settings): Promise<Result<ComputerProvider>> {
  const [{ entryOf, isProviderId, providerModule }, { keySettings, testProvider }] = await Promise.all([
    import("../src/providers.js"),
    import("../src/registry/connection.js"),
  ]);
  if (!isProviderId(id) || entryOf(id).offer.keys.length === 0 || !provider.testConnection) return { ok: true, value: provider };
  const tested = await testProvider(id, provider);
  if (tested.ok) return { ok: true, value: provider };
  await provider.close?.();
  const urls = (await providerModule(id)).KEY_URLS;
  return { ok: false, error: withoutSecrets(connectionRefused(id, tested.error, { keys: Object.values(keySettings(id)), urls }), settings) };
}

/** The providers made so far, and their end: each one's close (Docker: its engine's connections and ssh login). */
export type OpenVendors = Vendors & { close(): Promise<void> };

export function vendors(settings: Settings, options: { checkKeys?: boolean } = {}): OpenVendors {
  const checkKeys = options.checkKeys ?? true;
  const made = new Map<string, Promise<Result<ComputerProvider>>>();
  const byId = settings as Record<string, Record<string, unknown> | undefined>;
  const vendor: Vendors = (id) => {
    let p = made.get(id);
    if (!p) {
      // The plugin's environment is the user's shell's (the Pulumi engine passes it on): a setting a
      // vendor's own CLI reads from there defaults the same way (Docker's engine: DOCKER_HOST), as
      // it does for the agentrun CLI (src/contract/host.ts).
      p = import("../src/providers.js")
        .then(({ providerFromSettings }) => providerFromSettings(id, byId[id] ?? {}, hostEnvironment()))
        // Refused settings come from the stack's config: say so in the lines that change it.
        .then((made) =>
          made.ok || made.error.field === "provider"
            ? made
            : { ok: false as const, error: withoutSecrets(settingsRefused(id, made.error, byId[id] ?? {}), settings) },
        )
        .then((made) => (made.ok && checkKeys ? keysTested(id, made.value, settings) : made));
      made.set(id, p);
    }
    return p;
  };
  // A provider closed is not forgotten: a later call opens its connections again.
  const close = async () => {
    await Promise.all(
      [...made.values()].map(async (p) => {
        const provider = await p;
        if (provider.ok) await provider.value.close?.();
      }),
    );
  };
  return Object.assign(vendor, { close });
}
