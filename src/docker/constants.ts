// The names and numbers a Docker computer is made with, in one place: the run flags, the drift
// check and the read-back all take them from here.

/** Every computer carries agentrun.computer=1; only such containers count as computers. */
export const COMPUTER_LABEL = "agentrun.computer";
/** The ISO time the computer's lifetime ends; init gets the same time. */
export const DEADLINE_LABEL = "agentrun.computer.deadline";
/** A desktop's or a browser's kind: only those carry it (a computer without it is linux). */
export const KIND_LABEL = "agentrun.computer.kind";

/** The kind a computer's labels say: desktop or browser by the kind label, else linux. */
export function kindOfLabels(labels: Record<string, string> | undefined): "linux" | "desktop" | "browser" {
  const said = labels?.[KIND_LABEL];
  return said === "desktop" || said === "browser" ? said : "linux";
}

/** A browser's profile: in its user's home (the /work tmpfs), made by Chromium at start. */
export const BROWSER_PROFILE = "/work/.chromium";
/** The label a recipe's image carries (the recipe's whole sha256): the image's, never drift. */
export const RECIPE_LABEL = "agentrun.computer.recipe";
/** A recipe's image's tag, by the recipe's sha256. */
export function recipeHashTag(hash: string): string {
  return `agentrun-computer:${hash.slice(0, 12)}`;
}
/** A computer's name: computer-<12 hex digits>. */
export const NAME_PATTERN = /^computer-[0-9a-f]{12}$/;
/** A warm pool's ready computer is named pool-<hex> until a claim renames it back (claims.ts). */
export const READY_PREFIX = "pool-";
export const isReadyName = (name: string) => /^pool-[0-9a-f]{12}$/.test(name);
/** A container id, short or whole. */
export const ID_PATTERN = /^[0-9a-f]{12,64}$/;

/** Init's socket directory: a tmpfs of 1 MiB owned by the computer's user. */
export const RUN_DIR = "/run/agentrun";
/** The computer's home and default workdir: a tmpfs of half its memory. */
export const HOME = "/work";

export const DEFAULT_CPUS = 2;
export const DEFAULT_MEMORY_MB = 4096;
export const DEFAULT_PIDS = 1024;
export const CPU_PERIOD = 100_000;
/** Docker's hard cap for this provider: 30 days. */
export const MAX_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** hello's own limit, inside create's signal. */
export const HELLO_TIMEOUT_MS = 30_000;

/** Docker's own masked and read-only paths since 20.10; a newer Docker may mask more. */
export const MASKED_PATHS = [
  "/proc/acpi",
  "/proc/asound",
  "/proc/kcore",
  "/proc/keys",
  "/proc/latency_stats",
  "/proc/sched_debug",
  "/proc/scsi",
  "/proc/timer_list",
  "/proc/timer_stats",
  "/sys/firmware",
];
export const READONLY_PATHS = ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"];

/** The setting that names the provider's own image (its image option, settings.ts): an image failure's detail names it, for a host's words. */
export const IMAGE_SETTING = "image";
