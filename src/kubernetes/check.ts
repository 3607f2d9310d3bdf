// check(spec) for Kubernetes: every refusal together, each naming its field, before any API call.
import { forkRefusal } from "./snapshot-image.js";
import { labelRefusals } from "../contract/labels.js";
import { checkLifetime } from "../contract/lifetime.js";
import { checkMount } from "../contract/mount.js";
import { RUNTIMES, runtimeRefusal } from "../contract/runtime.js";
import type { Capabilities, CheckInput } from "../contract/provider.js";
import type { Refusal } from "../daemon/result.js";
import { isRootOrRootGroup, parseUser } from "../contract/user.js";
import { checkAllowlist } from "../egress/list.js";
import { browserRefusals } from "./browser.js";
import { COMPUTER_LABEL, PROXY_PATTERN } from "./constants.js";
import { gvisorRefusals } from "./runtime.js";

const FIELDS = new Set(["image", "lifetimeMs", "network", "labels", "mount", "cpus", "memoryMb", "pids", "user", "workdir", "kind", "egress", "runtime"]);
/** The least memory a computer is given: init, the daemon and a shell. */
export const MIN_MEMORY_MB = 32;
/** A Pod's image reference: no space, NUL or uppercase-only junk; Kubernetes checks the rest. */
const IMAGE = /^[^\s\0]+$/;

/** Why a user cannot be a Kubernetes computer's, or undefined: root, or root's group, is refused. */
export function userProblem(user: unknown): string | undefined {
  const parsed = parseUser(user);
  if (!parsed.ok) return parsed.error.message;
  if (isRootOrRootGroup(parsed.value))
    return "a Kubernetes computer never runs its programs as root or in root's group: init is root only to enter a network of its own and drop to the user; ask for a uid:gid such as 2510:2510";
  return undefined;
}

/** The network's refusals: none, open (the Pod's network) or an allowlist (its proxy beside the computer, or a shared proxy's list). */
function networkRefusals(network: unknown, egress: unknown, testRange: string | undefined): Refusal[] {
  const out: Refusal[] = [];
  const allowlist = typeof network === "object" && network !== null && !Array.isArray(network) && Object.keys(network).join() === "allow";
  if (egress !== undefined) {
    if (typeof egress !== "string" || !PROXY_PATTERN.test(egress))
      out.push({ field: "egress", message: "egress names a shared egress proxy, proxy-<12 hex digits>, as proxies.make gives it" });
    // A network left out is refused as such (or not yet known, a preview's): no second refusal here.
    if (!allowlist && network !== undefined)
      out.push({
        field: "egress",
        message: "a computer joins an egress proxy with network { allow: [] } (the proxy's list); with none or open it has no proxy to join",
      });
  }
  if (network === undefined)
    return [...out, { field: "network", message: "network is required: none (init's own network namespace), open (the Pod's network) or { allow: [...] }" }];
  if (network === "none" || network === "open") return out;
  if (allowlist) {
    const allow = (network as { allow: unknown }).allow;
    // Joining a shared proxy, an empty list is that proxy's, whatever it is now.
    if (egress !== undefined && Array.isArray(allow) && allow.length === 0) return out;
    const list = checkAllowlist(allow, testRange ? { testNetwork: testRange } : {});
    return list.ok ? out : [...out, ...list.refusals.map((r) => ({ field: "network", message: `network.allow: ${r.message}` }))];
  }
  return [...out, { field: "network", message: "network is none, open or { allow: [host names, *.suffixes and CIDRs] }" }];
}

/** The kind asked for against the provider's: a browser with the browser option, else linux. */
function kindRefusals(kind: unknown, made: Capabilities["kind"]): Refusal[] {
  if (kind === undefined || kind === made) return [];
  if (made === "browser")
    return [{ field: "kind", message: `this Kubernetes provider makes browsers (its browser option), not ${String(kind).slice(0, 40)}; ask for kind browser` }];
  if (kind === "browser")
    return [
      {
        field: "kind",
        message:
          "a Kubernetes browser needs the provider's browser option (the browser recipe's image in a registry the nodes pull from: scripts/kube-browser-image.mjs pushes it); this provider makes linux computers",
      },
    ];
  return [{ field: "kind", message: `Kubernetes makes linux computers, not ${String(kind).slice(0, 40)}; ask for kind linux` }];
}

export function checkSpec(spec: CheckInput, capabilities: Capabilities, testRange?: string): Refusal[] {
  if (typeof spec !== "object" || spec === null) return [{ field: "spec", message: "a spec is an object with image, lifetimeMs and network" }];
  // A browser's own rules first; a field refused for them is not refused again by the rest.
  const browser = capabilities.kind === "browser" ? browserRefusals(spec) : [];
  const mine = new Set(browser.map((r) => r.field));
  return [...browser, ...computerRefusals(spec, capabilities, testRange).filter((r) => !mine.has(r.field))];
}

function computerRefusals(spec: CheckInput, capabilities: Capabilities, testRange: string | undefined): Refusal[] {
  const out: Refusal[] = [];
  for (const key of Object.keys(spec)) {
    if (!FIELDS.has(key)) out.push({ field: key, message: `${key} is not a field the Kubernetes provider takes (it takes ${[...FIELDS].join(", ")})` });
  }
  if (typeof spec.image !== "string" || spec.image.length === 0)
    out.push({ field: "image", message: "image is required: the image a Pod starts from, best pinned by digest" });
  else if (!IMAGE.test(spec.image)) out.push({ field: "image", message: "image is an image reference with no space or NUL" });
  else {
    // A fork's image: another provider's snapshot, or one of ours that names no image by digest, refused.
    const fork = forkRefusal(spec.image);
    if (fork) out.push(fork);
  }
  const lifetime = checkLifetime(spec.lifetimeMs, capabilities);
  if (lifetime) out.push(lifetime);
  out.push(...networkRefusals(spec.network, spec.egress, testRange));
  out.push(...kindRefusals(spec.kind, capabilities.kind));
  if (spec.labels !== undefined) {
    out.push(...labelRefusals(spec.labels, COMPUTER_LABEL));
    if (typeof spec.labels === "object" && spec.labels !== null) {
      for (const key of Object.keys(spec.labels)) {
        if (key.startsWith(`${COMPUTER_LABEL}/`))
          out.push({ field: "labels", message: `the label ${key} is in the provider's own prefix (${COMPUTER_LABEL}/); choose another key` });
      }
    }
  }
  if (spec.mount !== undefined) out.push(...checkMount(spec.mount, capabilities.mount));
  if (spec.cpus !== undefined && !(typeof spec.cpus === "number" && Number.isFinite(spec.cpus) && spec.cpus >= 0.001 && spec.cpus <= 1024))
    out.push({ field: "cpus", message: "cpus is a number of CPUs from 0.001 (one millicore) to 1024" });
  if (spec.memoryMb !== undefined && !(Number.isInteger(spec.memoryMb) && spec.memoryMb >= MIN_MEMORY_MB && spec.memoryMb <= 1 << 22))
    out.push({ field: "memoryMb", message: `memoryMb is a whole number of MiB from ${MIN_MEMORY_MB} up` });
  if (spec.pids !== undefined)
    out.push({
      field: "pids",
      message: "pids is refused: a Pod's pids limit is the node's (the kubelet's podPidsLimit), so it could not be held per computer",
    });
  if (spec.user !== undefined) {
    const problem = userProblem(spec.user);
    if (problem) out.push({ field: "user", message: problem });
  }
  if (spec.workdir !== undefined && (typeof spec.workdir !== "string" || !spec.workdir.startsWith("/") || /[\s\0]/.test(spec.workdir)))
    out.push({ field: "workdir", message: "workdir is an absolute path with no NUL or space" });
  const runtime = runtimeRefusal(spec.runtime, RUNTIMES, "Kubernetes");
  if (runtime) out.push(runtime);
  out.push(...gvisorRefusals(spec, capabilities.runtimes?.gvisor !== undefined));
  return out;
}
