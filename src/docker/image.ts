// The image a computer starts from, made ready in this process: a recipe built once under a tag
// of its hash, or an image by name pulled once when Docker lacks it. Docker's own tag is the
// shared state: no state file, no other process to wait on.
import { createHash } from "node:crypto";
import { fail, ok, type Result } from "../daemon/result.js";
import { type CallBound, DockerCli, failureOf, type Outcome } from "./cli.js";
import { RECIPE_LABEL, recipeHashTag } from "./constants.js";

export { RECIPE_LABEL };

export type ImageSource = { recipe: string } | { image: string };
export type Making = "build" | "pull";

export interface EnsureOptions {
  /** The docker CLI, or its path (default docker). */
  docker?: DockerCli | string;
  signal?: AbortSignal;
  /** Covers the flight's inspect and its build or pull; the first caller's bound is the flight's. */
  timeoutMs?: number;
  /** Told once, before this caller waits on a build or pull; never when Docker has the image. */
  onWait?: (making: Making, tag: string) => void;
  /** Told each step of a build as it starts (Docker's "Step 3/7 : RUN ..."), after onWait. */
  onStep?: (step: BuildStep) => void;
}

/** A build's step as Docker numbers it, and the recipe's line it runs. */
export interface BuildStep {
  step: number;
  of: number;
  line: string;
}

/** Docker's classic builder's line for a step it starts. */
const STEP_LINE = /^Step (\d+)\/(\d+) : (.*)$/;

export const IMAGE_TIMEOUT_MS = 10 * 60_000;
/** The default image's contents, in words, for a caller's "preparing" row. */
export const DOCKER_RECIPE_HAS = "python3, git, curl, nodejs, npm, ripgrep and socat on Debian";

export function recipeHash(recipe: string): string {
  return createHash("sha256").update(recipe).digest("hex");
}

export function recipeTag(recipe: string): string {
  return recipeHashTag(recipeHash(recipe));
}

/**
 * The provider's own recipe on a Debian base: the spec's pinned python image (which has its
 * python), or the set-up's local Debian (dist/toolchain.json's baseImage), which gets Debian's
 * python3. It makes no /work (Docker would copy that directory's mode onto the tmpfs there) and
 * declares no VOLUME (drift).
 */
export function dockerRecipe(base: string, hasPython = false): string {
  return [
    `FROM ${base}`,
    "RUN apt-get update \\",
    " && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \\",
    `    ca-certificates ${hasPython ? "" : "python3 "}git curl nodejs npm ripgrep socat \\`,
    " && rm -rf /var/lib/apt/lists/*",
    "",
  ].join("\n");
}

/** What the desktop image adds to the base, in words. */
export const DESKTOP_RECIPE_HAS = "Xvfb on Debian bookworm";

/**
 * A desktop's recipe on the same base: the X server alone (Xvfb and the keyboard data it reads),
 * which the provider starts through the daemon. No window manager: the programs a caller starts
 * are the screen.
 */
export function desktopRecipe(base: string): string {
  return [
    `FROM ${base}`,
    "RUN apt-get update \\",
    " && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends xvfb \\",
    " && rm -rf /var/lib/apt/lists/*",
    "",
  ].join("\n");
}

const IMAGE_NAME =
  /^(?:[a-zA-Z0-9.-]+(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/** Why a source cannot be made ready, or undefined; no Docker call. */
export function sourceProblem(source: unknown): string | undefined {
  const s = source as { recipe?: unknown; image?: unknown } | null;
  if (typeof s === "object" && s !== null && typeof s.recipe === "string" && !("image" in s)) {
    return /^\s*FROM\s+\S/im.test(s.recipe) && !s.recipe.includes("\0") ? undefined : "a recipe is a Dockerfile with a FROM line";
  }
  if (typeof s === "object" && s !== null && typeof s.image === "string" && !("recipe" in s)) {
    return IMAGE_NAME.test(s.image) ? undefined : `${JSON.stringify(s.image.slice(0, 80))} is not an image name`;
  }
  return "an image source is { recipe } (a Dockerfile) or { image } (an image by name)";
}

interface Flight {
  making?: Making;
  /** Callers waiting; when the last one aborts, the build or pull is killed. */
  waiting: number;
  told: Array<(making: Making) => void>;
  /** Every waiting caller's onStep: a build's steps go to each. */
  steps: Array<(step: BuildStep) => void>;
  controller: AbortController;
  done: Promise<Result<string>>;
}

/** One flight per docker CLI, engine and source, forgotten once it settles. */
const flights = new Map<string, Flight>();

export async function ensureImage(source: ImageSource, options: EnsureOptions = {}): Promise<Result<string>> {
  const problem = sourceProblem(source);
  if (problem) return fail("invalid", `${problem}; nothing was asked of Docker`, { field: "image" });
  const bound = options.timeoutMs ?? IMAGE_TIMEOUT_MS;
  if (!Number.isInteger(bound) || bound <= 0) return fail("invalid", "timeoutMs is a whole number of milliseconds above 0", { field: "timeoutMs" });
  if (options.signal?.aborted) return fail("aborted", "making the image ready was aborted before Docker was asked");
  const cli = typeof options.docker === "string" ? new DockerCli(options.docker) : (options.docker ?? new DockerCli());
  const tag = "recipe" in source ? recipeTag(source.recipe) : source.image;
  const key = `${cli.path}\0${cli.host ?? ""}\0${"recipe" in source ? `recipe:${recipeHash(source.recipe)}` : `image:${source.image}`}`;

  let flight = flights.get(key);
  if (!flight) {
    const controller = new AbortController();
    const started: Flight = { waiting: 0, told: [], steps: [], controller, done: Promise.resolve(fail("failed", "")) };
    started.done = fly(cli, source, tag, bound, started).finally(() => flights.delete(key));
    flights.set(key, started);
    flight = started;
  }
  const f = flight;
  f.waiting += 1;
  let told = false;
  const tell = (making: Making) => {
    if (told) return;
    told = true;
    options.onWait?.(making, tag);
  };
  if (f.making) tell(f.making);
  else f.told.push(tell);
  if (options.onStep) f.steps.push(options.onStep);

  const signal = options.signal;
  if (!signal) return f.done;
  return new Promise<Result<string>>((resolve) => {
    const onAbort = () => {
      f.waiting -= 1;
      if (f.waiting === 0) f.controller.abort();
      resolve(fail("aborted", `waiting for the image ${tag} was aborted`));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    void f.done.then((result) => {
      signal.removeEventListener("abort", onAbort);
      resolve(result);
    });
  });
}

async function fly(cli: DockerCli, source: ImageSource, tag: string, bound: number, flight: Flight): Promise<Result<string>> {
  const deadline = Date.now() + bound;
  const timer = setTimeout(() => flight.controller.abort(new Error("timeout")), bound);
  const call = (extra: Partial<CallBound> = {}): CallBound => ({ signal: flight.controller.signal, timeoutMs: Math.max(1, deadline - Date.now()), ...extra });
  const timedOut = () => flight.controller.signal.aborted && (flight.controller.signal.reason as Error | undefined)?.message === "timeout";
  try {
    const first = await present(cli, source, tag, call());
    if (!first.ok || first.value) return first.ok ? ok(tag) : first;

    flight.making = "recipe" in source ? "build" : "pull";
    for (const tell of flight.told.splice(0)) tell(flight.making);
    // --force-rm: a failed step's container is removed too, so a build leaves nothing behind.
    const made =
      "recipe" in source
        ? await cli.run(
            ["build", "--force-rm", "--label", `${RECIPE_LABEL}=${recipeHash(source.recipe)}`, "--tag", tag, "-"],
            call({ input: source.recipe, onLine: (line) => stepOf(line, flight) }),
          )
        : await cli.run(["pull", "--quiet", tag], call());
    if (made.ok) return ok(tag);
    if (timedOut() || made.timedOut) return fail("timeout", `making the image ${tag} did not finish within ${bound} ms; the ${flight.making} was stopped`);
    if (made.aborted) return fail("aborted", `every caller waiting for the image ${tag} aborted, so the ${flight.making} was stopped`);
    // Another process may have made the same tag meanwhile: Docker's tag is the answer.
    const again = await present(cli, source, tag, call());
    if (again.ok && again.value) return ok(tag);
    if ("recipe" in source) return fail("failed", buildWords(tag, made, cli.path));
    // The remedy is a library caller's; the detail has the reason alone, for a host to give its own.
    const { reason, remedy } = pullFailure(made, cli.path);
    return fail("failed", `the image ${tag} is not on this Docker host and could not be pulled: ${reason}${remedy ? `; ${remedy}` : ""}`, {
      detail: { kind: "image-unpulled", tag, reason },
    });
  } finally {
    clearTimeout(timer);
  }
}

/** A build's output line: when it starts a step, every waiting caller is told. */
function stepOf(line: string, flight: Flight): void {
  const m = STEP_LINE.exec(line.replace(/\x1b\[[0-9;]*m/g, ""));
  if (!m) return;
  const step = { step: Number(m[1]), of: Number(m[2]), line: m[3]!.slice(0, 120) };
  for (const told of flight.steps) told(step);
}

/** A failed pull of the image a provider's setting names, its detail naming that provider and setting. */
export function ofSetting<T>(made: Result<T>, provider: string, setting: string): Result<T> {
  if (made.ok || made.error.detail?.kind !== "image-unpulled") return made;
  return { ok: false, error: { ...made.error, detail: { ...made.error.detail, provider, setting } } };
}

/** Whether Docker has the image: for a recipe, under its tag with this recipe's label. */
async function present(cli: DockerCli, source: ImageSource, tag: string, bound: CallBound): Promise<Result<boolean>> {
  const inspected = await cli.run(["image", "inspect", "--format", "{{json .Config.Labels}}", tag], bound);
  if (inspected.ok) {
    if (!("recipe" in source)) return ok(true);
    let labels: Record<string, string> | null = null;
    try {
      labels = JSON.parse(inspected.stdout || "null") as Record<string, string> | null;
    } catch {
      // not Docker's JSON: treated as no image of this recipe, so it is built
    }
    return ok(labels?.[RECIPE_LABEL] === recipeHash(source.recipe));
  }
  if (/No such image/i.test(inspected.stderr)) return ok(false);
  const failure = failureOf(`docker image inspect ${tag}`, inspected, cli.path);
  return fail(failure.code, failure.message);
}

/** Docker's output with its terminal colours taken out. */
function output(outcome: Outcome): string {
  return `${outcome.stdout}\n${outcome.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
}

/** What went wrong in a build, in words that hold none of Docker's output but the recipe's own. */
function buildWords(tag: string, outcome: Outcome, docker: string): string {
  const text = output(outcome);
  const lead = `the recipe for ${tag} did not build`;
  const reached = failureOf("docker build", outcome, docker);
  if (reached.code === "unreachable") return `${lead}: ${reached.message}`;
  const parse = /dockerfile parse error (?:on )?line (\d+)/i.exec(text);
  if (parse) return `${lead}: Docker could not parse the recipe (at line ${parse[1]}); fix that line`;
  if (/no space left on device/i.test(text)) return `${lead}: the Docker host ran out of disk space; free some (docker system prune) and try again`;
  const steps = [...text.matchAll(/^Step \d+\/\d+ : (.*)$/gm)].map((m) => m[1] ?? "");
  const lastStep = steps.at(-1) ?? "";
  if (/^FROM\s/i.test(lastStep) || (/failed to (solve|resolve).*(FROM|source metadata)|pull access denied/i.test(text) && steps.length <= 1)) {
    return `${lead}: it could not pull its base image (${lastStep.replace(/^FROM\s+/i, "") || "its FROM line"}); make that image on this host first, or check the registry`;
  }
  if (/Temporary failure resolving|Could not resolve|Network is unreachable|Failed to fetch|Connection timed out/i.test(text)) {
    return `${lead}: a step could not reach the network (${lastStep || "a RUN step"}); check that the Docker host's containers reach the package mirror`;
  }
  const pkg = /Unable to locate package (\S+)|Package '?([^' ]+)'? has no installation candidate/i.exec(text);
  if (pkg) return `${lead}: it could not install a package (${pkg[1] ?? pkg[2]}) at the step \`${lastStep}\`; check the package's name`;
  const code = /returned a non-zero code: (\d+)|did not complete successfully: exit code: (\d+)/.exec(text);
  if (code) return `${lead}: it failed at the step \`${lastStep}\` with exit code ${code[1] ?? code[2]}; fix that step`;
  return `${lead}: ${reached.message}`;
}

/** A pull's reason (image-unpulled's detail) when no registry answered: where a fallback may stand in. */
export const REGISTRY_UNREACHED = "the registry could not be reached";

/** Why a pull failed, in words that hold none of Docker's output, and what a library caller can do about it when the reason does not say. */
function pullFailure(outcome: Outcome, docker: string): { reason: string; remedy?: string } {
  const text = output(outcome);
  const reached = failureOf("docker pull", outcome, docker);
  if (reached.code === "unreachable") return { reason: reached.message };
  if (/manifest unknown|not found|does not exist/i.test(text) && !/no such host/i.test(text))
    return { reason: "the registry has no such image; check its name" };
  if (/unauthorized|denied|authentication required/i.test(text))
    return { reason: "the registry refused the pull; log in to it (docker login) or check the name" };
  if (/no such host|dial tcp|i\/o timeout|TLS handshake|connection refused|network is unreachable/i.test(text)) {
    return { reason: REGISTRY_UNREACHED, remedy: "pull or load it on this host ahead (docker load), or give a recipe" };
  }
  return { reason: reached.message };
}
