// The phone harness provider's options, held to their rules at construction: a wrong one throws
// in words that never hold the key.
import { keyUrl } from "../contract/base-url.js";
import { OptionError } from "../daemon/result.js";
import { packageVersion } from "../package.js";
import { isAbsolute } from "node:path";
import { adbCli, type AdbTransport } from "./adb.js";
import { type Ledger, memoryLedger } from "./ledger.js";

export const DEFAULT_BASE_URL = "https://api.phone-harness.com/v1";
export const REQUEST_MS = 30_000;
export const READY_MS = 240_000;
export const MAX_LIFETIME_MS = 30 * 60_000;

export interface PhoneHarnessOptions {
  /** The caller's phone harness key (serve passes PHONE_HARNESS_API_KEY; never read from the environment). */
  apiKey: string;
  /** The API's base (default https://api.phone-harness.com/v1). */
  baseUrl?: string;
  /** android; ios (the control URL's iPhone) is a later change and refused. */
  platform?: "android" | "ios";
  /** adb: the CLI's path (default adb on PATH, its server on port 5037), or a transport (adbCli(path, { port, env }), or a test's). */
  adb?: string | AdbTransport;
  /** Where each phone's labels, image and deadline are kept (default in memory). */
  ledger?: Ledger;
  /**
   * A folder on this host whose APKs apps.install may put on a phone: the phone harness takes no
   * files, so adb carries the APK from here. Without it, apps.install is refused and not declared.
   */
  installFrom?: string;
  /** Each request's own bound (default 30 s). */
  requestMs?: number;
  /** How long a phone may take to be ready (default 240 s). */
  readyMs?: number;
  /** The longest lifetime asked for (default 30 min). */
  maxLifetimeMs?: number;
  /** The timer a bound is made with (default AbortSignal.timeout). */
  timeout?: (ms: number) => AbortSignal;
  fetch?: typeof fetch;
  /** The version a phone's client must report (default this package's); only a drifted provider sets another. */
  version?: string;
}

export interface Settled {
  apiKey: string;
  baseUrl: string;
  adb: AdbTransport;
  ledger: Ledger;
  installFrom?: string;
  requestMs: number;
  readyMs: number;
  maxLifetimeMs: number;
  timeout: (ms: number) => AbortSignal;
  fetch: typeof fetch;
  /** What the provider holds its phones' clients to. */
  version: string;
  /** What a phone's client reports: this package's version. */
  helloVersion: string;
}

const named = "the phone harness provider's ";

function positive(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0)
    throw new OptionError(option, `${named}${option}`, " is a whole number of milliseconds above 0");
  return value;
}

export function settle(options: PhoneHarnessOptions): Settled {
  if (typeof options !== "object" || options === null) throw new TypeError("the phone harness provider takes options: { apiKey, ... }");
  if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
    throw new OptionError("apiKey", `${named}apiKey`, " is required: the caller's phone harness key (PHONE_HARNESS_API_KEY is never read)");
  }
  if (options.platform === "ios") {
    throw new OptionError(
      "platform",
      `${named}platform`,
      ' "ios" is not offered yet: a cloud iPhone (driven by the API\'s control URL) is a later change; use android',
    );
  }
  if (options.platform !== undefined && options.platform !== "android") throw new OptionError("platform", `${named}platform`, " is android");
  const baseUrl = keyUrl(options.baseUrl ?? DEFAULT_BASE_URL, "baseUrl", `${named}baseUrl`);
  const adb = options.adb ?? "adb";
  if (typeof adb === "string" ? adb.trim() === "" : typeof adb?.run !== "function" || typeof adb.server !== "function") {
    throw new OptionError("adb", `${named}adb`, " is the adb CLI's path, or a transport { run, server }");
  }
  const { installFrom } = options;
  if (installFrom !== undefined && (typeof installFrom !== "string" || !isAbsolute(installFrom)))
    throw new OptionError("installFrom", `${named}installFrom`, " is an absolute folder on this host (the APKs apps.install may put on a phone)");
  const maxLifetimeMs = positive(options.maxLifetimeMs, "maxLifetimeMs", MAX_LIFETIME_MS);
  if (maxLifetimeMs > MAX_LIFETIME_MS) throw new OptionError("maxLifetimeMs", `${named}maxLifetimeMs`, ` is at most ${MAX_LIFETIME_MS} (30 min)`);
  const version = packageVersion();
  return {
    apiKey: options.apiKey,
    baseUrl,
    adb: typeof adb === "string" ? adbCli(adb) : adb,
    ledger: options.ledger ?? memoryLedger(),
    ...(installFrom !== undefined ? { installFrom } : {}),
    requestMs: positive(options.requestMs, "requestMs", REQUEST_MS),
    readyMs: positive(options.readyMs, "readyMs", READY_MS),
    maxLifetimeMs,
    timeout: options.timeout ?? ((ms) => AbortSignal.timeout(ms)),
    fetch: options.fetch ?? fetch,
    version: options.version ?? version,
    helloVersion: version,
  };
}
