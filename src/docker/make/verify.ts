// create's verify phase: the computer read back (its inspect, the daemon's hello and its proxy,
// side by side), the desktop's display started, /work's mode read from inside, the proxy held to
// what it must be, and the drift check; a computer that is not what was declared is refused (the
// flow then deletes it).
import { DAEMON_IN_COMPUTER } from "../../contract/daemon-path.js";
import { startDisplay } from "../../daemon/desktop.js";
import type { Hello } from "../../daemon/protocol.js";
import type { Creation } from "../../contract/create.js";
import type { ComputerRef, Connection, NetworkReadBack } from "../../contract/provider.js";
import { fail, ok, type Result } from "../../daemon/result.js";
import { proxyExpected } from "../computer-egress.js";
import { openConnection } from "../connect.js";
import { BROWSER_PROFILE, HOME } from "../constants.js";
import { type DockerContext, displayOf, expectedOf, refOf } from "../context.js";
import { proxyHeld } from "../egress-enforced.js";
import { enforcedInside } from "../../egress/enforced.js";
import { unprovenRules } from "../../egress/proven.js";
import { inspect, lastWords } from "../containers.js";
import { drift } from "../drift.js";
import { inspectEgress } from "../egress.js";
import { proxyReadBack } from "../egress-readback.js";
import { homeDrift } from "../home.js";
import { restoreHome } from "../../kits/image/snapshot-home.js";
import { snapshotIdOf } from "../snapshot-image.js";
import { gvisorKernelDrift } from "../runtime.js";
import { browserMismatches, startComputerBrowser } from "../../kits/browser/computer.js";
import type { Inspected } from "../readback.js";
import type { Prepared } from "./prepare.js";
import { lifetimeEnded, type Made } from "./run.js";

/** What the computer read back as, once it answered. */
export interface Opened {
  inspected: Inspected;
  connection: Connection;
  /** The computer's own proxy as inspected, when it has one. */
  proxyFound: Result<Inspected | undefined>;
  /** The shared proxy it joined as read back, when it joined one. */
  joinedNow: Result<NetworkReadBack | undefined>;
}

type Refusal = "refused" | "aborted" | "timeout" | "failed" | "gone";

/** The create hook connect: the report, the daemon's hello and the proxy, read side by side (the drift check needs them all). */
export async function readBack(context: DockerContext, creation: Creation<Prepared>, made: Made): Promise<Result<Opened>> {
  const { name, signal } = creation;
  const { id, plan } = made;
  await context.pause?.("after-run", signal);
  // One inspect for the read-back and for the connection's way in (init's pid, for its socket from this machine).
  const inspecting = inspect(context.engine, id, { signal });
  const [inspected, connection, proxyFound, joinedNow] = await Promise.all([
    inspecting,
    openConnection(context.engine, { id, name, inspected: inspecting }, undefined, signal),
    made.egressPlan ? inspectEgress(context.engine, name, { signal }) : Promise.resolve(ok(undefined)),
    plan.egress === undefined
      ? Promise.resolve(ok(undefined))
      : context.proxies.joined(plan.egress, { uid: plan.uid, gid: plan.gid, deadline: creation.deadline }, { signal }),
  ]);
  const refused = async (code: Refusal, words: string) => {
    if (connection.ok) await connection.value.close();
    made.words?.close();
    return fail(code, words);
  };
  if (!inspected.ok) {
    return refused(signal?.aborted ? "aborted" : inspected.error.code === "not_found" ? "gone" : "failed", `${inspected.error.message}; ${name} was deleted`);
  }
  let state = inspected.value.State;
  if (state?.Running && !connection.ok && !signal?.aborted) {
    // Init may have ended between the inspect and the hello: read again, so its words are said.
    const again = await inspect(context.engine, id, { signal });
    if (again.ok) state = again.value.State;
  }
  if (!state?.Running) {
    if (state?.ExitCode === 0 && Date.now() >= Date.parse(creation.deadline)) return refused("timeout", lifetimeEnded(creation));
    const words = await refusedWords(context, made);
    // Init ends 0 before its deadline only when it is stopped (SIGTERM, SIGINT).
    const stopped = state?.ExitCode === 0 ? ": its init was stopped, as docker stop or the Docker engine stopping does" : "";
    return refused("failed", `${name} was not running after its start (exit code ${state?.ExitCode ?? "?"}${stopped}${words}); it was removed`);
  }
  if (!connection.ok) {
    if (signal?.aborted) return refused("aborted", `create was aborted while saying hello; ${name} was deleted`);
    return refused(connection.error.code === "timeout" ? "timeout" : "refused", `${connection.error.message}; ${name} was deleted`);
  }
  // Init serves: its start has no more words to say.
  made.words?.close();
  return ok({ inspected: inspected.value, connection: connection.value, proxyFound, joinedNow });
}

/** Init's last line: from the attach made before its start (a pool's computer keeps no log), else its log. */
async function refusedWords(context: DockerContext, made: Made): Promise<string> {
  const words = made.words ? await made.words.last() : await lastWords(context.engine, made.id);
  return words ? `: ${words}` : "";
}

/** A desktop's X server started through the daemon, as the computer's user; create waits for the display. */
async function display(context: DockerContext, creation: Creation<Prepared>, opened: Opened): Promise<Result<Hello>> {
  const { name, signal } = creation;
  const shown = await startDisplay(opened.connection.client, {
    display: displayOf(context),
    ...(context.desktop.server ? { server: context.desktop.server } : {}),
    ...(context.desktop.timeoutMs !== undefined ? { timeoutMs: context.desktop.timeoutMs } : {}),
    ...(signal ? { signal } : {}),
  });
  if (shown.ok) return shown;
  const code = shown.error.code === "aborted" || shown.error.code === "timeout" ? shown.error.code : "failed";
  return fail(code, `${name}'s desktop: ${shown.error.message}; ${name} was deleted`);
}

/** The proxy held to what it must be, as every later read-back holds it. */
function proxyOf(context: DockerContext, creation: Creation<Prepared>, made: Made, opened: Opened): Result<NetworkReadBack | undefined> {
  const { name, signal } = creation;
  const { plan, egressPlan } = made;
  if (!opened.proxyFound.ok) return fail(signal?.aborted ? "aborted" : "failed", `${opened.proxyFound.error.message}; ${name} was deleted`);
  if (!opened.joinedNow.ok) return fail(signal?.aborted ? "aborted" : "failed", `${opened.joinedNow.error.message}; ${name} was deleted`);
  if (!egressPlan) return ok(opened.joinedNow.value);
  const at = { uid: plan.uid, gid: plan.gid, deadline: creation.deadline, image: egressPlan.image, hostAddresses: egressPlan.hostAddresses };
  return ok(proxyReadBack(opened.proxyFound.value, proxyExpected(context, name, at)));
}

/** The create hook verify: the display, /work, the proxy and the drift check; the ref when it is as declared. */
export async function verify(context: DockerContext, creation: Creation<Prepared>, made: Made, opened: Opened): Promise<Result<ComputerRef>> {
  const { name, signal, checked } = creation;
  let hello = opened.connection.hello;
  await context.pause?.("hello", signal);
  // A fork: its snapshot's home put back into its own, before its display starts and /work is read back.
  if (snapshotIdOf(creation.spec.image) !== undefined) {
    const restored = await restoreHome(opened.connection.client, HOME, { signal });
    if (!restored.ok)
      return fail(restored.error.code, `${name}'s home could not be put back from ${creation.spec.image}: ${restored.error.message}; ${name} was deleted`);
  }
  if (checked.kind === "desktop") {
    const shown = await display(context, creation, opened);
    if (!shown.ok) return shown;
    hello = shown.value;
  }
  if (checked.kind === "browser") {
    const started = await startComputerBrowser(opened.connection.client, creation.spec.network, BROWSER_PROFILE, signal);
    if (!started.ok) return fail(started.error.code, `${name}'s browser: ${started.error.message}; ${name} was deleted`);
  }
  const home = await homeDrift(opened.connection.client, signal).catch((error: Error) => `${HOME} could not be read from inside: ${error.message}`);
  const kernel = await gvisorKernelDrift(opened.connection.client, creation.spec.runtime, checked.host.kernel, signal);
  if (signal?.aborted) return fail("aborted", `create was aborted while reading the computer; ${name} was deleted`);
  const proxy = proxyOf(context, creation, made, opened);
  if (!proxy.ok) return proxy;
  const { plan } = made;
  const mismatches = drift(creation.spec, opened.inspected, hello, {
    ...expectedOf(context, checked.host, { uid: plan.uid, gid: plan.gid, deadline: creation.deadline, daemon: checked.daemon, kind: checked.kind }),
    ...(proxy.value ? { proxy: proxy.value } : {}),
    ...(checked.browserImage !== undefined ? { image: checked.browserImage } : {}),
  });
  if (home) mismatches.push(home);
  if (checked.kind === "browser") mismatches.push(...(await browserMismatches(opened.connection.client, creation.spec.network, BROWSER_PROFILE, signal)));
  if (kernel) mismatches.push(kernel);
  if (mismatches.length > 0) return fail("refused", `${name} is not what was declared, so it was deleted: ${mismatches.join("; ")}`);
  // What its proxy enforces, as every later read-back says it.
  // Its own proxy was inspected with the computer; a shared one it joined is read here.
  const ownProxy = made.egressPlan && opened.proxyFound.ok ? { proxy: opened.proxyFound.value } : undefined;
  const held = await proxyHeld(context, opened.inspected, proxy.value, { signal }, ownProxy);
  if (!held.ok) return fail(signal?.aborted ? "aborted" : "failed", `${held.error.message}; ${name} was deleted`);
  const ref = refOf(opened.inspected, hello, proxy.value, context.volume);
  if (held.value && ref.spec) ref.spec.enforced = await enforcedInside(held.value, opened.connection.client, signal);
  // Its rules proven from inside: a request each allows passes, one each refuses is refused.
  const unproven = held.value ? await unprovenRules(opened.connection.client, held.value.enforced.rules, DAEMON_IN_COMPUTER, signal) : [];
  if (signal?.aborted) return fail("aborted", `create was aborted while reading the computer; ${name} was deleted`);
  if (unproven.length > 0) return fail("refused", `${name} is not what was declared, so it was deleted: ${unproven.join("; ")}`);
  return ok(ref);
}
