// create's run phase, Docker's make: the plan, the run folder's writability, the egress parts
// before the computer, then the container made (a pool's with its output attached for init's
// words) and started while its proxy is made and becomes ready: the spec's docker run. Each part is pushed on the undo stack as it is made; a lifetime that
// ended while docker run went on is a refusal.
import { fail, ok, type Result, type ResultError } from "../../daemon/result.js";
import type { Creation } from "../../contract/create.js";
import type { Reply } from "../api.js";
import { bindWritableProblem } from "../bind.js";
import { type DockerContext, displayOf } from "../context.js";
import { create as createContainer, failure, remove, removeLate, start } from "../containers.js";
import { IMAGE_SETTING } from "../constants.js";
import { createRequest } from "../create-request.js";
import { snapshotIdOf, snapshotMissing } from "../snapshot-image.js";
import type { EgressPlan } from "../egress-request.js";
import { type Plan, planOf } from "../plan.js";
import { nameUser } from "../user-name.js";
import { egressBefore, egressPlanOf, egressProxy } from "./egress.js";
import type { Prepared } from "./prepare.js";
import { attachWords, type StartWords } from "./words.js";

/** What the run phase made: the container, started, and its plan. */
export interface Made {
  id: string;
  plan: Plan;
  /** The computer's own proxy, when it has one. */
  egressPlan: EgressPlan | undefined;
  /** A pool's computer: its output attached before its start, for init's words (its log driver keeps none). */
  words?: StartWords;
}

/** 45000 is "45 s", 101234 is "101.2 s"; exact when asked (a lifetime), else to a tenth. */
export function seconds(ms: number, exact = false): string {
  return `${exact ? ms / 1000 : Math.round(ms / 100) / 10} s`;
}

/** The spec's words for a lifetime that ended before docker run finished. */
export function lifetimeEnded(creation: Creation<Prepared>): string {
  const took = Date.now() - creation.started;
  return `${creation.name}: its lifetime of ${seconds(creation.spec.lifetimeMs, true)} ended before docker run finished (it took ${seconds(took)}); ask for a longer lifetime`;
}

/** The create hook make: the plan, the egress parts, then the container made and started. */
export async function run(context: DockerContext, creation: Creation<Prepared>): Promise<Result<Made>> {
  const { checked, name, signal, undo } = creation;
  const plan = planOf(checked, {
    name,
    deadline: creation.deadline,
    daemon: checked.daemon,
    userDefault: context.user,
    labels: creation.labels,
    volume: context.volume,
    ...(checked.kind === "desktop" ? { display: displayOf(context) } : {}),
    ...(checked.browserImage !== undefined ? { browserImage: checked.browserImage } : {}),
  });
  // A remote engine's run folder is on its host, which this machine cannot stat: Docker's bind says.
  if (plan.mount && !context.remote) {
    const problem = await bindWritableProblem(plan.mount.path, plan.uid, plan.gid);
    if (problem) return fail("refused", problem, { field: "mount" });
  }
  if (signal?.aborted) return fail("aborted", "create was aborted before the container was made; nothing was made");
  const egressPlan = egressPlanOf(context, plan, checked);
  const before = await egressBefore(context, plan, egressPlan, { spec: creation.spec, undo, signal });
  if (!before.ok) return before;

  await context.pause?.("before-run", signal);
  // The computer starts beside its own proxy, not after it: init serves no client until the
  // proxy answers on its socket, so nothing of the agent's runs before its one way out is there.
  const [proxyMade, container] = await Promise.all([egressProxy(context, egressPlan, signal), makeAndStart(context, creation, plan)]);
  if (!proxyMade.ok) return proxyMade;
  if ("made" in container) return notMade(context, creation, container.made);
  if ("named" in container) return fail(container.named.error.code, `${container.named.error.message}; ${name} was removed`);
  const { id, begun, words } = container;
  if (!begun.ok) {
    if (begun.aborted) return fail("aborted", `create was aborted while ${name} started; it was removed`);
    const failed = failure(context.engine, `starting ${name}`, begun);
    const code = failed.error.code === "timeout" || failed.error.code === "unreachable" ? failed.error.code : "failed";
    return fail(code, `${failed.error.message}; it was removed`);
  }
  // The spec's words: the container's create and start are its docker run.
  if (Date.now() >= Date.parse(creation.deadline)) return fail("timeout", `${lifetimeEnded(creation)}; it was removed`);
  return ok({ id, plan, egressPlan, ...(words ? { words } : {}) });
}

/**
 * The computer's container made (on the undo stack at once), its user named in its own /etc
 * before anything runs as it, and started; where it stopped, and the engine's reply.
 */
async function makeAndStart(
  context: DockerContext,
  creation: Creation<Prepared>,
  plan: Plan,
): Promise<
  | { made: Reply<{ Id: string }> }
  | { named: { ok: false; error: ResultError } }
  | { id: string; begun: Awaited<ReturnType<typeof start>>; words: StartWords | undefined }
> {
  const { name, signal, undo } = creation;
  const made = await createContainer(context.engine, createRequest(plan), { signal });
  const id = made.ok ? made.value?.Id : undefined;
  if (!id) {
    // A request cut off may leave the engine making the container still; one answered has said all.
    if (made.aborted || made.timedOut || made.unreachable) undo.push({ what: `the container ${name}`, run: () => removeLate(context.engine, name) });
    return { made };
  }
  undo.push({ what: `the container ${name}`, run: (s) => remove(context.engine, id, { signal: s }) });
  // A remote engine's computer gets the daemon in the archive that names its user: one put, one extraction.
  const daemon = plan.daemon === undefined ? [await context.daemonFile()] : [];
  const named = await nameUser(context.engine, context.etc, id, plan, { signal, with: daemon, allowlisted: plan.allow !== undefined });
  if (!named.ok) return { named };
  // Attached before the start, so nothing init says is missed.
  const words = plan.stdio ? await attachWords(context.engine, id, name, signal) : undefined;
  if (words && !words.ok) return { named: words };
  if (words) undo.push({ what: `the attach to ${name}'s output`, run: async () => words.value.close() });
  return { id, begun: await start(context.engine, id, { signal }), words: words?.value };
}

/** A container the engine did not make, in words: an image not there, an abort, the engine's own. */
function notMade(context: DockerContext, creation: Creation<Prepared>, made: Reply<{ Id: string }>): Result<Made> {
  const { name } = creation;
  if (made.aborted) return fail("aborted", `create was aborted while the container was made; ${name} was removed`);
  if (made.status === 404 && /No such image/i.test(made.message) && snapshotIdOf(creation.spec.image))
    return fail("not_found", snapshotMissing(creation.spec.image), { field: "image" });
  if (made.status === 404 && /No such image/i.test(made.message)) {
    return fail(
      "not_found",
      `the image ${creation.spec.image} is not on this Docker host, and create pulls nothing: make it ready first (docker.image(), or ensureImage({ image }) on a host with a registry); nothing was made`,
      { field: "image", detail: { kind: "image-missing", tag: creation.spec.image, provider: context.id, setting: IMAGE_SETTING } },
    );
  }
  const failed = failure(context.engine, `making the container ${name}`, made);
  return fail(failed.error.code, `${failed.error.message}; nothing was left`);
}
