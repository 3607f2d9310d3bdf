// Paths inside a computer's home: what a step may name (home-relative, never leaving the home),
// checked once here for every in-computer resource, and the places this library keeps its own.
import { posix } from "node:path";
import { fail, ok, type Result } from "../daemon/result.js";

/** Where a ComputerCommand stages its runs, under the home. */
export const RUN_ROOT = ".agentrun/run";
/** Where a ComputerApp is installed, under the home (the seed's /opt/agentrun/apps needs root, which no hardened computer has). */
export const APP_ROOT = ".agentrun/apps";

/** Where a path given relative to the home lands: its normal form, or why it cannot. */
type Placed = { normal: string } | { problem: "empty" | "nul" | "absolute" | "home" | "leaves" };

function placed(path: unknown): Placed {
  if (typeof path !== "string" || path === "") return { problem: "empty" };
  if (path.includes("\0")) return { problem: "nul" };
  if (path.startsWith("/") || path.startsWith("~")) return { problem: "absolute" };
  const normal = posix.normalize(path).replace(/\/+$/, "");
  if (normal === "." || normal === "") return { problem: "home" };
  if (normal === ".." || normal.startsWith("../")) return { problem: "leaves" };
  return { normal };
}

const LEAVES = "leaves the home: a step writes and reads only inside it";
const HOME = "is the home itself: name a file or folder inside it";

/**
 * A path relative to the computer's user's home, in its normal form ("Downloads/a.csv"). An
 * absolute path, one that leaves the home, a NUL or the home itself is refused, naming the path.
 */
export function homeRelative(path: unknown, what = "a path"): Result<string> {
  const place = placed(path);
  if ("normal" in place) return ok(place.normal);
  if (place.problem === "empty") return fail("invalid", `${what} must be a non-empty path relative to the computer's home`);
  const text = path as string;
  const shown = JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
  if (place.problem === "nul") return fail("invalid", `${what} ${shown.replace(/\\u0000/g, "\\0")} holds a NUL: a path inside the computer cannot`);
  if (place.problem === "absolute") return fail("invalid", `${what} ${shown} is absolute: give it relative to the computer's home (Downloads/report.csv)`);
  return fail("invalid", `${what} ${shown} ${place.problem === "home" ? HOME : LEAVES}`);
}

/** dir/name as one home-relative path: name may use .. while the whole stays inside the home. */
export function underHome(dir: string, name: unknown, what = "a path"): Result<string> {
  const alone = placed(name);
  if ("problem" in alone && alone.problem !== "leaves" && alone.problem !== "home") return homeRelative(name, what);
  const whole = placed(posix.join(dir, name as string));
  if ("normal" in whole) return ok(whole.normal);
  return fail("invalid", `${what} ${JSON.stringify(name)} under ${dir} ${whole.problem === "leaves" ? LEAVES : HOME}`);
}

/** A home-relative path made absolute under the home read from the computer. */
export function inHome(home: string, path: string): string {
  return posix.join(home, path);
}
