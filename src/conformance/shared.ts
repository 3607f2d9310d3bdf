// The shared computer's place for the cases: HOME read from inside, and a directory of the run's
// (and one per case) made under it, through files when declared, else exec.
import type { Capabilities, ComputerProvider, ComputerRef, ComputerSpec, Connection } from "../contract/provider.js";
import { shown } from "./assert.js";
import { type Ledger, type Made, settle, TIMED_OUT, within } from "./ledger.js";

export interface Shared {
  ref: ComputerRef;
  connection: Connection;
  home: string;
  base: string;
}

/** HOME, read from inside through exec; the base directory made under it. A computer with neither exec nor files (a phone) has none: both are "". */
export async function prepareShared(connection: Connection, caps: Capabilities, runId: string, signal: AbortSignal): Promise<{ home: string; base: string }> {
  if (!caps.groups.includes("exec") && !caps.groups.includes("files")) return { home: "", base: "" };
  const ran = await connection.client.call("exec.run", { argv: ["printenv", "HOME"], timeoutMs: 30_000 }, { signal });
  const home = Buffer.from(ran.stdout, "base64").toString("utf8").trim();
  if (ran.exitCode !== 0 || !home.startsWith("/")) throw new Error(`the shared computer's HOME could not be read (printenv HOME printed ${shown(home)})`);
  const base = `${home === "/" ? "" : home}/agentrun-conformance-${runId}`;
  if (caps.groups.includes("files")) await connection.client.call("files.mkdir", { path: base, parents: true }, { signal });
  else await connection.client.call("exec.run", { argv: ["mkdir", "-p", base], timeoutMs: 30_000 }, { signal });
  return { home, base };
}

export async function makeDir(shared: Shared, caps: Capabilities, path: string, signal: AbortSignal): Promise<void> {
  if (caps.groups.includes("files")) await shared.connection.client.call("files.mkdir", { path, parents: true }, { signal });
  else await shared.connection.client.call("exec.run", { argv: ["mkdir", "-p", path], timeoutMs: 30_000 }, { signal });
}

/**
 * The shared computer: made, connected and its HOME prepared within boundMs, or the problem in
 * words. What it brings past the bound is deleted or closed as it comes, and named in cleanup.late.
 */
export async function makeShared(
  provider: ComputerProvider,
  caps: Capabilities,
  spec: ComputerSpec,
  run: { runId: string; ledger: Ledger; boundMs: number; signal?: AbortSignal },
): Promise<Shared | { problem: string }> {
  const { runId, ledger, boundMs, signal: runSignal } = run;
  const controller = new AbortController();
  const onRunAbort = () => controller.abort();
  runSignal?.addEventListener("abort", onRunAbort, { once: true });
  const sharedMade: Made[] = [];
  const sharedConnection: Connection[] = [];
  const making = (async (): Promise<Shared | string> => {
    const created = await settle(() => provider.create(spec, { signal: controller.signal }));
    if (!created.ok) return `its create failed (${created.error.code}): ${created.error.message}`;
    ledger.notesOf(created.value);
    const made: Made = { ref: created.value, by: provider, owner: "the shared computer" };
    sharedMade.push(made);
    const connected = await settle(() => provider.connect(created.value, { signal: controller.signal }));
    if (!connected.ok) return `its connect failed (${connected.error.code}): ${connected.error.message}`;
    sharedConnection.push(connected.value);
    try {
      const dirs = await prepareShared(connected.value, caps, runId, controller.signal);
      return { ref: created.value, connection: connected.value, ...dirs };
    } catch (error) {
      return `its HOME could not be prepared: ${(error as Error).message}`;
    }
  })();
  ledger.track(making, "the shared computer's create");
  const got = await within(making, boundMs);
  runSignal?.removeEventListener("abort", onRunAbort);
  if (got === TIMED_OUT) {
    controller.abort();
    // Whatever it brings later is deleted as it comes.
    void making.then(() => {
      for (const made of sharedMade) {
        ledger.cleanup.late.push(`${made.ref.name}, the shared computer, made after its bound, deleted as it came`);
        void ledger.track(ledger.release(made), "the late shared computer's release");
      }
      for (const connection of sharedConnection) void ledger.close(connection, "the shared computer");
    });
    return { problem: `the shared computer was not made and connected within ${boundMs / 1000} s` };
  }
  if (typeof got === "string") {
    for (const connection of sharedConnection) await ledger.close(connection, "the shared computer");
    for (const made of sharedMade) await ledger.release(made);
    return { problem: `the shared computer could not be made: ${got}` };
  }
  return got;
}
