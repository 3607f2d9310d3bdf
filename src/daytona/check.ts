// check(spec) for Daytona: the child daemon's shared check (src/kits/agent-child/check.ts) in Daytona's
// words. A snapshot gives the sandbox its size.
import { checkChildSpec, type ChildCheckWords } from "../kits/agent-child/check.js";
import type { Capabilities, CheckInput } from "../contract/provider.js";
import type { Refusal } from "../daemon/result.js";
import { forkProblem } from "../contract/state.js";
import { COMPUTER_LABEL } from "./constants.js";

export const NETWORK_GAP =
  "a Daytona computer's network is none alone for now: its daemon's programs run in a network of their own, and open and allowlists wait for a proxy out of it (known gap; a computer that needs pip, npm or git from the internet cannot be made on Daytona yet)";

const WORDS: ChildCheckWords = {
  vendor: "a Daytona",
  name: "Daytona",
  sizedBy: "snapshot",
  image:
    'image is required: a Daytona snapshot by id or name, a snapshot this provider took (snapshot://daytona/<name>), or "default" for Daytona\'s default snapshot',
  networkGap: NETWORK_GAP,
  kind: (kind) => `Daytona makes linux computers, not ${String(kind)}`,
  ownLabel: COMPUTER_LABEL,
};

/** The shared check, and a fork's image held to Daytona: another provider's snapshot is refused (a Daytona one is the sandbox's snapshot). */
export function checkSpec(spec: CheckInput, capabilities: Capabilities): Refusal[] {
  const out = checkChildSpec(spec, capabilities, WORDS);
  const fork = typeof spec?.image === "string" ? forkProblem(spec.image, "daytona") : undefined;
  if (fork && !fork.ok) out.push({ field: "image", message: fork.error.message });
  return out;
}
