// A computer's screen size, as screen.shot reads it on a connection of its own: what a desktop's
// resource reports beside its drift.
import { CallError } from "../daemon/client.js";
import { fail, ok, type Result } from "../daemon/result.js";
import type { ComputerProvider, ComputerRef } from "./provider.js";

/** A screen's size in pixels. */
export interface ScreenSize {
  width: number;
  height: number;
}

/** The screen's size, as screen.shot reads it on a connection of its own (closed after). */
export async function screenOf(
  provider: Pick<ComputerProvider, "connect">,
  ref: ComputerRef,
  options: { signal?: AbortSignal } = {},
): Promise<Result<ScreenSize>> {
  const connected = await provider.connect(ref, options);
  if (!connected.ok) return connected;
  try {
    const shot = await connected.value.client.call("screen.shot", {}, options);
    return ok({ width: shot.width, height: shot.height });
  } catch (error) {
    return fail(
      error instanceof CallError && error.kind === "unsupported" ? "unsupported" : "failed",
      `reading ${ref.name}'s screen: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    await connected.value.close();
  }
}
