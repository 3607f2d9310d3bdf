// The provider's side of the plugin (start.ts) as the entry loads it at the first call that needs it:
// the build's single file of it (bundle.ts) when there and fresh, else its modules one by one as
// tsc compiled them.
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** The bundle's name beside the compiled provider. */
export const BUNDLE = "start.bundle.cjs";

/**
 * The bundle at `bundle` is there and no older than `compiled`, a module tsc writes on every build:
 * a tsc run after the bundle was made leaves the bundle out, so the plugin never runs code older
 * than its modules.
 */
export function freshBundle(bundle: string, compiled: string): boolean {
  const made = statSync(bundle, { throwIfNoEntry: false });
  return made !== undefined && made.mtimeMs >= statSync(compiled).mtimeMs;
}

export async function loadStart(): Promise<typeof import("./start.js")> {
  const bundle = fileURLToPath(new URL(BUNDLE, import.meta.url));
  if (freshBundle(bundle, fileURLToPath(import.meta.url))) return createRequire(import.meta.url)(bundle);
  return import("./start.js");
}
