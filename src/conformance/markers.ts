// Finding a case's own processes from inside: each is started with a marker in its argv (a sleep
// of a unique length), and a scan of /proc lists the pids whose command line holds it.
import { randomInt } from "node:crypto";
import type { ComputerClient } from "../daemon/client.js";
import { output } from "./assert.js";

/** A sleep length no other process has: 3000 to 3999 seconds and a unique fraction. */
export function marker(): { seconds: string; inScript: string } {
  const whole = String(3000 + randomInt(1000));
  const fraction = String(randomInt(100_000, 1_000_000));
  // In a script the two halves are quoted apart, so the script's own command line never holds
  // the marker: only the sleep it starts does.
  return { seconds: `${whole}.${fraction}`, inScript: `"${whole}"".${fraction}"` };
}

/** The pids whose command line holds the marker, read by a shell loop over /proc. */
export async function holding(client: ComputerClient, mark: ReturnType<typeof marker>, signal: AbortSignal): Promise<string[]> {
  const script = [
    `m=${mark.inScript}`,
    "for f in /proc/[0-9]*/cmdline; do",
    '  c=$(tr "\\000" " " < "$f" 2>/dev/null) || continue',
    '  case "$c" in *"$m"*) p=${f#/proc/}; echo "${p%/cmdline}";; esac',
    "done",
  ].join("\n");
  const out = await output(client, ["sh", "-c", script], { signal, timeoutMs: 20_000 });
  return out.split("\n").filter(Boolean);
}
