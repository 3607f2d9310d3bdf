// A computer's run state on the engine: the engine's pause (the cgroup freezer: every process
// stopped where it stood, memory and open files kept) and unpause, after which the daemon answers
// again as the same process. A paused computer cannot answer, so read, list and connect say so
// from docker inspect alone.
import type { CallOptions } from "../daemon/client.js";
import type { ComputerRef, Connection, PauseHooks } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import type { DockerEngine } from "./api.js";
import type { Pause } from "./options.js";
import { failure, inspect } from "./containers.js";
import { targetOf } from "./context.js";
import { nameOf } from "./readback.js";

const PAUSE_MS = 30_000;

/** The refusal of a connection to a paused computer: what it is, and how it runs again. */
export function pausedRefusal(name: string): Result<never> {
  return fail(
    "refused",
    `${name} is paused: its processes are frozen where they stood and its daemon cannot answer; resume it first (declare state running, or call the provider's pause.resume)`,
  );
}

/** The engine's pause hooks; resume's connection check is the provider's connect; hold: the fault tests' seam. */
export function dockerPause(engine: DockerEngine, connect: (ref: ComputerRef, options: CallOptions) => Promise<Result<Connection>>, hold?: Pause): PauseHooks {
  /** The computer the ref names (only one with the provider's label), then the engine asked to pause or unpause it. */
  const act = async (ref: ComputerRef, how: "pause" | "unpause", options: CallOptions): Promise<Result<string>> => {
    const target = targetOf(ref);
    if (!target.ok) return target;
    const found = await inspect(engine, target.value, options);
    if (!found.ok) return found;
    const name = nameOf(found.value);
    const state = found.value.State ?? {};
    const paused = state.Paused === true;
    const stopped = () => fail("refused", `${name} is stopped, and only a running computer ${how === "pause" ? "pauses" : "resumes"}; make a new computer`);
    if (!state.Running) return stopped();
    if (paused === (how === "pause")) return ok(name);
    if (how === "pause") await hold?.("pausing", options.signal);
    const asked = await engine.call("POST", `/containers/${found.value.Id}/${how}`, { signal: options.signal, timeoutMs: PAUSE_MS });
    if (asked.status === 404) return fail("not_found", `no computer ${target.value} on this Docker host`);
    // Another caller got there first: the state asked for is the state it is in.
    if (asked.status === 409 && /already paused|is not paused/i.test(asked.message)) return ok(name);
    // Stopped since it was read (its engine restarted, or by hand).
    if (asked.status === 409 && /is not running/i.test(asked.message)) return stopped();
    if (!asked.ok) return failure(engine, `${how === "pause" ? "pausing" : "resuming"} ${name}`, asked);
    if (how === "pause") await hold?.("paused", options.signal);
    return ok(name);
  };
  return {
    keeps: "memory",
    pause: async (ref, options = {}) => {
      const paused = await act(ref, "pause", options);
      return paused.ok ? ok(undefined) : paused;
    },
    resume: async (ref, options = {}) => {
      const resumed = await act(ref, "unpause", options);
      if (!resumed.ok) return resumed;
      // Running again means the same daemon answers again: its hello, then the connection closed.
      const connection = await connect(ref, options);
      if (!connection.ok) return fail(connection.error.code, `${resumed.value} was resumed, but its daemon did not answer: ${connection.error.message}`);
      const { hello } = connection.value;
      await connection.value.close();
      return ok({ ...ref, hello });
    },
  };
}
