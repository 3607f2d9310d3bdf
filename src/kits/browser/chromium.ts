// Chromium in a computer whose daemon runs (a browser on Docker, and on Kubernetes to come): its
// flags for a network, its start through the daemon as the computer's user, and its read-back
// from inside: the browser's own process found in /proc with the flags it runs with, and its CDP
// asked for /json/version over the computer's loopback (bash's /dev/tcp, through the daemon). Nothing here
// knows a vendor; the provider names the profile's folder and the network.
import { CallError, type ComputerClient } from "../../daemon/client.js";
import { listProcesses, runText } from "../../daemon/processes.js";
import { fail, ok, type Result } from "../../daemon/result.js";

/** Chromium's CDP port on the computer's own loopback: never published, reached through the daemon. */
export const CDP_PORT = 9222;
/** Where init relays an allowlisted computer's traffic to its egress proxy. */
export const EGRESS_RELAY = "127.0.0.1:3128";
/** A closed port: a browser with network none sends every request there, so it reaches nothing, its own loopback included. */
export const NOWHERE = "127.0.0.1:9";

/** The network a browser's flags are made for. */
export type BrowserNetwork = "none" | "allow" | "open";

/**
 * The flags a browser runs with that say what it may reach and how it is driven: the read-back
 * holds each, and a flag of these the browser runs with but was not given is drift too.
 */
export const HELD_FLAGS = [
  "headless",
  "remote-debugging-port",
  "remote-debugging-address",
  "user-data-dir",
  "proxy-server",
  "proxy-bypass-list",
  "proxy-pac-url",
  "proxy-auto-detect",
  "no-proxy-server",
  "host-resolver-rules",
] as const;

/** The flags that work on these closed machines: no GPU, no QUIC, no background traffic. Chromium's sandbox is off: the computer is the sandbox. */
const QUIET = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

/** Chromium's argv (after its program) for a network, its profile in a folder of the computer's user. */
export function chromiumFlags(network: BrowserNetwork, profile: string): string[] {
  // <-loopback> takes loopback off Chromium's implicit bypass: the computer's own ports go through the proxy too.
  const proxy = network === "open" ? [] : [`--proxy-server=${network === "none" ? NOWHERE : `http://${EGRESS_RELAY}`}`, "--proxy-bypass-list=<-loopback>"];
  return ["--headless", ...QUIET, `--user-data-dir=${profile}`, `--remote-debugging-port=${CDP_PORT}`, ...proxy];
}

/** The first page a browser shows. */
export const BLANK = "about:blank";

/** A held flag's value: its text after =, true for a bare flag, undefined when it is not given. */
export function heldFlags(argv: readonly string[]): Record<string, string | true | undefined> {
  const held: Record<string, string | true | undefined> = {};
  for (const arg of argv) {
    const m = /^--([a-z0-9-]+)(?:=(.*))?$/s.exec(arg);
    if (!m || !(HELD_FLAGS as readonly string[]).includes(m[1]!)) continue;
    held[m[1]!] = m[2] ?? true;
  }
  return held;
}

/** The browser as read from inside: its main process's argv, or why none runs; whether its CDP answers. */
export interface BrowserReadBack {
  /** The main process's argv (Chromium's own binary, the wrapper's flags among them); undefined when none runs. */
  argv?: string[];
  /** Why no browser runs, in words (its end as the daemon saw it). */
  ended?: string;
  /** The browser target's path (/devtools/browser/<id>) when CDP answered. */
  browserPath?: string;
}

/** Drift sentences: each held flag as declared against as read back, and a browser that is not running or not answering. */
export function browserDrift(declared: readonly string[], read: BrowserReadBack): string[] {
  if (!read.argv) return [`the browser has ended: ${read.ended ?? "no Chromium runs in it"}`];
  const want = heldFlags(declared);
  const got = heldFlags(read.argv);
  const shown = (v: string | true | undefined) => (v === undefined ? "not given" : v === true ? "given" : JSON.stringify(v));
  const out: string[] = [];
  for (const flag of HELD_FLAGS) {
    if (want[flag] !== got[flag]) out.push(`browser --${flag}: ${shown(got[flag])}, declared ${shown(want[flag])}`);
  }
  if (!read.browserPath) out.push(`the browser runs but its CDP does not answer on port ${CDP_PORT}`);
  return out;
}

/** Every process in the computer, pid and argv, from /proc in one exec (records \x02, pid \x01 argv with NULs). */
const PROC_SCRIPT = `for d in /proc/[0-9]*; do printf '%s\\001' "\${d#/proc/}"; cat "$d/cmdline" 2>/dev/null; printf '\\002'; done`;

/** The browser's main process: Chromium's own binary (Debian's wrapper execs it), not one of its children (--type=). */
export function mainProcess(records: ReadonlyArray<{ pid: number; argv: string[] }>): { pid: number; argv: string[] } | undefined {
  return records.find((r) => /(^|\/)chromium$/.test(r.argv[0] ?? "") && !r.argv.some((a) => a.startsWith("--type=")));
}

/** /proc's records as PROC_SCRIPT prints them. */
export function procRecords(out: string): Array<{ pid: number; argv: string[] }> {
  return out
    .split("\x02")
    .filter((r) => r.includes("\x01"))
    .map((r) => {
      const [pid, cmdline] = r.split("\x01") as [string, string];
      return { pid: Number(pid), argv: cmdline.split("\0").filter((a, i, all) => a.length > 0 || i < all.length - 1) };
    })
    .filter((r) => r.argv.length > 0 && r.argv[0] !== "");
}

/**
 * /json/version's body over the computer's loopback, in bash: the body read by its
 * Content-Length, so the answer is whole as soon as it is sent (Chromium keeps the connection
 * open after it, so a reader that waits for the close waits for its own timeout on every call).
 */
const JSON_VERSION = `exec 3<>/dev/tcp/127.0.0.1/${CDP_PORT} || exit 1
printf 'GET /json/version HTTP/1.1\\r\\nHost: 127.0.0.1:${CDP_PORT}\\r\\n\\r\\n' >&3
n=0
while IFS= read -r -t 3 line <&3; do line=\${line%$'\\r'}; [ -z "$line" ] && break; case "\${line,,}" in content-length:*) n=\${line#*:};; esac; done
read -r -t 3 -N "$((n))" body <&3; printf '%s' "$body"`;

/** The browser target's path from /json/version over the computer's loopback; undefined when CDP does not answer. */
export async function cdpPath(client: ComputerClient, signal?: AbortSignal): Promise<string | undefined> {
  const ran = runText(await client.call("exec.run", { argv: ["bash", "-c", JSON_VERSION], timeoutMs: 5_000 }, signal ? { signal } : {}));
  const body = ran.stdout;
  try {
    const url = (JSON.parse(body) as { webSocketDebuggerUrl?: unknown }).webSocketDebuggerUrl;
    return typeof url === "string" ? new URL(url).pathname : undefined;
  } catch {
    return undefined;
  }
}

/** The browser read from inside: its main process's flags, and its CDP; when none runs, its end as the daemon's table shows it. */
export async function readBrowser(client: ComputerClient, signal?: AbortSignal): Promise<Result<BrowserReadBack>> {
  try {
    const ran = runText(await client.call("exec.run", { argv: ["sh", "-c", PROC_SCRIPT], timeoutMs: 10_000 }, signal ? { signal } : {}));
    const main = mainProcess(procRecords(ran.stdout));
    if (!main) return ok({ ended: await endOf(client, signal) });
    const browserPath = await cdpPath(client, signal);
    return ok({ argv: main.argv, ...(browserPath ? { browserPath } : {}) });
  } catch (error) {
    return fail(error instanceof CallError && error.kind === "aborted" ? "aborted" : "failed", `reading the browser from inside: ${(error as Error).message}`);
  }
}

/** How the browser the daemon started ended, in words: killed by a signal (the kernel's out-of-memory killer sends KILL) or its exit. */
async function endOf(client: ComputerClient, signal?: AbortSignal): Promise<string> {
  const listed = await listProcesses(client, signal ? { signal } : {});
  const started = listed.ok ? listed.value.filter((p) => p.argv[0] === "chromium").pop() : undefined;
  if (!started) return "no Chromium runs in it, and none was started through its daemon";
  if (started.running) return "no Chromium process is in it, though the daemon's still runs";
  if (started.signal === "KILL") return "Chromium was killed (SIGKILL: the kernel's out-of-memory killer, or a kill by hand)";
  if (started.signal) return `Chromium was ended by SIG${started.signal}`;
  return `Chromium exited with code ${started.exitCode}`;
}

/** How long create waits for a started browser's CDP. */
export const BROWSER_START_MS = 30_000;

/**
 * Chromium started through the daemon (process.start, as the computer's user) on a blank page,
 * then waited for until its CDP answers; one that ends first fails with its last words. The
 * browser target's path on success; the process is killed on any failure.
 */
export async function startBrowser(
  client: ComputerClient,
  flags: readonly string[],
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<Result<string>> {
  const timeoutMs = options.timeoutMs ?? BROWSER_START_MS;
  const bound = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])]);
  let id: string;
  try {
    ({ id } = await client.call("process.start", { argv: ["chromium", ...flags, BLANK] }, { signal: bound }));
  } catch (error) {
    return fail(options.signal?.aborted ? "aborted" : "failed", `Chromium could not be started: ${(error as Error).message}`);
  }
  const stop = () => client.call("process.signal", { id, signal: "KILL" }).catch(() => undefined);
  try {
    for (;;) {
      const path = await cdpPath(client, bound);
      if (path) return ok(path);
      const state = await client.call("process.wait", { id, timeoutMs: 100 }, { signal: bound });
      if (!state.running) {
        const err = await client.call("process.read", { id, stream: "stderr", offset: 0, maxBytes: 64 * 1024 }, { signal: bound });
        const last = Buffer.from(err.data, "base64").toString("utf8").trim().split("\n").slice(-3).join(" / ");
        const how = state.signal ? `was killed by SIG${state.signal}` : `exited with code ${state.exitCode}`;
        return fail("failed", `Chromium ${how} before its CDP answered${last ? `: ${last}` : ""}`);
      }
    }
  } catch (error) {
    await stop();
    if (options.signal?.aborted) return fail("aborted", "waiting for Chromium was aborted; it was stopped");
    if (bound.aborted) return fail("timeout", `Chromium's CDP did not answer within ${timeoutMs / 1000} s; it was stopped`);
    return fail("failed", `waiting for Chromium: ${(error as Error).message}`);
  }
}
