// Finding a case's own processes from inside: each is started with a marker in its argv (a sleep
// of a unique length), and a scan of /proc lists the pids whose command line holds it.
import { randomInt } from "node:crypto";
import type { ComputerClient } from "../daemon/client.js";
import { output } from "./assert.js";

/** A sleep length no other process has: 3000 to 3999 seconds and a unique fraction. */
export function marker(): { seconds: string; inScript: string; pattern: string } {
  const whole = String(3000 + randomInt(1000));
  const fraction = String(randomInt(100_000, 1_000_000));
  // In a script the two halves are quoted apart, and the pattern's dot is a bracket, so neither the
  // script's own command line nor the scan's holds the marker: only the sleep it starts does.
  return { seconds: `${whole}.${fraction}`, inScript: `"${whole}"".${fraction}"`, pattern: `${whole}[.]${fraction}` };
}

/**
 * The pids whose command line holds the marker: one grep over /proc, so a look costs one program
 * started, not one a process (under gVisor's ptrace each start is slow, and a look must be quick).
 */
export async function holding(client: ComputerClient, mark: ReturnType<typeof marker>, signal: AbortSignal): Promise<string[]> {
  const script = [`for f in $(grep -l -e '${mark.pattern}' /proc/[0-9]*/cmdline 2>/dev/null); do`, '  p=${f#/proc/}; echo "${p%/cmdline}"', "done"].join("\n");
  const out = await output(client, ["sh", "-c", script], { signal, timeoutMs: 20_000 });
  return out.split("\n").filter(Boolean);
}
