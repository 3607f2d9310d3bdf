// A Python app's requirements, installed once into a venv under the app's folder (.venv): from a
// folder of wheels sent with the app (offline: pip's --no-index, with pip run from its own wheel
// there when the image has none), or else through the computer's own network as it was declared
// (an allowlist's proxy), which this never opens. pip runs as the computer's user, marked with the
// app's folder; a failure names the requirement pip could not have.
import { CallError, type CallOptions } from "../daemon/client.js";
import { MAX_OUTPUT_BYTES } from "../daemon/protocol.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { APP_MARK } from "./app.js";
import type { Session } from "./session.js";

/**
 * A requirement as pip reads it, by name and version alone: never an option, a path or a URL
 * (which would reach past the computer's declared network, or read a file of the computer's).
 */
export const REQUIREMENT =
  /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?(\[[A-Za-z0-9._,-]+\])?(\s*(==|!=|>=|<=|~=|<|>)\s*[A-Za-z0-9.*+!_-]+)?(\s*,\s*(==|!=|>=|<=|~=|<|>)\s*[A-Za-z0-9.*+!_-]+)*$/;

/** The venv's folder in the app's, and where sent wheels land. */
export const VENV = ".venv";
export const WHEELS = ".wheels";
const PIP_MS = 15 * 60_000;

export interface PythonRequirements {
  /** pip's requirement specifiers (name, name==1.0, name>=2). */
  packages: string[];
  /** Whether a folder of wheels was sent to the app's .wheels: then pip installs from it alone. */
  wheels: boolean;
}

// $1: the wheels folder or ""; the rest: the requirements. Prints each installed distribution, name==version.
const INSTALL = `set -e
wheels=$1; shift
python3 -m venv --without-pip ${VENV}
pipwhl=
[ -n "$wheels" ] && pipwhl=$(ls "$wheels"/pip-*.whl 2>/dev/null | head -n 1)
if [ -n "$pipwhl" ]; then set -- "${VENV}/bin/python" "$pipwhl/pip" install "$@"
elif python3 -m pip --version >/dev/null 2>&1; then set -- python3 -m pip --python "${VENV}/bin/python" install "$@"
else echo "there is no pip: the computer's python3 has none, and no pip wheel was sent (put pip's wheel among the wheels: Debian's python3-pip-whl has one)" >&2; exit 3
fi
if [ -n "$wheels" ]; then "$@" --no-input --disable-pip-version-check --no-index --find-links "$wheels" >&2
else "$@" --no-input --disable-pip-version-check >&2
fi
for d in ${VENV}/lib/python3*/site-packages/*.dist-info; do [ -d "$d" ] || continue; n=\${d##*/}; echo "\${n%.dist-info}" | sed 's/-/==/'; done`;

/** Makes the venv in dir (absolute) and installs the requirements into it; the distributions installed, name==version. */
export async function installPython(session: Session, dir: string, req: PythonRequirements, options: CallOptions = {}): Promise<Result<string[]>> {
  const argv = ["sh", "-c", INSTALL, "sh", req.wheels ? WHEELS : "", ...req.packages];
  let run;
  try {
    run = await session.client.call("exec.run", { argv, cwd: dir, env: { [APP_MARK]: dir }, timeoutMs: PIP_MS, maxOutput: MAX_OUTPUT_BYTES }, options);
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    return fail(error instanceof CallError ? error.kind : "failed", `${session.name}: pip could not run: ${cause}`);
  }
  const stderr = Buffer.from(run.stderr, "base64").toString("utf8").trim();
  const lines = stderr.split("\n");
  // pip's own errors where it gave some, else whatever the last lines say (a shell that found no python3).
  const errors = lines.filter((l) => /^(ERROR|error|there is no pip)/.test(l));
  const said = (errors.length ? errors : lines).slice(-3).join("; ").slice(-800);
  const from = req.wheels ? "from the wheels sent with the app" : "through the computer's network as declared";
  if (run.timedOut) return fail("timeout", `${session.name}: installing the app's Python requirements ${from} ran past ${PIP_MS / 60_000} min`);
  if (run.exitCode !== 0)
    return fail(
      "failed",
      `${session.name}: the app's Python requirements could not be installed ${from} (exit ${run.exitCode ?? run.signal})${said ? `: ${said}` : ""}`,
    );
  return ok(
    Buffer.from(run.stdout, "base64")
      .toString("utf8")
      .split("\n")
      .filter((l) => l !== ""),
  );
}
