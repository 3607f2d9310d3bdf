// A Computer behind a shared EgressProxy that is not running reaches nothing: its own drift says
// so, beside the proxy's. The proxy's up makes it again on its volume and the computer keeps
// running, so that sentence alone is no replace of the computer: its diff is an update that reads
// it back once the proxy is there again.
import type { ComputerProvider } from "../../src/contract/provider.js";
import { ResultFailure } from "../../src/daemon/result.js";
import { isObject } from "../secrets.js";

/** The sentence a computer's drift holds while its shared proxy is stopped or gone. */
export function proxyDownWords(proxy: string, how: "stopped" | "gone"): string {
  return `its egress proxy ${proxy} is ${how}, so it reaches nothing until an up makes the proxy again`;
}

/** The proxy's state in the computer's words, or undefined while it runs (or the computer joins none). */
export async function proxyDrift(provider: ComputerProvider, proxy: string | undefined, signal: AbortSignal): Promise<string | undefined> {
  if (proxy === undefined || !provider.proxies) return undefined;
  const read = await provider.proxies.read(proxy, { signal });
  if (read.ok) return read.value.state === "running" ? undefined : proxyDownWords(proxy, "stopped");
  if (read.error.code === "not_found") return proxyDownWords(proxy, "gone");
  throw new ResultFailure(read.error);
}

/** The drift's sentences that are the computer's own: all but its proxy's. */
export function ownDrift(drift: unknown, egress: unknown): string[] {
  const sentences = Array.isArray(drift) ? drift.filter((d): d is string => typeof d === "string") : [];
  const proxy = isObject(egress) && typeof egress.proxy === "string" ? egress.proxy : undefined;
  if (proxy === undefined) return sentences;
  const down = new Set([proxyDownWords(proxy, "stopped"), proxyDownWords(proxy, "gone")]);
  return sentences.filter((d) => !down.has(d));
}
