// Daytona's pause: its stop and start, which keep the disk and end every process. A pause labels
// the sandbox (PAUSED_LABEL) before its stop, so a stopped sandbox reads paused only when the stack
// paused it, and stopped when a person or Daytona's auto-stop did; a resume starts it, starts
// computerd init again from the installed daemon until the deadline label's time, waits for its
// hello, and takes the label away.
import type { CallOptions } from "../daemon/client.js";
import type { ComputerRef, ReleaseHow } from "../contract/provider.js";
import type { PauseHooks } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { waitUntil } from "../contract/wait.js";
import { expectDone } from "./api.js";
import { DEADLINE_LABEL, INIT_SESSION, PAUSED_LABEL, TIMEOUTS } from "./constants.js";
import { startInit } from "./make.js";
import { deadlineOf, isComputer, isGoing, stateOf } from "./readback.js";
import type { DaytonaSandboxes } from "./sandboxes.js";
import type { Sandbox } from "./schemas.js";

/** Daytona's states a start may begin from: stopped, and archived (its disk in Daytona's storage). */
const STARTABLE = new Set(["stopped", "archived"]);

type Release = (ref: ComputerRef, how: ReleaseHow, options?: CallOptions) => Promise<Result<undefined>>;

/** The sandbox of a ref, only when it is a computer of this provider that is not going. */
async function computerOf(sb: DaytonaSandboxes, ref: ComputerRef, signal?: AbortSignal): Promise<Result<Sandbox>> {
  const target = ref?.id ?? ref?.name;
  if (typeof target !== "string" || !target) return fail("invalid", "a Daytona computer's ref has its sandbox id", { field: "id" });
  const read = await sb.get(target, signal);
  if (!read.ok) return read.error.code === "not_found" ? fail("not_found", `no computer ${target} at Daytona`) : read;
  if (!isComputer(read.value) || isGoing(read.value))
    return fail("not_found", `no computer ${target} at Daytona (a sandbox that is not this provider's, or is going, does not count)`);
  return read;
}

/** PUT /sandbox/{id}/labels: Daytona replaces every label with these. */
async function setLabels(sb: DaytonaSandboxes, sandbox: Sandbox, labels: Record<string, string>, signal?: AbortSignal): Promise<Result<undefined>> {
  const what = `labelling ${sandbox.name}`;
  return expectDone(await sb.call(`/sandbox/${encodeURIComponent(sandbox.id)}/labels`, what, { method: "PUT", body: { labels }, signal }), what);
}

const without = (labels: Record<string, string>, key: string) => Object.fromEntries(Object.entries(labels).filter(([k]) => k !== key));

export function daytonaPause(sb: DaytonaSandboxes, release: Release): PauseHooks {
  return {
    keeps: "disk",
    async pause(ref, options = {}) {
      const { signal } = options;
      if (sb.o.autoDeleteInterval === 0)
        return fail("unsupported", "a pause is refused: this provider's autoDeleteMinutes is 0, so Daytona deletes a sandbox at its stop", { field: "state" });
      const found = await computerOf(sb, ref, signal);
      if (!found.ok) return found;
      const sandbox = found.value;
      if (stateOf(sandbox) === "paused") return ok();
      const labelled = await setLabels(sb, sandbox, { ...sandbox.labels, [PAUSED_LABEL]: new Date().toISOString() }, signal);
      if (!labelled.ok) return fail(labelled.error.code, `${sandbox.name} was not paused: ${labelled.error.message}`);
      const stopped = await release({ id: sandbox.id, name: sandbox.name, provider: ref.provider }, "stop", options);
      if (stopped.ok) return ok();
      // Not stopped: the label goes, so a sandbox that runs on never reads paused.
      const back = await setLabels(sb, sandbox, without(sandbox.labels, PAUSED_LABEL));
      return fail(
        stopped.error.code,
        `${sandbox.name} was not paused: ${stopped.error.message}${back.ok ? "" : `; its ${PAUSED_LABEL} label stays (${back.error.message})`}`,
      );
    },
    async resume(ref, options = {}) {
      const { signal } = options;
      const found = await computerOf(sb, ref, signal);
      if (!found.ok) return found;
      let sandbox = found.value;
      const deadline = deadlineOf(sandbox);
      if (!deadline) return fail("refused", `${sandbox.name} has no ${DEADLINE_LABEL} label of an ISO time, so its daemon cannot be started again`);
      if (deadline.getTime() <= Date.now()) return fail("refused", `${sandbox.name}'s deadline ${deadline.toISOString()} has passed, so it is not resumed`);
      const wasStarted = sandbox.state === "started";
      if (!wasStarted) {
        if (STARTABLE.has(sandbox.state ?? "")) {
          const what = `starting ${sandbox.name}`;
          const start = expectDone(await sb.call(`/sandbox/${encodeURIComponent(sandbox.id)}/start`, what, { method: "POST", signal }), what);
          if (!start.ok) return start;
        }
        const waited = await waitUntil(
          (s) => sb.get(sandbox.id, s),
          (r) => !r.ok || r.value.state === "started" || r.value.state === "error" || isGoing(r.value),
          {
            boundMs: TIMEOUTS.startMs,
            signal,
            minMs: sb.o.pollMs,
            what: `${sandbox.name} to start`,
            describe: (r) => (r.ok ? `state ${r.value.state}` : r.error.message),
          },
        );
        if (!waited.ok) return waited;
        if (!waited.value.ok) return waited.value;
        if (waited.value.value.state !== "started") return fail("failed", `${sandbox.name} did not start: Daytona reads it ${waited.value.value.state}`);
        sandbox = waited.value.value;
      }
      const toolbox = await sb.toolbox(sandbox, signal);
      if (!toolbox.ok) return toolbox;
      // A sandbox found started (a pause cut off before its stop, or a start by hand) may hold init still.
      let connection = wasStarted ? await sb.open(toolbox.value, sandbox.name, signal) : undefined;
      if (!connection?.ok) {
        const init = await startInit(sb, toolbox.value, deadline.toISOString(), signal);
        if (!init.ok) return fail(init.error.code, `${sandbox.name} started, but its daemon did not: ${init.error.message}`);
        connection = await sb.open(toolbox.value, sandbox.name, signal);
        if (!connection.ok) {
          const logs = await toolbox.value.logs(INIT_SESSION, init.value);
          return fail(
            connection.error.code,
            `${sandbox.name} started, but its daemon did not answer: ${connection.error.message}${logs.ok && logs.value ? ` (init said: ${logs.value.trim().slice(-300)})` : ""}`,
          );
        }
      }
      const hello = connection.value.hello;
      await connection.value.close();
      if (sandbox.labels[PAUSED_LABEL] !== undefined) {
        const unlabelled = await setLabels(sb, sandbox, without(sandbox.labels, PAUSED_LABEL), signal);
        if (!unlabelled.ok) return fail(unlabelled.error.code, `${sandbox.name} runs again, but its ${PAUSED_LABEL} label stays: ${unlabelled.error.message}`);
      }
      return ok(sb.refOf({ ...sandbox, labels: without(sandbox.labels, PAUSED_LABEL) }, hello, true));
    },
  };
}
