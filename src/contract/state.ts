// State that survives a computer's run: its pause and resume, and snapshots a fork starts from.
// The shapes a vendor's hooks (ComputerProvider's pause and snapshots) take and give, and the
// checks every provider shares; each vendor's folder holds its own way.
import type { CallOptions } from "../daemon/client.js";
import { fail, ok, type Result } from "../daemon/result.js";

/** What a computer is declared to be doing: running (the default) or paused. */
export const RUN_STATES = ["running", "paused"] as const;
export type RunState = (typeof RUN_STATES)[number];

/**
 * What a pause keeps, as the vendor's own pause does: memory (processes and their open files go
 * on after resume where they stopped) or disk (files kept, processes ended, the daemon started again).
 */
export type PauseKeeps = "memory" | "disk";

/** A snapshot as taken or read back. */
export interface Snapshot {
  /** What a Computer's image takes as it is: snapshot://<provider>/<the vendor's id> (snapshotImage). */
  image: string;
  /** The computer it was taken from, by name. */
  computer: string;
  /** Its size in bytes, as the vendor reports it (Docker: the image's own layer). */
  sizeBytes: number;
  /** When it was taken, an ISO time. */
  takenAt: string;
  /** What it holds, in words a person reads (and what was left out). */
  holds: string;
  /** Its labels: the caller's, the owner's and agentrun.snapshot=1. */
  labels: Record<string, string>;
}

export interface SnapshotOptions extends CallOptions {
  /** Who it is made for (as CreateOptions' owner): it carries the owner's label, and a take adopts or removes what an interrupted take left. */
  owner?: string;
  labels?: Record<string, string>;
  /** A person's note, kept with it. */
  note?: string;
}

/** The label every snapshot carries. */
export const SNAPSHOT_LABEL = "agentrun.snapshot";

const SNAPSHOT_URL = /^snapshot:\/\/([a-z0-9-]+)\/(.+)$/;

/** A snapshot's image from its provider and the vendor's id for it. */
export function snapshotImage(provider: string, id: string): string {
  return `snapshot://${provider}/${id}`;
}

/** The provider and vendor id of a snapshot image; undefined for an image that is no snapshot. */
export function parseSnapshotImage(image: string): { provider: string; id: string } | undefined {
  const match = SNAPSHOT_URL.exec(image);
  return match ? { provider: match[1]!, id: match[2]! } : undefined;
}

/**
 * A fork's image held to its provider: a snapshot of another provider is refused, in words naming
 * the field; an image that is no snapshot passes.
 */
export function forkProblem(image: string, provider: string, field = "image"): Result<undefined> {
  const snapshot = parseSnapshotImage(image);
  if (!snapshot || snapshot.provider === provider) return ok(undefined);
  return fail(
    "invalid",
    `${field} ${image} is a snapshot taken on ${snapshot.provider}, which a computer on ${provider} cannot start from: fork it on ${snapshot.provider}, or take a snapshot on ${provider}`,
    { field },
  );
}

/** A declared state: one of RUN_STATES, else refused in words naming the field. */
export function checkRunState(state: unknown, field = "state"): Result<RunState> {
  if (state === undefined) return ok("running");
  if (typeof state === "string" && (RUN_STATES as readonly string[]).includes(state)) return ok(state as RunState);
  return fail("invalid", `${field} must be running or paused, not ${JSON.stringify(state)}`, { field });
}

/** paused declared on a provider with no pause: refused, naming the provider and the field. */
export function pauseProblem(state: RunState, provider: string, keeps: PauseKeeps | undefined, field = "state"): Result<undefined> {
  if (state !== "paused" || keeps) return ok(undefined);
  return fail(
    "unsupported",
    `${field} paused is refused: ${provider} cannot pause a computer (its capability row has no pause); declare running, or pick a provider that can pause`,
    { field },
  );
}
