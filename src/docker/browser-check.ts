// What a browser on Docker takes, checked before any Docker call: the image "chromium" (the
// provider's own, Debian's Chromium), enough memory and pids for Chromium, a user other than
// root, and nothing a browser does not have (a run folder, a workdir, gVisor, which this
// provider has not run Chromium under).
import type { CheckInput } from "../contract/provider.js";
import type { Refusal } from "../daemon/result.js";
import { BROWSER_IMAGE } from "../kits/browser/labels.js";
import { sizeRefusals } from "../kits/browser/computer.js";

/** Each field a browser refuses, in words naming it. */
export function browserRefusals(spec: CheckInput): Refusal[] {
  const out: Refusal[] = [];
  if (spec.image !== BROWSER_IMAGE)
    out.push({
      field: "image",
      message: `a Docker browser's image is ${BROWSER_IMAGE}: Debian's Chromium, built by the provider (ask for image "${BROWSER_IMAGE}")`,
    });
  out.push(...sizeRefusals(spec));
  if (spec.user !== undefined && /^(root|0)(:|$)/.test(String(spec.user)))
    out.push({ field: "user", message: "a browser runs as a user of its own, never root: ask for a uid (uid or uid:gid)" });
  if (spec.mount !== undefined) out.push({ field: "mount", message: "a browser takes no run folder: leave mount out" });
  if (spec.workdir !== undefined) out.push({ field: "workdir", message: "a browser has no workdir: leave it out" });
  if (spec.runtime !== undefined && spec.runtime !== "runc")
    out.push({ field: "runtime", message: "a Docker browser runs under runc alone: leave runtime out" });
  return out;
}
