// The Daytona provider's fixed values: its labels, names, bounds and the daemon's place.
export const COMPUTER_LABEL = "agentrun.computer";
export const DEADLINE_LABEL = "agentrun.computer.deadline";
export const IMAGE_LABEL = "agentrun.computer.image";
/** Written by a pause before its stop (the ISO time of the pause): a stopped sandbox with it reads paused, one without it stopped. */
export const PAUSED_LABEL = "agentrun.computer.paused";
/** A computer's name: computer-<12 hex digits>. */
export const NAME_PATTERN = /^computer-[0-9a-f]{12}$/;
/** The image a spec names for Daytona's default snapshot (the registry row's default too). */
export const DEFAULT_SNAPSHOT = "default";
export const DEFAULT_API_URL = "https://app.daytona.io/api";
/** Daytona's TTL is whole minutes and documents no cap; the shared check caps it at 30 days. */
export const MAX_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** The toolbox's port, on every interface of the sandbox. */
export const TOOLBOX_PORT = 2280;
/** The session that holds init; never deleted, since deleting it ends init. */
export const INIT_SESSION = "agentrun-computerd";
/** Daytona's stdout and stderr prefixes on a session command's split log. */
export const STDOUT_PREFIX = Buffer.from([1, 1, 1]);
export const STDERR_PREFIX = Buffer.from([2, 2, 2]);

/** Each call's own bound, and the waits' (120 s each unless given). */
export const TIMEOUTS = {
  requestMs: 30_000,
  uploadMs: 120_000,
  executeMs: 60_000,
  startMs: 120_000,
  goneMs: 120_000,
  stopMs: 120_000,
  listedMs: 60_000,
  helloMs: 30_000,
  /** A snapshot's take, until Daytona reads it active; and its delete, until Daytona reads it gone. */
  snapshotMs: 600_000,
} as const;
/** Reads, the upload and deletes are tried three times, with backoff. */
export const TRIES = 3;
export const BACKOFF_MS = 500;
/** One page of the label listing. */
export const PAGE_LIMIT = 100;
/** autoDestroyAt may sit this far past the deadline: the TTL's minute and 2 minutes of clock skew. */
export const DESTROY_SLACK_MS = 3 * 60_000;
