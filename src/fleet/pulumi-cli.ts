// The Pulumi CLI this package runs: the one `npm run setup` built (dist/toolchain.json beside
// this package, since no CLI can be downloaded on these machines), else the one on PATH.
import { readFileSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "../package.js";

/** The folder holding the `pulumi` executable, or undefined for the one on PATH. */
export function pulumiFolder(): string | undefined {
  try {
    const { pulumiBin } = JSON.parse(readFileSync(path.join(packageRoot(), "dist", "toolchain.json"), "utf8")) as { pulumiBin?: string };
    return pulumiBin || undefined;
  } catch {
    return undefined;
  }
}

/** The `pulumi` executable to run: a path, or the bare name for the one on PATH. */
export function pulumiBinary(): string {
  const folder = pulumiFolder();
  return folder ? path.join(folder, "pulumi") : "pulumi";
}
