// helloWithin: the first call of every connection, hello, within the connection's bound and the
// caller's signal, shared by every provider's bridge (Docker, Daytona, Modal, E2B). On a failure the
// bridge is closed and the refusal tells the caller's abort from the bound from a daemon that never
// answered, in the bridge's own words when it printed any.
import type { Bounded } from "./bound.js";
import { CallError, type DaemonClient } from "./client.js";
import { FRAME_VERSION } from "./frames.js";
import type { Hello } from "./protocol.js";
import { fail, ok, type Result } from "./result.js";

export interface HelloWithin {
  client: DaemonClient;
  /** Who says hello ("agentrun-docker"). */
  who: string;
  /** The computer, in words. */
  target: string;
  /** The connection's bound joined with the caller's signal (boundedBy), and the bound's length. */
  bounded: Bounded;
  boundMs: number;
  /** The caller's own signal: its abort reads as aborted, never as the bound. */
  caller?: AbortSignal | undefined;
  /** Ends the bridge. */
  close(): Promise<void>;
  /** The bridge's own words on why (its stderr's last line), when it printed any. */
  words?: () => string | Promise<string>;
  /** Words that say the computer is gone, not unreachable. */
  gone?: RegExp;
  /**
   * The bridge carries any byte both ways (Docker's attached exec, Modal's binary exec): hello asks
   * for frames, and file and tar bytes travel as themselves where the daemon takes them up.
   */
  frames?: boolean;
}

export async function helloWithin(o: HelloWithin): Promise<Result<Hello>> {
  try {
    const options = { signal: o.bounded.signal };
    // A daemon from before frames refuses a param it does not know: it is asked again as the spec asks.
    const { frames, ...hello } = o.frames
      ? await o.client.call("hello", { client: o.who, frames: FRAME_VERSION }, options).catch((error: unknown) => {
          if (error instanceof CallError && error.kind === "invalid") return o.client.call("hello", { client: o.who }, options);
          throw error;
        })
      : await o.client.call("hello", { client: o.who }, options);
    if (frames === FRAME_VERSION) o.client.useFrames();
    return ok(hello);
  } catch (error) {
    await o.close();
    if (o.caller?.aborted) return fail("aborted", `connecting to ${o.target} was aborted`);
    const said = ((await o.words?.()) ?? "").trim().split("\n").pop() ?? "";
    const why = said || (error instanceof CallError ? error.message : String(error));
    if (o.bounded.bound.aborted) return fail("timeout", `the daemon in ${o.target} did not say hello within ${o.boundMs / 1000} s${said ? `: ${said}` : ""}`);
    return fail(o.gone?.test(why) ? "gone" : "unreachable", `the daemon in ${o.target} did not answer hello: ${why}`);
  }
}
