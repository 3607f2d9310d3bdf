// What every browser vendor declares: kind browser with no daemon, cdp and stream (no downloads
// yet: the protocol has no method that reads them), network open alone, delete alone, no extend.
import { BROWSER_IMAGE } from "./labels.js";
import type { Capabilities } from "../../contract/provider.js";

export function browserCapabilities(maxLifetimeMs: number): Capabilities {
  return {
    kind: "browser",
    os: "linux",
    daemon: "none",
    groups: ["cdp", "stream"],
    lifetime: "vendor",
    maxLifetimeMs,
    network: ["open"],
    release: ["delete"],
    isolation: "vm",
    defaults: { image: BROWSER_IMAGE },
  };
}
