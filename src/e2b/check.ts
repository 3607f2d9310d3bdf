// check(spec) for E2B: the child daemon's shared check (src/kits/agent-child/check.ts) in E2B's words. A
// template gives the sandbox its size; a desktop is kind desktop on a template with Xvfb.
import { checkChildSpec } from "../kits/agent-child/check.js";
import type { Capabilities, CheckInput } from "../contract/provider.js";
import type { Refusal } from "../daemon/result.js";
import { forkProblem } from "../contract/state.js";
import { COMPUTER_KEY, PROVIDER_ID } from "./constants.js";

export const NETWORK_GAP =
  "an E2B computer's network is none alone for now: its daemon's programs run in a network of their own, and open and allowlists wait for a proxy out of it (known gap; a computer that needs pip, npm or git from the internet cannot be made on E2B yet)";

export function checkSpec(spec: CheckInput, capabilities: Capabilities): Refusal[] {
  const out = checkChildSpec(spec, capabilities, {
    vendor: "an E2B",
    name: "E2B",
    sizedBy: "template",
    image: 'image is required: an E2B template by id or alias ("base" for E2B\'s base template)',
    networkGap: NETWORK_GAP,
    kind: (kind) => (kind === "desktop" ? undefined : `E2B makes linux and desktop computers, not ${String(kind)}`),
    ownLabel: COMPUTER_KEY,
  });
  // A template is a name E2B resolves: no whitespace, and a bound on its length.
  if (typeof spec?.image === "string" && spec.image && (spec.image.length > 256 || /\s/.test(spec.image)) && !out.some((r) => r.field === "image")) {
    out.push({ field: "image", message: "image is an E2B template by id or alias: no whitespace, at most 256 characters" });
  }
  // A snapshot's image forks only where it was taken.
  const fork = typeof spec?.image === "string" ? forkProblem(spec.image, PROVIDER_ID) : undefined;
  if (fork && !fork.ok && !out.some((r) => r.field === "image")) out.push({ field: "image", message: fork.error.message });
  return out;
}
