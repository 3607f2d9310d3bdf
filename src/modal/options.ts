// The Modal provider's options, held to their rules at construction: a wrong one throws in words
// that never hold the token.
import { MAX_PROBE_TARGETS } from "../contract/probe.js";
import { OptionError } from "../daemon/result.js";
import { parseUser, userText } from "../contract/user.js";
import { modalUserProblem } from "./check.js";
import { DEFAULT_USER, MAX_LIFETIME_MS, TIMEOUTS, type ModalTimeouts } from "./constants.js";
import type { ModalSdk } from "./sdk.js";

export interface ModalProviderOptions {
  /** The host's own client (new ModalClient(...)), a fake of the slice, or a loader of one (made at the first call). */
  sdk: ModalSdk | (() => Promise<ModalSdk>);
  /** The app every sandbox is made in and listed from. */
  app: string;
  /** Where the client sends its calls, in words (create's Modal server); a host's own client goes where it goes. */
  target?: string;
  environment?: string;
  /** The daemon to upload: computerd for linux/amd64 (default this package's dist/computerd-linux-amd64). */
  daemonPath?: string;
  /** A registry image holding this version's daemon at /computerd, pinned by digest; then nothing is uploaded. */
  daemonImage?: string;
  /** The computer's user when a spec names none (default 2510:2510); never root. */
  user?: string;
  /** The longest lifetime (default and most 24 hours). */
  maxLifetimeMs?: number;
  /** The probe's targets (default Modal's: three resolvers on 443, DNS over UDP). */
  probeTargets?: string[];
  /** The version hello must report (default this package's); only a drifted provider sets another. */
  version?: string;
  timeouts?: Partial<ModalTimeouts>;
}

export interface Settled {
  app: string;
  target: string;
  environment: string | undefined;
  daemonPath: string | undefined;
  daemonImage: string | undefined;
  /** uid:gid. */
  user: string;
  maxLifetimeMs: number;
  probeTargets: string[] | undefined;
  t: ModalTimeouts;
}

const DIGEST = /@sha256:[0-9a-f]{64}$/;

function checkSdk(options: ModalProviderOptions): void {
  const sdk = options?.sdk as Partial<ModalSdk> | undefined;
  if (
    typeof sdk !== "function" &&
    (!sdk || typeof sdk.sandboxes?.create !== "function" || typeof sdk.apps?.fromName !== "function" || typeof sdk.images?.fromRegistry !== "function")
  ) {
    throw new TypeError("ModalProvider needs sdk: the host's ModalClient (new ModalClient({ tokenId, tokenSecret })), or a fake of the ModalSdk slice");
  }
}

function checkDaemon(options: ModalProviderOptions): void {
  if (options.daemonImage !== undefined) {
    if (options.daemonPath !== undefined) throw new TypeError("ModalProvider takes daemonImage or daemonPath, not both: the daemon comes from one place");
    if (typeof options.daemonImage !== "string" || !DIGEST.test(options.daemonImage)) {
      throw new OptionError("daemonImage", "ModalProvider's daemonImage", " is a registry image pinned by digest (name@sha256:<64 hex>), never a tag");
    }
  }
  if (options.daemonPath !== undefined && (typeof options.daemonPath !== "string" || options.daemonPath.length === 0)) {
    throw new OptionError("daemonPath", "ModalProvider's daemonPath", " is the path of computerd for linux/amd64");
  }
}

export function settle(options: ModalProviderOptions): Settled {
  checkSdk(options);
  if (typeof options.app !== "string" || options.app.length === 0 || options.app.length > 64) {
    throw new OptionError("app", "ModalProvider's app", " is required: the name of the Modal app its sandboxes are made in (up to 64 characters)");
  }
  checkDaemon(options);
  if (options.user !== undefined) {
    const problem = modalUserProblem(options.user);
    if (problem) throw new OptionError("user", "ModalProvider's user option", `: ${problem}`);
  }
  const max = options.maxLifetimeMs ?? MAX_LIFETIME_MS;
  if (!Number.isInteger(max) || max < 1000 || max > MAX_LIFETIME_MS) {
    throw new OptionError(
      "maxLifetimeMs",
      "ModalProvider's maxLifetimeMs",
      ` is a whole number of milliseconds from 1000 to ${MAX_LIFETIME_MS} (Modal's 24 hours)`,
    );
  }
  if (options.probeTargets !== undefined) {
    const t = options.probeTargets;
    if (!Array.isArray(t) || t.length === 0 || t.length > MAX_PROBE_TARGETS || !t.every((x) => typeof x === "string" && x.length > 0)) {
      throw new OptionError("probeTargets", "ModalProvider's probeTargets", ` is a list of 1 to ${MAX_PROBE_TARGETS} host:port or host:port/udp targets`);
    }
  }
  for (const [key, value] of Object.entries(options.timeouts ?? {})) {
    if (!(key in TIMEOUTS) || !Number.isInteger(value) || (value as number) <= 0) {
      throw new OptionError(
        `timeouts.${key}`,
        `ModalProvider's timeouts.${key}`,
        ` is not a bound it takes (${Object.keys(TIMEOUTS).join(", ")}, each a whole number of ms)`,
      );
    }
  }
  const user = parseUser(options.user ?? DEFAULT_USER);
  return {
    app: options.app,
    target: options.target ?? "the host's own Modal client",
    environment: options.environment,
    daemonPath: options.daemonPath,
    daemonImage: options.daemonImage,
    user: user.ok ? userText(user.value) : DEFAULT_USER,
    maxLifetimeMs: max,
    probeTargets: options.probeTargets ? [...options.probeTargets] : undefined,
    t: { ...TIMEOUTS, ...options.timeouts },
  };
}
