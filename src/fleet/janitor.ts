// The janitor (sweep: computers past their deadline) and the run fence (releaseOlder: a new
// claim's first step). Both work for any provider, through its list and release alone.
import type { CallOptions } from "../daemon/client.js";
import { RUN_LABEL, epochOf, epochProblem, runProblem } from "../contract/labels.js";
import type { Capabilities, ComputerInfo, ComputerProvider, SweepOptions } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";

/** Clock skew allowed between this host and the vendor's, on top of the provider's cap. */
const CLOCK_SKEW_MS = 60_000;

export interface Swept {
  /** The names of the computers deleted. */
  deleted: string[];
  /** How many were kept: their deadline is still ahead. */
  kept: number;
}

const named = (names: string[]) => (names.length > 0 ? names.join(", ") : "none");

/**
 * The sweep's rule for one computer: its deadline is at or before now, or missing, or unreadable
 * (more than the provider's maxLifetimeMs and a minute of clock skew ahead: no computer the
 * provider made carries one).
 */
export function pastDeadline(info: Pick<ComputerInfo, "deadline">, now: Date, capabilities: Pick<Capabilities, "maxLifetimeMs">): boolean {
  const at = info.deadline?.getTime();
  return at === undefined || Number.isNaN(at) || at <= now.getTime() || at > now.getTime() + capabilities.maxLifetimeMs + CLOCK_SKEW_MS;
}

/** What a sweep would delete and how many it would keep, by the same rule, deleting nothing (a dry run). */
export interface SweepPlan {
  /** The computers due: past their deadline, or with none that could be read. */
  due: ComputerInfo[];
  kept: number;
}

/** The sweep's list and rule alone: what sweep(provider, options) would delete now, and nothing deleted. */
export async function sweepPlan(provider: ComputerProvider, options: SweepOptions = {}): Promise<Result<SweepPlan>> {
  const { labels, signal } = options;
  const now = options.now ?? new Date();
  const capabilities = provider.capabilities();
  if (capabilities.lifetime !== "janitor") {
    return fail(
      "unsupported",
      `sweep is for a provider whose computers the janitor deletes (lifetime "janitor"); ${provider.id} declares lifetime "${capabilities.lifetime}": its vendor ends its computers`,
    );
  }
  const listed = await provider.list(labels, { signal });
  if (!listed.ok) return listed;
  const due = listed.value.filter((info) => pastDeadline(info, now, capabilities));
  return ok({ due, kept: listed.value.length - due.length });
}

/**
 * Deletes every computer the provider lists (with labels, all by default) whose deadline is at or
 * before now, or missing, or unreadable (more than maxLifetimeMs and a minute ahead: no computer
 * the provider made carries one), running or stopped. Refuses a provider whose vendor ends its
 * computers itself.
 */
export async function sweep(provider: ComputerProvider, options: SweepOptions = {}): Promise<Result<Swept>> {
  const { signal } = options;
  const now = options.now ?? new Date();
  const planned = await sweepPlan(provider, { ...options, now });
  if (!planned.ok) return planned;
  const { due: doomed, kept } = planned.value;
  const deleted: string[] = [];
  const left: string[] = [];
  for (const info of doomed) {
    if (signal?.aborted) {
      const rest = doomed.slice(deleted.length + left.length).map((i) => i.ref.name);
      return fail(
        "aborted",
        `the sweep was aborted; deleted ${named(deleted)}${left.length > 0 ? `; left ${left.join("; ")}` : ""}; not started: ${named(rest)}`,
      );
    }
    const released = await provider.release(info.ref, "delete", { signal });
    if (released.ok) deleted.push(info.ref.name);
    else left.push(`${info.ref.name} (${released.error.message})`);
  }
  if (provider.sweep && !signal?.aborted) {
    const leftovers = await provider.sweep({ ...options, now });
    if (!leftovers.ok) left.push(`what computers left behind (${leftovers.error.message})`);
  }
  if (left.length > 0) return fail("failed", `the sweep could not delete ${left.join("; ")}; deleted ${named(deleted)}`);
  if (signal?.aborted) return fail("aborted", `the sweep was aborted; deleted ${named(deleted)}`);
  return ok({ deleted, kept });
}

export interface ReleasedOlder {
  /** The names of the run's computers released: a lower epoch, or none that could be read. */
  released: string[];
  /** The names of the run's computers of this claim's epoch. */
  kept: string[];
  /** Released because their epoch label is missing or unreadable, with why. */
  unproven: Array<{ name: string; why: string }>;
}

/**
 * A claim at epoch takes run over: lists the run's computers and deletes each of a lower epoch,
 * or whose epoch cannot be read; keeps those of this epoch. Refused as fenced, releasing nothing,
 * when a computer of the run has a higher epoch. A partial cleanup is a failure.
 */
export async function releaseOlder(provider: ComputerProvider, run: string, epoch: number, options: CallOptions = {}): Promise<Result<ReleasedOlder>> {
  const { signal } = options;
  const problem = runProblem(run) ?? epochProblem(epoch);
  if (problem) return fail("invalid", `releaseOlder: ${problem}`, { field: runProblem(run) ? "run" : "epoch" });
  if (signal?.aborted) return fail("aborted", `releaseOlder for run ${JSON.stringify(run)} was aborted before it listed anything`);
  const listed = await provider.list({ [RUN_LABEL]: run }, { signal });
  if (!listed.ok) return listed;
  // Held to the run's label again: a computer of another run is never touched, whatever list gave.
  const ours = listed.value.filter((info) => info.labels[RUN_LABEL] === run);
  const older: ComputerInfo[] = [];
  const kept: string[] = [];
  const unproven: ReleasedOlder["unproven"] = [];
  const later: string[] = [];
  for (const info of ours) {
    const read = epochOf(info.labels);
    if (!read.ok) {
      unproven.push({ name: info.ref.name, why: read.error.message });
      older.push(info);
    } else if (read.value > epoch) later.push(`${info.ref.name} at epoch ${read.value}`);
    else if (read.value < epoch) older.push(info);
    else kept.push(info.ref.name);
  }
  if (later.length > 0) {
    return fail(
      "refused",
      `fenced: run ${JSON.stringify(run)} has ${later.join(" and ")}, above this claim's epoch ${epoch}; a later claim holds the run, so nothing was released`,
    );
  }
  const released: string[] = [];
  const left: string[] = [];
  for (const [index, info] of older.entries()) {
    if (signal?.aborted) {
      const rest = older.slice(index).map((i) => i.ref.name);
      return fail(
        "aborted",
        `releaseOlder for run ${JSON.stringify(run)} was aborted; released ${named(released)}${left.length > 0 ? `; left ${left.join("; ")}` : ""}; not started: ${named(rest)}`,
      );
    }
    const result = await provider.release(info.ref, "delete", { signal });
    if (result.ok) released.push(info.ref.name);
    else left.push(`${info.ref.name} (${result.error.message})`);
  }
  if (left.length > 0) {
    return fail("failed", `releaseOlder for run ${JSON.stringify(run)} at epoch ${epoch} left ${left.join("; ")}; released ${named(released)}`);
  }
  return ok({ released, kept, unproven });
}
