// A desktop's X server, started through the daemon as any program is (process.start, as the
// computer's user: computerd starts nothing itself), and the wait until hello declares the
// display. Docker uses it at create, and E2B will: the server is one process in the daemon's
// table, so it ends with the computer.
import { boundedBy } from "./bound.js";
import { CallError, type ComputerClient } from "./client.js";
import type { Hello } from "./protocol.js";
import { fail, ok, type Result } from "./result.js";

/** The display init is given and the server starts on. */
export const DEFAULT_DISPLAY = ":0";
/** The X server a desktop runs on display: a 1280x800 screen, no TCP listener. */
export function defaultServer(display: string): string[] {
  return ["Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"];
}
/** How long create waits for hello to declare the display. */
export const DESKTOP_TIMEOUT_MS = 30_000;
/** The groups a display adds to hello's. */
export const DISPLAY_GROUPS = ["screen", "input.pointer", "input.keys"] as const;

export interface DesktopOptions {
  /** DISPLAY for init and the server (default :0). */
  display?: string;
  /** The server's argv (default Xvfb <display> -screen 0 1280x800x24 -nolisten tcp). */
  server?: readonly string[];
  /** How long to wait for hello to declare the display (default 30 s). */
  timeoutMs?: number;
}

/** Whether hello declares a display: kind desktop with the screen and input groups. */
export function declaresDisplay(hello: Hello): boolean {
  return hello.kind === "desktop" && DISPLAY_GROUPS.every((g) => hello.groups.includes(g));
}

const POLL_MS = 100;

/**
 * Starts the X server through the daemon and waits until hello declares the display. A server
 * that ends first fails with its last words on stderr; one not up within timeoutMs fails as
 * timeout. The server is left running only on success.
 */
export async function startDisplay(client: ComputerClient, options: DesktopOptions & { signal?: AbortSignal } = {}): Promise<Result<Hello>> {
  const display = options.display ?? DEFAULT_DISPLAY;
  const server = [...(options.server ?? defaultServer(display))];
  const timeoutMs = options.timeoutMs ?? DESKTOP_TIMEOUT_MS;
  const { bound, signal } = boundedBy(timeoutMs, options.signal);
  const words = (error: unknown) => (error instanceof CallError ? error.message : String(error));
  let id: string;
  try {
    // The display starts once, at create: a lock or socket there already is stale, left in the
    // image by the computer a snapshot was taken of (its X server refuses to start on it).
    const n = display.replace(/^:/, "").split(".")[0];
    for (const path of [`/tmp/.X${n}-lock`, `/tmp/.X11-unix/X${n}`])
      await client.call("files.remove", { path }, { signal }).catch((error: unknown) => {
        if (!(error instanceof CallError && error.kind === "not_found")) throw error;
      });
    ({ id } = await client.call("process.start", { argv: server, env: { DISPLAY: display } }, { signal }));
  } catch (error) {
    if (options.signal?.aborted) return fail("aborted", "starting the X server was aborted");
    return fail("failed", `the X server (${server.join(" ")}) could not be started: ${words(error)}`);
  }
  const stop = async () => {
    await client.call("process.signal", { id, signal: "KILL" }).catch(() => undefined);
  };
  for (;;) {
    try {
      const hello = await client.call("hello", { client: "agentrun-desktop" }, { signal });
      if (declaresDisplay(hello)) return ok(hello);
      const state = await client.call("process.wait", { id, timeoutMs: 0 }, { signal });
      if (!state.running) {
        const err = await client.call("process.read", { id, stream: "stderr", offset: 0, maxBytes: 64 * 1024 }, { signal }).catch(() => undefined);
        const last = err ? Buffer.from(err.data, "base64").toString("utf8").trim().split("\n").slice(-3).join(" / ") : "";
        const how = state.signal ? `was killed by SIG${state.signal}` : `exited with code ${state.exitCode}`;
        return fail("failed", `the X server (${server.join(" ")}) ${how} before the display answered${last ? `: ${last}` : ""}`);
      }
    } catch (error) {
      await stop();
      if (options.signal?.aborted) return fail("aborted", "waiting for the display was aborted; the X server was stopped");
      if (bound.aborted) return fail("timeout", `the display ${display} did not answer within ${timeoutMs / 1000} s; the X server was stopped`);
      return fail("failed", `waiting for the display ${display}: ${words(error)}`);
    }
    if (!(await pause(POLL_MS, signal))) {
      await stop();
      if (options.signal?.aborted) return fail("aborted", "waiting for the display was aborted; the X server was stopped");
      return fail("timeout", `the display ${display} did not answer within ${timeoutMs / 1000} s; the X server was stopped`);
    }
  }
}

/** Waits ms; false when the signal aborted first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
