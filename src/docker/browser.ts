// A browser on Docker: Chromium started through the computer's daemon at create with the flags
// of its network, read back from inside on every read (its flags by field, alive, answering
// CDP), and its CDP served to the caller on this machine's loopback through the daemon's
// connection (src/kits/browser/daemon-cdp.ts): nothing is published on the host.
import type { ComputerClient, Connection } from "../daemon/client.js";
import { ok, type Result } from "../daemon/result.js";
import type { ComputerSpec } from "../contract/provider.js";
import { type BrowserNetwork, browserDrift, chromiumFlags, readBrowser, startBrowser } from "../kits/browser/chromium.js";
import { type CdpDial, serveCdp } from "../kits/browser/daemon-cdp.js";
import { BROWSER_PROFILE } from "./constants.js";

/** The network a browser's flags are made for, from the spec's (as asked, or as read back). */
function networkOf(network: ComputerSpec["network"]): BrowserNetwork {
  return network === "open" ? "open" : typeof network === "object" && network !== null && "allow" in network ? "allow" : "none";
}

/** The flags a Docker browser runs with for its network. */
export function browserFlags(network: ComputerSpec["network"]): string[] {
  return chromiumFlags(networkOf(network), BROWSER_PROFILE);
}

/** Chromium started through the daemon, its CDP answering; else why not, in words. */
export async function startDockerBrowser(client: ComputerClient, network: ComputerSpec["network"], signal?: AbortSignal): Promise<Result<undefined>> {
  const started = await startBrowser(client, browserFlags(network), signal ? { signal } : {});
  return started.ok ? ok() : started;
}

/** The browser read from inside and held to its network's flags: one sentence a mismatch. */
export async function browserMismatches(client: ComputerClient, network: ComputerSpec["network"], signal?: AbortSignal): Promise<string[]> {
  const read = await readBrowser(client, signal);
  if (!read.ok) return [read.error.message];
  return browserDrift(browserFlags(network), read.value);
}

/** The connection with the browser's CDP served on this machine's loopback for as long as it lives. */
export async function withCdp(connection: Connection, direct?: CdpDial): Promise<Result<Connection>> {
  const served = await serveCdp(connection.client, direct);
  return ok({
    client: connection.client,
    hello: connection.hello,
    cdp: served,
    close: async () => {
      await served.close();
      await connection.close();
    },
  });
}
