// The Daytona provider's options, held to their rules at construction: a wrong one throws in
// words that never hold the key.
import { parseUser, isRootOrRootGroup, userText } from "../contract/user.js";
import { CHILD_USER } from "../kits/agent-child/install.js";
import { OptionError } from "../daemon/result.js";
import { keyUrl } from "../contract/base-url.js";
import type { Fetch } from "./api.js";
import { DEFAULT_API_URL } from "./constants.js";
import type { WebSocketFactory } from "./toolbox.js";

export interface DaytonaProviderOptions {
  /** The caller's Daytona key; never read from the environment. */
  apiKey: string;
  /** Default https://app.daytona.io/api. */
  apiUrl?: string;
  /** The runner region; unset, the organization's. */
  target?: string;
  /** computerd for the sandbox's architecture. */
  daemonPath: string;
  arch?: "amd64" | "arm64";
  sandboxClass?: "container" | "linux-vm";
  /** The daemon's user, uid:gid (default 2510:2510); never root. */
  daemonUser?: string;
  /** Minutes with no outside activity before Daytona stops the sandbox; 0 (unset) never. */
  autoStopMinutes?: number;
  /** Minutes a stopped sandbox is kept; 0 deletes at the stop; unset, never (-1 is sent). */
  autoDeleteMinutes?: number;
  /** The version the daemon must report (the drifted provider's differs). */
  version?: string;
  /** First pause of the waits (default 250 ms). */
  pollMs?: number;
  goneMs?: number;
  stopMs?: number;
  fetch?: Fetch;
  webSocket?: WebSocketFactory;
}

export interface Settled {
  apiKey: string;
  apiUrl: string;
  target: string | undefined;
  daemonPath: string;
  arch: "amd64" | "arm64";
  sandboxClass: "container" | "linux-vm" | undefined;
  daemonUser: string;
  autoStopInterval: number;
  autoDeleteInterval: number;
  pollMs: number;
  goneMs: number;
  stopMs: number;
}

const whole = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 0;

export function settle(options: DaytonaProviderOptions): Settled {
  if (typeof options !== "object" || options === null) throw new TypeError("DaytonaProvider takes options: { apiKey, daemonPath, ... }");
  if (typeof options.apiKey !== "string" || options.apiKey.trim() === "")
    throw new OptionError("apiKey", "DaytonaProvider's apiKey option", " is required: the caller's Daytona API key (it is never read from the environment)");
  const apiUrl = keyUrl(options.apiUrl ?? DEFAULT_API_URL, "apiUrl", "DaytonaProvider's apiUrl");
  if (typeof options.daemonPath !== "string" || !options.daemonPath)
    throw new TypeError("DaytonaProvider needs daemonPath: computerd for the sandbox's architecture (dist/computerd-linux-amd64)");
  const arch = options.arch ?? "amd64";
  if (arch !== "amd64" && arch !== "arm64") throw new OptionError("arch", "DaytonaProvider's arch", " is amd64 or arm64");
  if (options.sandboxClass !== undefined && options.sandboxClass !== "container" && options.sandboxClass !== "linux-vm") {
    throw new OptionError("sandboxClass", "DaytonaProvider's sandboxClass", " is container or linux-vm");
  }
  if (options.target !== undefined && (typeof options.target !== "string" || !options.target))
    throw new OptionError("target", "DaytonaProvider's target", " is a region's name");
  const user = parseUser(options.daemonUser ?? CHILD_USER);
  if (!user.ok) throw new OptionError("daemonUser", "DaytonaProvider's daemonUser", `: ${user.error.message}`);
  if (isRootOrRootGroup(user.value))
    throw new OptionError("daemonUser", "DaytonaProvider's daemonUser", " is root or in root's group; init refuses uid 0 for its programs");
  for (const name of ["autoStopMinutes", "autoDeleteMinutes"] as const) {
    if (options[name] !== undefined && !whole(options[name]))
      throw new OptionError(name, `DaytonaProvider's ${name}`, " is a whole number of minutes, 0 or more");
  }
  for (const name of ["pollMs", "goneMs", "stopMs"] as const) {
    if (options[name] !== undefined && !whole(options[name])) throw new OptionError(name, `DaytonaProvider's ${name}`, " is a whole number of milliseconds");
  }
  return {
    apiKey: options.apiKey,
    apiUrl,
    target: options.target,
    daemonPath: options.daemonPath,
    arch,
    sandboxClass: options.sandboxClass,
    daemonUser: userText(user.value),
    autoStopInterval: options.autoStopMinutes ?? 0,
    autoDeleteInterval: options.autoDeleteMinutes ?? -1,
    pollMs: options.pollMs ?? 250,
    goneMs: options.goneMs ?? 120_000,
    stopMs: options.stopMs ?? 120_000,
  };
}
