// A browser computer whose daemon runs (Docker's, Kubernetes'): its flags for the network it was
// declared with, Chromium started through the daemon at create, its read-back held to those flags
// (alive, answering CDP), the sizes it needs, and a connection carrying its CDP served on this
// machine's loopback (daemon-cdp.ts). The vendor names the profile's folder in its user's home.
import type { ComputerClient, Connection } from "../../daemon/client.js";
import { ok, type Refusal, type Result } from "../../daemon/result.js";
import type { CheckInput, ComputerSpec } from "../../contract/provider.js";
import { type BrowserNetwork, browserDrift, chromiumFlags, readBrowser, startBrowser } from "./chromium.js";
import { type CdpDial, serveCdp } from "./daemon-cdp.js";

/** A browser's least memory and pids: Chromium does not start in less. */
export const BROWSER_MIN_MEMORY_MB = 512;
export const BROWSER_MIN_PIDS = 128;

/** The refusals of sizes too small for Chromium, each naming its field. */
export function sizeRefusals(spec: Pick<CheckInput, "memoryMb" | "pids">): Refusal[] {
  const out: Refusal[] = [];
  if (typeof spec.memoryMb === "number" && spec.memoryMb < BROWSER_MIN_MEMORY_MB)
    out.push({ field: "memoryMb", message: `a browser needs memoryMb of at least ${BROWSER_MIN_MEMORY_MB}: Chromium does not start in less` });
  if (typeof spec.pids === "number" && spec.pids < BROWSER_MIN_PIDS)
    out.push({ field: "pids", message: `a browser needs pids of at least ${BROWSER_MIN_PIDS}: Chromium runs a process per renderer` });
  return out;
}

/** The network a browser's flags are made for, from the spec's (as asked, or as read back). */
function networkOf(network: ComputerSpec["network"]): BrowserNetwork {
  return network === "open" ? "open" : typeof network === "object" && network !== null && "allow" in network ? "allow" : "none";
}

/** The flags a browser runs with for its network, its profile in the folder given. */
export function browserFlags(network: ComputerSpec["network"], profile: string): string[] {
  return chromiumFlags(networkOf(network), profile);
}

/** Chromium started through the daemon, its CDP answering; else why not, in words. */
export async function startComputerBrowser(
  client: ComputerClient,
  network: ComputerSpec["network"],
  profile: string,
  signal?: AbortSignal,
): Promise<Result<undefined>> {
  const started = await startBrowser(client, browserFlags(network, profile), signal ? { signal } : {});
  return started.ok ? ok() : started;
}

/** The browser read from inside and held to its network's flags: one sentence a mismatch. */
export async function browserMismatches(client: ComputerClient, network: ComputerSpec["network"], profile: string, signal?: AbortSignal): Promise<string[]> {
  const read = await readBrowser(client, signal);
  if (!read.ok) return [read.error.message];
  return browserDrift(browserFlags(network, profile), read.value);
}

/**
 * The connection with the browser's CDP served on this machine's loopback for as long as it lives:
 * over a direct stream where the vendor gives one (Docker's relay socket), else through the daemon.
 */
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
