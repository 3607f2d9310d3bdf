// The E2B provider's fixed values: its metadata keys, names, bounds and E2B's own numbers.

/** Every sandbox of this provider carries agentrun.computer=1 in its metadata. */
export const COMPUTER_KEY = "agentrun.computer";
/** The computer's name (computer-<12 hex digits>), which a ref carries beside the sandbox id. */
export const NAME_KEY = "agentrun.computer.name";
/** The deadline create gave init, an ISO time (E2B has no call that changes metadata). */
export const DEADLINE_KEY = "agentrun.computer.deadline";
/** The template create was asked for. */
export const IMAGE_KEY = "agentrun.computer.image";
/** The timeout create gave E2B, in whole seconds. */
export const TIMEOUT_KEY = "agentrun.computer.timeout";
/** The most extend may reach (create's time plus the cap), an ISO time: init's --max-deadline. */
export const MAX_KEY = "agentrun.computer.max";
/** The computer's kind, linux or desktop (absent: linux, as create wrote before desktops). */
export const KIND_KEY = "agentrun.computer.kind";
export const OWN_KEYS = [COMPUTER_KEY, NAME_KEY, DEADLINE_KEY, IMAGE_KEY, TIMEOUT_KEY, MAX_KEY, KIND_KEY] as const;

export const NAME_PATTERN = /^computer-[0-9a-f]{12}$/;

/** The registry's id, a snapshot's image's provider (snapshot://e2b/<E2B's snapshot id>). */
export const PROVIDER_ID = "e2b";

/** envd's port inside every sandbox (e2b dist/index.mjs, ConnectionConfig.envdPort). */
export const ENVD_PORT = 49983;
export const DEFAULT_DOMAIN = "e2b.app";
/** A kind linux computer's template when a spec names none. */
export const BASE_TEMPLATE = "base";
/** A desktop's template when a spec names none: E2B Desktop's (Xvfb among its packages). */
export const DESKTOP_TEMPLATE = "desktop";

/** Hobby's cap on a sandbox, the default; Pro's 24 h the most maxLifetimeMs may give. */
export const HOBBY_MAX_MS = 60 * 60 * 1000;
export const PRO_MAX_MS = 24 * 60 * 60 * 1000;

/** list() and attach() read E2B's end as extended once it is this far past create's. */
export const EXTENDED_SLACK_MS = 2_000;
/** extend moves E2B's end at least this far past create's, so an extend however short reads back. */
export const EXTEND_PAST_MS = 3_000;
/** connect asks E2B for a timeout this much under what is left, so connecting never moves the end. */
export const CONNECT_UNDER_MS = 5_000;

/** The spec's bounds, each overridable by the timeouts option (tests). */
export interface E2BTimeouts {
  /** One API request (getInfo, kill, setTimeout, a list page). */
  requestMs: number;
  /** Sandbox.create. */
  createMs: number;
  /** Sandbox.createSnapshot (E2B pauses the sandbox while it copies). */
  snapshotMs: number;
  /** files.write of the daemon. */
  uploadMs: number;
  /** A foreground command (the install). */
  commandMs: number;
  /** A connection: the bridge's start and hello. */
  helloMs: number;
  /** A whole list(), every page and read-back. */
  listMs: number;
  /** How long create lists the new computer's name until it shows. */
  listedMs: number;
  /** release's wait until E2B reads the sandbox gone. */
  goneMs: number;
  /** The first pause of the waits; each doubles, up to 5 s. */
  pollMs: number;
}

export const TIMEOUTS: E2BTimeouts = {
  requestMs: 30_000,
  createMs: 120_000,
  snapshotMs: 120_000,
  uploadMs: 120_000,
  commandMs: 60_000,
  helloMs: 30_000,
  listMs: 60_000,
  listedMs: 15_000,
  goneMs: 120_000,
  pollMs: 250,
};
