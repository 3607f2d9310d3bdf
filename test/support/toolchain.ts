// What the set-up made (dist/toolchain.json): the Pulumi CLI's folder, the base image, the daemons.
import { readFileSync } from "node:fs";
import { packageRoot } from "../../src/package.js";

export type Toolchain = { pulumiBin: string; baseImage: string; root: string; daemon: { amd64: string; arm64: string } };

/** The checkout's root, from test/support as vitest runs it and from dist/test/support as a bench does. */
export const ROOT = packageRoot();

export function toolchain(): Toolchain {
  try {
    return JSON.parse(readFileSync(`${ROOT}/dist/toolchain.json`, "utf8"));
  } catch {
    throw new Error("dist/toolchain.json is missing: run `npm run setup` (or `npm test`, which runs it) first");
  }
}
