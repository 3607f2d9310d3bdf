// check(spec) for a vendor whose agent runs computerd as its child (Daytona, E2B): every refusal
// together, each naming its field, with no call. The vendor's image (a snapshot, a template)
// gives the sandbox its size, the daemon works in /work as the provider's daemon user, and the
// network is none alone until a proxy carries traffic out of the daemon's own network. A user or
// workdir is refused unless it is the daemon's own (capabilities().defaults), which a host that
// fills in a provider's defaults (the Pulumi resource) passes back.
import { ownerLabelRefusal, isOwnerLabel } from "../../contract/labels.js";
import { checkLifetime } from "../../contract/lifetime.js";
import { checkMount } from "../../contract/mount.js";
import { runtimeRefusal } from "../../contract/runtime.js";
import type { Capabilities, CheckInput } from "../../contract/provider.js";
import type { Refusal } from "../../daemon/result.js";
import { normalUser } from "../../contract/user.js";

const FIELDS = new Set(["image", "lifetimeMs", "network", "labels", "kind"]);
const SIZED = new Set(["cpus", "memoryMb", "pids"]);

export interface ChildCheckWords {
  /** "a Daytona" or "an E2B". */
  vendor: string;
  /** The vendor's name alone ("Daytona"). */
  name: string;
  /** What gives the size ("snapshot", "template"). */
  sizedBy: string;
  /** image's refusal when it is missing. */
  image: string;
  /** network's refusal for open and allowlists. */
  networkGap: string;
  /** kind's refusal for a kind other than linux, or undefined for one the vendor makes too (E2B's desktop). */
  kind(kind: unknown): string | undefined;
  /** The provider's own label namespace. */
  ownLabel: string;
}

export function checkChildSpec(spec: CheckInput, capabilities: Capabilities, words: ChildCheckWords): Refusal[] {
  if (typeof spec !== "object" || spec === null) return [{ field: "spec", message: "a spec is an object with image, lifetimeMs and network" }];
  const own = capabilities.defaults ?? {};
  const out: Refusal[] = [];
  // A field given as undefined is not given (a host that passes every input, set or not).
  for (const key of Object.keys(spec).filter((k) => (spec as unknown as Record<string, unknown>)[k] !== undefined)) {
    if (SIZED.has(key)) out.push({ field: key, message: `${key} is refused: ${words.vendor} sandbox's size is its ${words.sizedBy}'s own` });
    else if (key === "user" && normalUser(spec.user) === own.user) continue;
    else if (key === "workdir" && spec.workdir === own.workdir) continue;
    else if (key === "user")
      out.push({ field: key, message: `user is refused: ${words.vendor} computer's daemon runs as the provider's daemonUser, which a spec cannot name` });
    else if (key === "workdir") out.push({ field: key, message: `workdir is refused: ${words.vendor} computer's daemon works in /work` });
    else if (key === "mount") out.push(...checkMount(spec.mount, []));
    else if (key === "runtime") {
      const runtime = runtimeRefusal(spec.runtime, ["runc"], words.name);
      if (runtime) out.push(runtime);
    } else if (!FIELDS.has(key)) out.push({ field: key, message: `${key} is not a field ${words.name} supports (it takes ${[...FIELDS].join(", ")})` });
  }
  if (typeof spec.image !== "string" || spec.image.length === 0 || spec.image.includes("\0")) out.push({ field: "image", message: words.image });
  const lifetime = checkLifetime(spec.lifetimeMs, capabilities);
  if (lifetime) out.push(lifetime);
  if (spec.network === undefined) out.push({ field: "network", message: "network is required: none" });
  else if (spec.network !== "none") out.push({ field: "network", message: words.networkGap });
  const kind = spec.kind !== undefined && spec.kind !== "linux" ? words.kind(spec.kind) : undefined;
  if (kind) out.push({ field: "kind", message: kind });
  if (spec.labels !== undefined) {
    if (typeof spec.labels !== "object" || spec.labels === null || Array.isArray(spec.labels)) {
      out.push({ field: "labels", message: "labels is an object of strings" });
    } else {
      for (const [key, value] of Object.entries(spec.labels)) {
        if (key.length === 0 || key.includes("\0")) out.push({ field: "labels", message: "a label's key is a non-empty string with no NUL" });
        else if (isOwnerLabel(key)) out.push(ownerLabelRefusal(key));
        else if (key === words.ownLabel || key.startsWith(`${words.ownLabel}.`)) {
          out.push({ field: "labels", message: `the label ${key} is in the provider's own namespace (${words.ownLabel}); choose another key` });
        }
        if (typeof value !== "string" || value.includes("\0"))
          out.push({ field: "labels", message: `the label ${key.replace(/\0/g, "")} is a string with no NUL` });
      }
    }
  }
  return out;
}
