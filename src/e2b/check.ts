// check(spec) for E2B: every refusal together, each naming its field, with no call. A template
// gives the sandbox its size, the daemon works in /work as the provider's daemon user, and the
// network is none alone until a proxy carries traffic out of the daemon's own network.
import { checkLifetime } from "../lifetime.js";
import { checkMount } from "../mount.js";
import { normalUser } from "../user.js";
import type { Capabilities, ComputerSpec } from "../provider.js";
import type { Refusal } from "../result.js";
import { COMPUTER_KEY } from "./constants.js";
import { DESKTOP_GAP } from "./options.js";

const FIELDS = new Set(["image", "lifetimeMs", "network", "labels", "kind"]);
const SIZED = new Set(["cpus", "memoryMb", "pids"]);

export const NETWORK_GAP =
  "an E2B computer's network is none alone for now: its daemon's programs run in a network of their own, and open and allowlists wait for a proxy out of it (known gap; a computer that needs pip, npm or git from the internet cannot be made on E2B yet)";

/** A user or workdir is refused unless it is the daemon's own (capabilities().defaults), which the Pulumi resource passes back. */
export function checkSpec(spec: ComputerSpec, capabilities: Capabilities): Refusal[] {
  if (typeof spec !== "object" || spec === null) return [{ field: "spec", message: "a spec is an object with image, lifetimeMs and network" }];
  const own = capabilities.defaults ?? {};
  const out: Refusal[] = [];
  for (const key of Object.keys(spec).filter((k) => (spec as unknown as Record<string, unknown>)[k] !== undefined)) {
    if (SIZED.has(key)) out.push({ field: key, message: `${key} is refused: an E2B sandbox's size is its template's own` });
    else if (key === "user" && normalUser(spec.user) === own.user) continue;
    else if (key === "workdir" && spec.workdir === own.workdir) continue;
    else if (key === "user") out.push({ field: key, message: "user is refused: an E2B computer's daemon runs as the provider's daemonUser, which a spec cannot name" });
    else if (key === "workdir") out.push({ field: key, message: "workdir is refused: an E2B computer's daemon works in /work" });
    else if (key === "mount") out.push(...checkMount(spec.mount, []));
    else if (!FIELDS.has(key)) out.push({ field: key, message: `${key} is not a field E2B supports (it takes ${[...FIELDS].join(", ")})` });
  }
  if (typeof spec.image !== "string" || spec.image.length === 0 || spec.image.length > 256 || /[\0\s]/.test(spec.image)) {
    out.push({ field: "image", message: 'image is required: an E2B template by id or alias ("base" for E2B\'s base template)' });
  }
  const lifetime = checkLifetime(spec.lifetimeMs, capabilities);
  if (lifetime) out.push(lifetime);
  if (spec.network === undefined) out.push({ field: "network", message: "network is required: none" });
  else if (spec.network !== "none") out.push({ field: "network", message: NETWORK_GAP });
  if (spec.kind === "desktop") out.push({ field: "kind", message: DESKTOP_GAP });
  else if (spec.kind !== undefined && spec.kind !== "linux") out.push({ field: "kind", message: `E2B makes linux computers, not ${String(spec.kind)}` });
  if (spec.labels !== undefined) {
    if (typeof spec.labels !== "object" || spec.labels === null || Array.isArray(spec.labels)) {
      out.push({ field: "labels", message: "labels is an object of strings" });
    } else {
      for (const [key, value] of Object.entries(spec.labels)) {
        if (key.length === 0 || key.includes("\0")) out.push({ field: "labels", message: "a label's key is a non-empty string with no NUL" });
        else if (key === COMPUTER_KEY || key.startsWith(`${COMPUTER_KEY}.`)) {
          out.push({ field: "labels", message: `the label ${key} is in the provider's own namespace (${COMPUTER_KEY}); choose another key` });
        }
        if (typeof value !== "string" || value.includes("\0")) out.push({ field: "labels", message: `the label ${key.replace(/\0/g, "")} is a string with no NUL` });
      }
    }
  }
  return out;
}
