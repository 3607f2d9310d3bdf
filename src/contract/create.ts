// The create every vendor follows, in one order: check → adopt or clear the owner's leftovers →
// name, deadline, labels → make (the vendor's hook) → wait until ready → connect and hello → the
// drift check → hand out. A vendor gives hooks, never its own copy of the outline; each part a
// hook makes goes on one undo stack, run in reverse on any failure or abort, so a failed create
// leaves nothing behind.
import { randomBytes } from "node:crypto";
import { adoptOrClear, type Adoption } from "./adopt.js";
import { withOwnerLabel } from "./labels.js";
import type { ComputerRef, ComputerSpec, CreateOptions, CreateSpec } from "./provider.js";
import { fail, ok, type Result, type ResultError } from "../daemon/result.js";
import { Undo } from "./undo.js";

/** One create as the hooks see it once it has a name: what was asked, what check parsed, and where its parts go. */
export interface Creation<Checked> {
  /** The spec as the caller gave it. */
  spec: ComputerSpec;
  /** What check (and prepare) made of it. */
  checked: Checked;
  owner: string | undefined;
  /** The computer's name (computer-<12 hex digits> unless the vendor names its own). */
  name: string;
  /** When the lifetime began (ms since the epoch): just before the computer is made. */
  started: number;
  /** The deadline, an ISO time: started plus the spec's lifetime. */
  deadline: string;
  /** The caller's labels, with the owner's when there is one: they are in the make request itself. */
  labels: Record<string, string>;
  /** Every part made is pushed here as it is made. */
  undo: Undo;
  signal: AbortSignal | undefined;
}

/** Where a create stood when it failed, for the vendor's words. */
export type CreateStep = "check" | "prepare" | "adopt" | "make" | "ready" | "connect" | "verify" | "listed";

/**
 * What a vendor gives the flow: its own steps, each a Result, none of them the outline. Prepared
 * is what prepare makes of the checked spec (by default the checked spec itself): a vendor whose
 * reads before anything is made learn more (Docker: the host, the daemon's copy) carries it in
 * its own type to every later step.
 */
export interface CreateHooks<Checked, Made, Open, Prepared extends Checked = Checked> {
  /** Every refusal of the spec, with no vendor call; the checked spec every later step takes. */
  check(spec: ComputerSpec): Result<Checked>;
  /** The vendor's reads before anything is made (a host's enforcement, a daemon's bytes), which may refuse the spec or add to what check learned. */
  prepare?(checked: Checked, options: CreateOptions): Promise<Result<Prepared>>;
  /** The owner's lookups, for adopting what an interrupted create left (absent: a vendor with no owner labels). */
  adoption?: Adoption;
  /** A name of the vendor's own (default computer-<12 hex digits>). */
  name?(): string;
  /** Makes the computer, pushing an undo for each part as it is made. */
  make(creation: Creation<Prepared>): Promise<Result<Made>>;
  /** Waits until what was made reads back ready (running, listed). */
  ready?(creation: Creation<Prepared>, made: Made): Promise<Result<Made>>;
  /** Connects to the computer and says hello; the flow closes what it opens, success or not. */
  connect(creation: Creation<Prepared>, made: Made): Promise<Result<Open>>;
  /** The drift check over what was made and read back; the ref handed out when it is as declared. */
  verify(creation: Creation<Prepared>, made: Made, open: Open): Promise<Result<ComputerRef>>;
  /** Closes what connect opened. */
  close?(open: Open): Promise<void>;
  /**
   * Once the connection is closed: waits until the vendor's listing shows what was made (a
   * listing that trails a create, E2B's and Daytona's); the ref it hands out.
   */
  listed?(creation: Creation<Prepared>, made: Made, ref: ComputerRef): Promise<Result<ComputerRef>>;
  /**
   * The failure as the vendor words it once its parts are undone: step is where it failed,
   * undone whether anything had been made, failedUndos the words of each undo that failed, and
   * aborted whether the caller had aborted. Default: the failure's words, then each failed undo's.
   */
  failed?(failure: ResultError, at: { step: CreateStep; name: string | undefined; undone: boolean; failedUndos: string[]; aborted: boolean }): ResultError;
  /** Words for a create the caller aborted at a step (default "create was aborted before <step>"). */
  aborted?(step: CreateStep, name: string | undefined): string;
}

/** The flow's words for a create aborted at a step, when the vendor gives none. */
export const abortedWords = (step: CreateStep) =>
  step === "prepare" || step === "adopt" || step === "make" ? "create was aborted before anything was made" : `create was aborted before its ${step} step`;

/** The spec with an image given as { image: "<name>" } read as that name; any other image is check's to refuse. */
export function namedImage(spec: CreateSpec): ComputerSpec {
  const image: unknown = spec?.image;
  if (typeof image !== "object" || image === null) return spec as ComputerSpec;
  const { image: name, ...rest } = image as Record<string, unknown>;
  return typeof name === "string" && Object.keys(rest).length === 0 ? { ...spec, image: name } : (spec as ComputerSpec);
}

/** The vendor-neutral create: the hooks in the one order, every failure undone. Without a prepare hook, Prepared is Checked. */
export async function createWith<Checked, Made, Open, Prepared extends Checked = Checked>(
  hooks: CreateHooks<Checked, Made, Open, Prepared>,
  given: CreateSpec,
  options: CreateOptions = {},
): Promise<Result<ComputerRef>> {
  const spec = namedImage(given);
  const before = await beforeMake(hooks, spec, options);
  if (!before.ok) return before;
  if ("adopted" in before.value) return ok(before.value.adopted);
  const name = hooks.name ? hooks.name() : `computer-${randomBytes(6).toString("hex")}`;
  // The lifetime counts from here, just before the computer is made.
  const started = Date.now();
  const creation: Creation<Prepared> = {
    spec,
    checked: before.value.checked,
    owner: options.owner,
    name,
    started,
    deadline: new Date(started + spec.lifetimeMs).toISOString(),
    labels: withOwnerLabel(spec.labels, options.owner, spec),
    undo: new Undo(),
    signal: options.signal,
  };
  const at: { step: CreateStep } = { step: "make" };
  const early = stoppedAt(hooks, creation, at.step);
  if (early) return early;
  const made = await madeAndVerified(hooks, creation, at);
  if (!made.ok) return failedAfter(hooks, creation, at.step, made.error);
  creation.undo.keep();
  return made;
}

/** check, prepare and adoption: the checked spec to make from, or the owner's whole leftover; nothing is made here. */
async function beforeMake<Checked, Made, Open, Prepared extends Checked>(
  hooks: CreateHooks<Checked, Made, Open, Prepared>,
  spec: ComputerSpec,
  options: CreateOptions,
): Promise<Result<{ checked: Prepared } | { adopted: ComputerRef }>> {
  const checkedSpec = hooks.check(spec);
  if (!checkedSpec.ok) return checkedSpec;
  let checked = checkedSpec.value as Prepared;
  const early = options.signal?.aborted ? fail("aborted", hooks.aborted ? hooks.aborted("prepare", undefined) : abortedWords("prepare")) : undefined;
  if (early) return early;
  if (hooks.prepare) {
    const prepared = await hooks.prepare(checked, options);
    if (!prepared.ok) return prepared;
    checked = prepared.value;
  }
  if (options.owner !== undefined && hooks.adoption) {
    const adopted = await adoptOrClear(hooks.adoption, spec, options.owner, options);
    if (!adopted.ok) return adopted;
    if (adopted.value) return ok({ adopted: adopted.value });
  }
  return ok({ checked });
}

/** make → ready → connect → verify (closing what connect opened) → listed, at.step kept current; the first failure or abort. */
async function madeAndVerified<Checked, Made, Open, Prepared extends Checked>(
  hooks: CreateHooks<Checked, Made, Open, Prepared>,
  creation: Creation<Prepared>,
  at: { step: CreateStep },
): Promise<Result<ComputerRef>> {
  const made = await hooks.make(creation);
  if (!made.ok) return made;
  let value = made.value;
  if (hooks.ready) {
    at.step = "ready";
    const ready = await hooks.ready(creation, value);
    if (!ready.ok) return ready;
    value = ready.value;
  }
  at.step = "connect";
  const beforeConnect = stoppedAt(hooks, creation, at.step);
  if (beforeConnect) return beforeConnect;
  const open = await hooks.connect(creation, value);
  if (!open.ok) return open;
  at.step = "verify";
  let ref: Result<ComputerRef>;
  try {
    ref = await hooks.verify(creation, value, open.value);
  } finally {
    await hooks.close?.(open.value);
  }
  if (!ref.ok) return ref;
  const late = stoppedAt(hooks, creation, at.step);
  if (late || !hooks.listed) return late ?? ref;
  at.step = "listed";
  ref = await hooks.listed(creation, value, ref.value);
  return ref.ok ? (stoppedAt(hooks, creation, at.step) ?? ref) : ref;
}

/** The caller's abort at a step, in the vendor's words; undefined while not aborted. */
function stoppedAt<Checked, Made, Open, Prepared extends Checked>(
  hooks: CreateHooks<Checked, Made, Open, Prepared>,
  creation: Creation<Prepared>,
  step: CreateStep,
): { ok: false; error: ResultError } | undefined {
  if (!creation.signal?.aborted) return undefined;
  return fail("aborted", hooks.aborted ? hooks.aborted(step, creation.name) : abortedWords(step));
}

/** Every part made undone, last first, then the failure in the vendor's words (default: its own, then each failed undo's). */
async function failedAfter<Checked, Made, Open, Prepared extends Checked>(
  hooks: CreateHooks<Checked, Made, Open, Prepared>,
  creation: Creation<Prepared>,
  step: CreateStep,
  error: ResultError,
): Promise<Result<ComputerRef>> {
  const undone = creation.undo.size > 0;
  const failedUndos = await creation.undo.run();
  const at = { step, name: creation.name, undone, failedUndos, aborted: creation.signal?.aborted === true };
  return { ok: false, error: hooks.failed ? hooks.failed(error, at) : { ...error, message: [error.message, ...failedUndos].join("; ") } };
}

/**
 * The failed hook of a vendor whose words name what became of what it made: the failure's words,
 * then done(name) when every part was undone or each failed undo's words; the code is aborted
 * when the caller aborted. A failure before anything was made keeps its own words.
 */
export function failedThen(done: (name: string) => string): NonNullable<CreateHooks<unknown, unknown, unknown>["failed"]> {
  return (error, at) => {
    if (!at.undone) return error;
    const after = at.failedUndos.length > 0 ? at.failedUndos.join("; ") : done(at.name ?? "the computer");
    return { code: at.aborted ? "aborted" : error.code, message: `${error.message}; ${after}` };
  };
}
