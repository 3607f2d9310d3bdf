// What an app runs on (its supports: operating systems and architectures), held against what the
// computer's daemon said of it in hello, before anything of the app is written.
import type { Hello } from "../daemon/protocol.js";

/** The platforms an app declares it runs on; a list left out allows any. */
export interface Supports {
  os?: string[];
  arch?: string[];
}

/** Why the computer is not one the app supports, in words; undefined when it is. */
export function unsupported(supports: Supports | undefined, hello: Pick<Hello, "os" | "arch">): string | undefined {
  const misses: string[] = [];
  if (supports?.os && !supports.os.includes(hello.os)) misses.push(`os ${hello.os} (it supports ${supports.os.join(", ")})`);
  if (supports?.arch && !supports.arch.includes(hello.arch)) misses.push(`arch ${hello.arch} (it supports ${supports.arch.join(", ")})`);
  return misses.length ? misses.join(" and ") : undefined;
}
