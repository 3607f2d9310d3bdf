// The E2B provider's options, held to their rules at construction: a wrong one throws in words
// that never hold the key.
import path from "node:path";
import { CHILD_USER } from "../kits/agent-child/install.js";
import { packageRoot } from "../package.js";
import { MAX_PROBE_TARGETS } from "../contract/probe.js";
import { OptionError } from "../daemon/result.js";
import { keyUrl } from "../contract/base-url.js";
import { isRootOrRootGroup, parseUser, userText } from "../contract/user.js";
import { ambientProblem } from "./client.js";
import { DEFAULT_DOMAIN, HOBBY_MAX_MS, PRO_MAX_MS, TIMEOUTS, type E2BTimeouts } from "./constants.js";
import type { E2BKind } from "./readback.js";
import type { E2BSandboxClass } from "./sdk.js";

export interface E2BProviderOptions {
  /** The caller's E2B key; never read from the environment (not E2B_API_KEY). */
  apiKey: string;
  /** E2B's domain (default e2b.app); the API is https://api.<domain>. */
  domain?: string;
  /** E2B's API at another address than https://api.<domain>: https:// with no path, or http:// on the loopback (a server of one's own). */
  apiUrl?: string;
  /**
   * Every sandbox's envd at one address, each request naming its sandbox in E2b-Sandbox-Id (as
   * E2B's own sandbox proxy takes them): https:// with no path, or http:// on the loopback. Unset,
   * the SDK's own (https://sandbox.<domain> for E2B's domains).
   */
  sandboxUrl?: string;
  /** computerd for linux/amd64 (default this package's dist/computerd-linux-amd64). */
  daemonPath?: string;
  /** The kind of a computer whose spec names none: desktop (default, the spec's: Xvfb started through computerd), or linux. */
  kind?: E2BKind;
  /** The longest lifetime: default Hobby's 1 h, at most Pro's 24 h. */
  maxLifetimeMs?: number;
  /** The daemon's user, uid:gid (default 2510:2510); never root. */
  daemonUser?: string;
  /** The probe's targets (default the shared ones: three resolvers on 443, DNS over UDP). */
  probeTargets?: string[];
  /** The version hello must report (default this package's); only a drifted provider sets another. */
  version?: string;
  timeouts?: Partial<E2BTimeouts>;
  /** The host's Sandbox class, a fake of the slice, or a loader of one; unset, the e2b package's. */
  sdk?: E2BSandboxClass | (() => Promise<E2BSandboxClass>);
  /** Never taken: a stream would need public traffic, which opens every port (see the spec). */
  publicStream?: never;
}

export interface Settled {
  apiKey: string;
  domain: string;
  apiUrl: string;
  sandboxUrl: string | undefined;
  daemonPath: string;
  maxLifetimeMs: number;
  daemonUser: string;
  kind: E2BKind;
  probeTargets: string[] | undefined;
  t: E2BTimeouts;
}

export function packagedDaemon(): string {
  return path.join(packageRoot(), "dist", "computerd-linux-amd64");
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

export function settle(options: E2BProviderOptions): Settled {
  if (typeof options !== "object" || options === null) throw new TypeError("E2BProvider takes options: { apiKey, ... }");
  if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
    throw new OptionError("apiKey", "E2BProvider's apiKey option", " is required: the caller's E2B API key (E2B_API_KEY is never read)");
  }
  if ("publicStream" in options)
    throw new TypeError(
      "E2BProvider takes no publicStream option: a stream would need public traffic, which opens every port in the computer to anyone with its address; every sandbox is made with public traffic off",
    );
  const ambient = ambientProblem();
  if (ambient) throw new TypeError(`E2BProvider refuses to start: ${ambient}`);
  const domain = options.domain ?? DEFAULT_DOMAIN;
  if (typeof domain !== "string" || !DOMAIN.test(domain)) throw new OptionError("domain", "E2BProvider's domain", " is a host name, such as e2b.app");
  const [apiUrl, sandboxUrl] = (["apiUrl", "sandboxUrl"] as const).map((key) =>
    options[key] === undefined ? undefined : keyUrl(options[key], key, `E2BProvider's ${key}`),
  );
  if (options.daemonPath !== undefined && (typeof options.daemonPath !== "string" || !options.daemonPath))
    throw new OptionError("daemonPath", "E2BProvider's daemonPath", " is the path of computerd for linux/amd64");
  if (options.kind !== undefined && options.kind !== "linux" && options.kind !== "desktop")
    throw new OptionError("kind", "E2BProvider's kind", " is linux or desktop");
  const max = options.maxLifetimeMs ?? HOBBY_MAX_MS;
  if (!Number.isInteger(max) || max < 1000 || max > PRO_MAX_MS)
    throw new OptionError("maxLifetimeMs", "E2BProvider's maxLifetimeMs", ` is a whole number of milliseconds from 1000 to ${PRO_MAX_MS} (Pro's 24 hours)`);
  const user = parseUser(options.daemonUser ?? CHILD_USER);
  if (!user.ok) throw new OptionError("daemonUser", "E2BProvider's daemonUser", `: ${user.error.message}`);
  if (isRootOrRootGroup(user.value))
    throw new OptionError("daemonUser", "E2BProvider's daemonUser", " is root or in root's group; init refuses uid 0 for its programs");
  const t = options.probeTargets;
  if (t !== undefined && (!Array.isArray(t) || t.length === 0 || t.length > MAX_PROBE_TARGETS || !t.every((x) => typeof x === "string" && x.length > 0))) {
    throw new OptionError("probeTargets", "E2BProvider's probeTargets", ` is a list of 1 to ${MAX_PROBE_TARGETS} host:port or host:port/udp targets`);
  }
  for (const [key, value] of Object.entries(options.timeouts ?? {})) {
    if (!(key in TIMEOUTS) || !Number.isInteger(value) || (value as number) <= 0) {
      throw new OptionError(
        `timeouts.${key}`,
        `E2BProvider's timeouts.${key}`,
        ` is not a bound it takes (${Object.keys(TIMEOUTS).join(", ")}, each a whole number of ms)`,
      );
    }
  }
  const sdk = options.sdk as unknown;
  if (sdk !== undefined && typeof sdk !== "function" && (typeof sdk !== "object" || sdk === null)) {
    throw new OptionError("sdk", "E2BProvider's sdk", " is the e2b package's Sandbox class, a fake of its slice, or a loader of one");
  }
  return {
    apiKey: options.apiKey,
    domain,
    apiUrl: apiUrl ?? `https://api.${domain}`,
    sandboxUrl,
    daemonPath: options.daemonPath ?? packagedDaemon(),
    maxLifetimeMs: max,
    daemonUser: userText(user.value),
    kind: options.kind ?? "desktop",
    probeTargets: t ? [...t] : undefined,
    t: { ...TIMEOUTS, ...options.timeouts },
  };
}
