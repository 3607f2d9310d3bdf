// check(spec) for Modal: every refusal together, each naming its field, before any Modal call.
import { labelRefusals } from "../contract/labels.js";
import { checkLifetime } from "../contract/lifetime.js";
import { checkMount } from "../contract/mount.js";
import { runtimeRefusal } from "../contract/runtime.js";
import type { Capabilities, CheckInput } from "../contract/provider.js";
import type { Refusal } from "../daemon/result.js";
import { isRootOrRootGroup, parseUser } from "../contract/user.js";
import { forkProblem } from "../contract/state.js";
import { OWNER_TAGS, COMPUTER_TAG, MAX_LABELS, MAX_OWNED_LABELS, MAX_TAGS, MIN_CPUS, MEMORY_REQUEST_MIB, OWN_TAGS } from "./constants.js";

const FIELDS = new Set(["image", "lifetimeMs", "network", "labels", "mount", "cpus", "memoryMb", "pids", "user", "workdir", "kind", "runtime"]);
const ROOT_NAME = /^root(:.*)?$/;

function hasNul(value: string): boolean {
  return value.includes("\0");
}

/** Why a user cannot be a Modal computer's, or undefined: root (by number or name) is refused outright. */
export function modalUserProblem(user: unknown): string | undefined {
  if (typeof user === "string" && ROOT_NAME.test(user))
    return "a Modal computer never runs as root: its connections are Modal's root exec, so root would share them; ask for a uid such as 2510:2510";
  const parsed = parseUser(user);
  if (!parsed.ok) return parsed.error.message;
  if (parsed.value.uid === 0)
    return "a Modal computer never runs as root: its connections are Modal's root exec, so root would share them; ask for a uid such as 2510:2510";
  if (isRootOrRootGroup(parsed.value)) return "a Modal computer's user is not in root's group (gid 0); ask for a gid other than 0";
  return undefined;
}

/** Why the spec's labels do not fit Modal's tags, or undefined: fewer for a computer made for an owner. */
function labelCountProblem(count: number, owned: boolean): string | undefined {
  const most = owned ? MAX_OWNED_LABELS : MAX_LABELS;
  if (count <= most) return undefined;
  const why = owned
    ? `Modal keeps at most ${MAX_TAGS} tags a sandbox: ${OWN_TAGS.length} are the provider's, and ${OWNER_TAGS} tie it to the resource it is made for`
    : `Modal keeps at most ${MAX_TAGS} tags a sandbox, and ${OWN_TAGS.length} are the provider's`;
  return `a Modal computer${owned ? " made for a resource" : ""} takes at most ${most} labels of its own (${why}); this spec has ${count}`;
}

/** Every refusal of the spec; owned: it is made for an owner (CheckOptions.owned), whose two labels take two of Modal's tags. */
export function checkSpec(spec: CheckInput, capabilities: Capabilities, owned = false): Refusal[] {
  if (typeof spec !== "object" || spec === null) return [{ field: "spec", message: "a spec is an object with image, lifetimeMs and network" }];
  const out: Refusal[] = [];
  const fields = spec as unknown as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (key === "gpu") out.push({ field: "gpu", message: "a GPU is refused: this provider makes VM sandboxes, and Modal offers GPUs on gVisor only" });
    else if (!FIELDS.has(key)) out.push({ field: key, message: `${key} is not a field Modal supports (it takes ${[...FIELDS].join(", ")})` });
  }
  if (typeof spec.image !== "string" || spec.image.length === 0)
    out.push({
      field: "image",
      message: "image is required: the registry image a computer starts from (linux/amd64), or a snapshot this provider took (snapshot://modal/<image id>)",
    });
  else if (hasNul(spec.image) || /\s/.test(spec.image)) out.push({ field: "image", message: "image is a registry tag with no space or NUL" });
  else {
    // A fork's image: another provider's snapshot is refused; Modal's is an image by its id.
    const fork = forkProblem(spec.image, "modal");
    if (!fork.ok) out.push({ field: "image", message: fork.error.message });
  }

  const lifetime = checkLifetime(spec.lifetimeMs, capabilities);
  if (lifetime) out.push(lifetime);

  if (spec.network === undefined) out.push({ field: "network", message: "network is required: none (the one network a Modal computer has for now)" });
  else if (spec.network === "open") {
    out.push({
      field: "network",
      message:
        "network open is refused on Modal for now: the daemon's programs have their own loopback alone until a proxy carries traffic out of it; ask for none",
    });
  } else if (typeof spec.network === "object" && spec.network !== null && "allow" in spec.network) {
    out.push({ field: "network", message: "an allowlist is refused on Modal: its CIDR and domain allowlists cannot be read back; ask for none" });
  } else if (spec.network !== "none") out.push({ field: "network", message: "network is none on Modal (open and an allowlist are refused for now)" });

  if (spec.kind !== undefined && spec.kind !== "linux")
    out.push({ field: "kind", message: `Modal makes linux computers, not ${String(spec.kind)}; ask for kind linux` });
  const runtime = runtimeRefusal(spec.runtime, ["runc"], "Modal");
  if (runtime) out.push(runtime);

  if (spec.labels !== undefined) {
    out.push(...labelRefusals(spec.labels, COMPUTER_TAG));
    const count = typeof spec.labels === "object" && spec.labels !== null ? Object.keys(spec.labels).length : 0;
    const problem = labelCountProblem(count, owned);
    if (problem) out.push({ field: "labels", message: problem });
  }

  if (spec.mount !== undefined) out.push(...checkMount(spec.mount, capabilities.mount));

  if (spec.cpus !== undefined && !(typeof spec.cpus === "number" && Number.isFinite(spec.cpus) && spec.cpus >= MIN_CPUS && spec.cpus <= 128)) {
    out.push({ field: "cpus", message: `cpus is a number of CPUs from ${MIN_CPUS} (Modal's least limit, 0.125 physical cores of 2 CPUs each) to 128` });
  }
  if (spec.memoryMb !== undefined && !(Number.isInteger(spec.memoryMb) && spec.memoryMb >= MEMORY_REQUEST_MIB && spec.memoryMb <= 1 << 20)) {
    out.push({ field: "memoryMb", message: `memoryMb is a whole number of MiB from ${MEMORY_REQUEST_MIB} (Modal's default request) up` });
  }
  if (spec.pids !== undefined) out.push({ field: "pids", message: "pids is refused: Modal has no pids limit, so it could not be held" });
  if (spec.user !== undefined) {
    const problem = modalUserProblem(spec.user);
    if (problem) out.push({ field: "user", message: problem });
  }
  if (spec.workdir !== undefined && (typeof spec.workdir !== "string" || !spec.workdir.startsWith("/") || hasNul(spec.workdir) || /\s/.test(spec.workdir))) {
    out.push({ field: "workdir", message: "workdir is an absolute path with no NUL or space" });
  }
  return out;
}
