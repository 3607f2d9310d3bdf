// The names, paths and numbers a Modal computer is made with, in one place.

/** Every sandbox of this provider carries agentrun.computer=1; only such sandboxes count as computers. */
export const COMPUTER_TAG = "agentrun.computer";
/** The computer's name (computer-<12 hex digits>), which a ref carries beside the sandbox id. */
export const NAME_TAG = "agentrun.computer.name";
/** The ISO time the computer's lifetime ends; init gets the same time. */
export const DEADLINE_TAG = "agentrun.computer.deadline";
/** What create recorded of the spec (JSON): the SDK reads back no image, size or network. */
export const SPEC_TAG = "agentrun.computer.spec";
export const OWN_TAGS = [COMPUTER_TAG, NAME_TAG, DEADLINE_TAG, SPEC_TAG] as const;
/** Modal keeps at most 10 tags a sandbox (its guide, sandboxes#tagging); four are the provider's. */
export const MAX_TAGS = 10;
/** The spec's 6: what a computer takes of its own. */
export const MAX_LABELS = MAX_TAGS - OWN_TAGS.length;
/** A computer made for an owner also carries the owner and declaration labels (labels.ts ownerLabels). */
export const OWNER_TAGS = 2;
export const MAX_OWNED_LABELS = MAX_LABELS - OWNER_TAGS;

export const NAME_PATTERN = /^computer-[0-9a-f]{12}$/;

/** The image a sandbox starts from when its spec names none (the registry row's default too). */
export const DEFAULT_IMAGE = "debian:bookworm-slim";
/** The computer's home and default workdir. */
export const HOME = "/work";
/** The computer's user when neither the spec nor the user option names one. */
export const DEFAULT_USER = "2510:2510";

/** Modal's longest sandbox: 24 hours. */
export const MAX_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Modal's default request, which a limit may not go under: 0.125 physical cores (2 CPUs each) and 128 MiB. */
export const MIN_CPUS = 0.25;
export const CPU_REQUEST_CORES = 0.125;
export const MEMORY_REQUEST_MIB = 128;

/** The SDK's own stdin chunk when it streams (task_command_router_client.ts:187-193). */
export const UPLOAD_CHUNK = 256 * 1024;

/** The spec's bounds, each overridable by the timeouts option (tests). */
export interface ModalTimeouts {
  /** sandboxes.create, which covers the layer's build and scheduling. */
  createMs: number;
  /** The daemon's upload through exec's stdin. */
  uploadMs: number;
  /** Any other one call. */
  callMs: number;
  /** A connection, from the bridge's exec to hello. */
  helloMs: number;
  /** A whole list. */
  listMs: number;
  /** release's wait after terminate. */
  releaseMs: number;
  /** The first pause of that wait; each doubles, up to 5 s. */
  releasePollMs: number;
}

export const TIMEOUTS: ModalTimeouts = {
  createMs: 600_000,
  uploadMs: 300_000,
  callMs: 60_000,
  helloMs: 30_000,
  listMs: 120_000,
  releaseMs: 120_000,
  releasePollMs: 500,
};
