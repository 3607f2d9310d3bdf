// The base the provider's own images stand on, chosen where the package runs: the spec's pinned
// base (DOCKER_BASE, or the base option's copy of it) on the engine, pulled once when it lacks
// it; where no registry answers, the set-up's local Debian base (dist/toolchain.json) when that
// engine has it. The choice is said, in words, with why.
import { existsSync } from "node:fs";
import path from "node:path";
import { fail, ok, type Result } from "../daemon/result.js";
import { packageRoot } from "../package.js";
import type { DockerCli } from "./cli.js";
import { ensureImage, type EnsureOptions, REGISTRY_UNREACHED } from "./image.js";

/** python:3.12-slim from Docker Hub, pinned by its index digest (every architecture's). */
export const DOCKER_BASE = "python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea";

/** The base a default recipe stands on, and which it is. */
export interface BaseChoice {
  image: string;
  /** "pinned": the pinned base, on the engine or pulled; "local": the set-up's, as no registry answered. */
  from: "pinned" | "local";
  /** Which base and why, for a caller's line. */
  words: string;
}

export interface BaseOptions extends Pick<EnsureOptions, "signal" | "timeoutMs" | "onWait"> {
  /** The pinned base by name and digest. */
  pinned: string;
  /** The set-up's local base, when this package's set-up made one. */
  local: string | undefined;
}

/**
 * The pinned base made ready on the CLI's engine (an inspect, else one pull); when the pull
 * reaches no registry, the local base if that engine has it. Any other failure (the registry
 * has no such image, or refused the pull) is said as it is: a registry that answers is the
 * user's to fix, not to route around.
 */
export async function chooseBase(cli: DockerCli, options: BaseOptions): Promise<Result<BaseChoice>> {
  const { pinned, local, ...bound } = options;
  const pulled = await ensureImage({ image: pinned }, { ...bound, docker: cli });
  if (pulled.ok) return ok({ image: pinned, from: "pinned", words: `the pinned base ${pinned}` });
  const detail = pulled.error.detail;
  if (detail?.kind !== "image-unpulled" || detail.reason !== REGISTRY_UNREACHED) return pulled;
  const where = cli.host ? `the engine at ${cli.host}` : "this Docker host";
  const unreached = `the pinned base ${pinned} could not be pulled (${REGISTRY_UNREACHED})`;
  if (!local) {
    // The set-up ships in the repository, not in the npm package: named only where it is.
    const setup = existsSync(path.join(packageRoot(), "scripts", "setup.sh")) ? ", run bash scripts/setup.sh in the repository," : "";
    return fail(
      "failed",
      `${unreached}, and this package's set-up made no local base (dist/toolchain.json names none): load ${pinned} onto ${where} (docker save | docker load)${setup || ","} or give an image option`,
      { field: "image" },
    );
  }
  const { onWait: _pullOfPinned, ...quiet } = bound;
  const found = await ensureImage({ image: local }, { ...quiet, docker: cli });
  if (!found.ok && found.error.detail?.kind !== "image-unpulled") return found;
  if (!found.ok) {
    return fail(
      "failed",
      `${unreached}, and the set-up's local base ${local} is not on ${where}: load either there (docker save ${local} | docker --host … load), or give an image option`,
      { field: "image" },
    );
  }
  return ok({ image: local, from: "local", words: `the set-up's local base ${local}, as ${unreached}` });
}
