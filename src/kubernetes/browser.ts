// A browser on Kubernetes: a Pod like any computer's whose image is the provider's browser option
// (the browser recipe's image, src/kits/browser/recipe.ts, in a registry the nodes pull from), its
// init told its kind, Chromium started through the daemon at create as the computer's user and
// read back from inside on every read (src/kits/browser/computer.ts); an allowlisted one sends
// everything through its Pod's egress sidecar. What a browser takes is checked here, before any
// API call.
import type { CheckInput } from "../contract/provider.js";
import type { Refusal } from "../daemon/result.js";
import { sizeRefusals } from "../kits/browser/computer.js";
import { BROWSER_IMAGE } from "../kits/browser/labels.js";
import { HOME } from "./constants.js";

/** Chromium's profile: in the user's home, made by Chromium at start. */
export const BROWSER_PROFILE = `${HOME}/.chromium`;

/** init's flags for a computer's kind: a browser's hello says kind browser. */
export const kindArgs = (kind: "browser" | undefined): string[] => (kind === "browser" ? ["--kind", "browser"] : []);

/** Each field a Kubernetes browser refuses, in words naming it (pids, a root user and a mount are refused for every computer). */
export function browserRefusals(spec: CheckInput): Refusal[] {
  const out: Refusal[] = [];
  if (spec.image !== BROWSER_IMAGE)
    out.push({
      field: "image",
      message: `a Kubernetes browser's image is ${BROWSER_IMAGE}: the image the provider's browser option names, Debian's Chromium (ask for image "${BROWSER_IMAGE}")`,
    });
  out.push(...sizeRefusals({ memoryMb: spec.memoryMb }));
  // An allowlist is its own proxy beside it (init relays 127.0.0.1:3128 to it, as on Docker); a shared one is not offered.
  if (spec.egress !== undefined)
    out.push({ field: "egress", message: "a Kubernetes browser joins no shared egress proxy: leave egress out (its allowlist has a proxy of its own)" });
  if (spec.workdir !== undefined) out.push({ field: "workdir", message: "a browser has no workdir: leave it out" });
  if (spec.runtime !== undefined && spec.runtime !== "runc")
    out.push({ field: "runtime", message: "a Kubernetes browser runs under the Pod's runtime alone, not gVisor: leave runtime out" });
  return out;
}
