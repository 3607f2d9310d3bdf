// Paths inside a computer's home: what a step may name (home-relative, never leaving the home),
// checked once here for every in-computer resource, and the places this library keeps its own.
import { posix } from "node:path";
import { fail, ok, type Result } from "../daemon/result.js";

/** Where a ComputerCommand stages its runs, under the home. */
export const RUN_ROOT = ".agentrun/run";
/** Where a ComputerApp is installed, under the home (the seed's /opt/agentrun/apps needs root, which no hardened computer has). */
export const APP_ROOT = ".agentrun/apps";

/**
 * A path relative to the computer's user's home, in its normal form ("Downloads/a.csv"). An
 * absolute path, one that leaves the home, a NUL or the home itself is refused, naming the path.
 */
export function homeRelative(path: unknown, what = "a path"): Result<string> {
  if (typeof path !== "string" || path === "") return fail("invalid", `${what} must be a non-empty path relative to the computer's home`);
  const shown = JSON.stringify(path.length > 120 ? `${path.slice(0, 120)}…` : path);
  if (path.includes("\0")) return fail("invalid", `${what} ${shown.replace(/\\u0000/g, "\\0")} holds a NUL: a path inside the computer cannot`);
  if (path.startsWith("/") || path.startsWith("~"))
    return fail("invalid", `${what} ${shown} is absolute: give it relative to the computer's home (Downloads/report.csv)`);
  const normal = posix.normalize(path).replace(/\/+$/, "");
  if (normal === "." || normal === "") return fail("invalid", `${what} ${shown} is the home itself: name a file or folder inside it`);
  if (normal === ".." || normal.startsWith("../")) return fail("invalid", `${what} ${shown} leaves the home: a step writes and reads only inside it`);
  return ok(normal);
}

/** dir/name as one home-relative path: name may use .. while the whole stays inside the home. */
export function underHome(dir: string, name: unknown, what = "a path"): Result<string> {
  const alone = homeRelative(name, what);
  if (!alone.ok && !/leaves the home|is the home itself/.test(alone.error.message)) return alone;
  const joined = posix.join(dir, name as string);
  const whole = homeRelative(joined, what);
  if (whole.ok) return whole;
  return fail(
    "invalid",
    `${what} ${JSON.stringify(name)} under ${dir} ${/leaves/.test(whole.error.message) ? "leaves the home: a step writes and reads only inside it" : "is the home itself: name a file or folder inside it"}`,
  );
}

/** A home-relative path made absolute under the home read from the computer. */
export function inHome(home: string, path: string): string {
  return posix.join(home, path);
}
