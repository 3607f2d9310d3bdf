// The package this module ships in: its root (where dist/ and package.json are), its version, and the base image its set-up made.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The nearest directory above this module that holds a package.json. */
export function packageRoot(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (dir === path.dirname(dir)) throw new Error("this module is not inside a package: no package.json above it");
  }
}

/** The package's version, which the daemon it carries reports in hello. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
}

/** The base image the set-up made, from the package's dist/toolchain.json; undefined when missing. */
export function toolchainBase(): string | undefined {
  try {
    const base = (JSON.parse(readFileSync(path.join(packageRoot(), "dist", "toolchain.json"), "utf8")) as { baseImage?: unknown }).baseImage;
    return typeof base === "string" && base ? base : undefined;
  } catch {
    return undefined;
  }
}
