// check(spec) for Docker: every refusal together, each naming its field, with no Docker call.
// Once the host has been read, its missing enforcement and what it cannot give join them.
import { labelRefusals } from "../contract/labels.js";
import { checkLifetime } from "../contract/lifetime.js";
import { checkAllowlist } from "../egress/list.js";
import { checkMount } from "../contract/mount.js";
import type { Capabilities, CheckInput, ComputerSpec } from "../contract/provider.js";
import type { Refusal } from "../daemon/result.js";
import { userProblem } from "../contract/user.js";
import { remapProblem } from "./bind.js";
import { runtimeRefusal } from "../contract/runtime.js";
import { gvisorHostRefusals, gvisorSpecRefusals } from "./runtime.js";
import { browserRefusals } from "./browser-check.js";
import { COMPUTER_LABEL } from "./constants.js";
import { PROXY_PATTERN } from "./egress-request.js";
import { engineMajor, type Host } from "./host.js";
import { elsewhereWords, type RemoteEngine, remoteBindRefusal } from "./remote.js";

const FIELDS = new Set(["image", "lifetimeMs", "network", "labels", "mount", "cpus", "memoryMb", "pids", "user", "workdir", "kind", "egress", "runtime"]);

export interface CheckContext {
  capabilities: Capabilities;
  /** The host as docker info read it, once it has been. */
  host?: Host;
  /** The volume option's root, when the provider runs in a container. */
  volumeRoot?: string;
  /** The test-only seam's range (the egress option's testNetwork), which a listed CIDR may be in. */
  testNetwork?: string;
  /** The engine, when it is another host's. */
  remote?: RemoteEngine;
  /** Whether egress.hostAddresses names the Docker host's addresses. */
  hostAddresses?: boolean;
  /** The bind folder is made before the create (CheckOptions): missing now is no refusal. */
  mountMadeFirst?: boolean;
}

function hasNul(value: string): boolean {
  return value.includes("\0");
}

/** Every refusal: the spec's own, then (once the host has been read) the host's. */
export function checkSpec(spec: CheckInput, context: CheckContext): Refusal[] {
  if (typeof spec !== "object" || spec === null) return [{ field: "spec", message: "a spec is an object with image, lifetimeMs and network" }];
  const own = specRefusals(spec, context);
  // A field refused for its own value is not refused again for what the host cannot give it.
  const host = context.host ? hostRefusals(spec, context.host, context.volumeRoot).filter((r) => !own.some((o) => o.field === r.field)) : [];
  return [...own, ...host];
}

/** The spec's fields: known, and each within what Docker takes. */
function specRefusals(spec: CheckInput, context: CheckContext): Refusal[] {
  const out: Refusal[] = [];
  const fields = spec as unknown as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!FIELDS.has(key)) out.push({ field: key, message: `${key} is not a field Docker supports (it takes ${[...FIELDS].join(", ")})` });
  }
  if (typeof spec.image !== "string" || spec.image.length === 0) {
    if ((spec.kind ?? context.capabilities.kind) !== "browser") out.push({ field: "image", message: "image is required: the image a computer starts from" });
  } else if (hasNul(spec.image)) out.push({ field: "image", message: "image has a NUL byte" });

  const lifetime = checkLifetime(spec.lifetimeMs, context.capabilities);
  if (lifetime) out.push(lifetime);
  out.push(...networkRefusals(spec, context));

  if (spec.kind !== undefined && spec.kind !== "linux" && spec.kind !== "desktop" && spec.kind !== "browser") {
    out.push({
      field: "kind",
      message: `Docker makes linux, desktop and browser computers, not ${String(spec.kind).slice(0, 40)}; ask for kind linux, desktop or browser`,
    });
  }
  // A browser's own rules; a field refused for them is not refused again below.
  const browser = (spec.kind ?? context.capabilities.kind) === "browser" ? browserRefusals(spec) : [];
  out.push(...browser);
  if (spec.labels !== undefined) out.push(...labelRefusals(spec.labels, COMPUTER_LABEL));
  const mine = new Set(browser.map((r) => r.field));
  if (spec.mount !== undefined && !mine.has("mount")) out.push(...mountRefusals(spec.mount, context));
  out.push(...sizeRefusals(spec).filter((r) => !mine.has(r.field)));
  if (spec.user !== undefined && !mine.has("user")) {
    const problem = userProblem(spec.user);
    if (problem) out.push({ field: "user", message: problem });
  }
  if (spec.workdir !== undefined && !mine.has("workdir")) {
    if (typeof spec.workdir !== "string" || !spec.workdir.startsWith("/") || hasNul(spec.workdir)) {
      out.push({ field: "workdir", message: "workdir is an absolute path with no NUL" });
    }
  }
  const runtime = runtimeRefusal(spec.runtime, ["runc", "gvisor"], "Docker");
  if (!mine.has("runtime")) out.push(...(runtime ? [runtime] : gvisorSpecRefusals(spec)));
  return out;
}

/** The network and the shared proxy a computer joins. */
function networkRefusals(spec: CheckInput, context: CheckContext): Refusal[] {
  const out: Refusal[] = [];
  if (spec.network === undefined) out.push({ field: "network", message: "network is required: none, open or { allow: [...] }" });
  else if (typeof spec.network === "object" && spec.network !== null && "allow" in spec.network) {
    // Joining a shared proxy, an empty list is that proxy's, whatever it is now.
    const theProxys = spec.egress !== undefined && Array.isArray(spec.network.allow) && spec.network.allow.length === 0;
    const list = checkAllowlist(spec.network.allow, context.testNetwork === undefined ? {} : { testNetwork: context.testNetwork });
    if (!list.ok && !theProxys) for (const r of list.refusals) out.push({ field: "network", message: `network.allow: ${r.message}` });
    if (Object.keys(spec.network).some((k) => k !== "allow")) out.push({ field: "network", message: "an allowlist is { allow: [...] } and nothing else" });
    // The proxy refuses the Docker host's own addresses, and this machine's interfaces are not them.
    if (context.remote && !context.hostAddresses)
      out.push({
        field: "network",
        message: `${elsewhereWords(context.remote.engine)}, and its addresses cannot be read from here, so an allowlist's proxy could not refuse them: give egress.hostAddresses (that host's IP addresses, its public and NAT'd ones too), or ask for none or open`,
      });
  } else if (spec.network !== "none" && spec.network !== "open") {
    out.push({ field: "network", message: "network is none, open or an allowlist ({ allow: [...] })" });
  }
  if (spec.egress !== undefined) {
    if (typeof spec.egress !== "string" || !PROXY_PATTERN.test(spec.egress))
      out.push({ field: "egress", message: "egress names a shared egress proxy, proxy-<12 hex digits>, as proxies.make gives it" });
    // A network left out is refused as such (or not yet known, a preview's): no second refusal here.
    if (spec.network !== undefined && !(typeof spec.network === "object" && spec.network !== null && "allow" in spec.network))
      out.push({
        field: "egress",
        message: "a computer joins an egress proxy with network { allow: [] } (the proxy's list); with none or open it has no proxy to join",
      });
  }
  return out;
}

/** The run folder: checkMount's rule, and below the volume's root with the volume option. */
function mountRefusals(mount: NonNullable<ComputerSpec["mount"]>, context: CheckContext): Refusal[] {
  const refusals = checkMount(mount, context.capabilities.mount, { elsewhere: context.remote !== undefined, mayBeMissing: context.mountMadeFirst === true });
  const path = (mount as { path?: unknown }).path;
  if (refusals.length === 0 && typeof path === "string" && context.remote) {
    const remote = remoteBindRefusal(path, context.remote);
    if (remote) refusals.push(remote);
  }
  const root = context.volumeRoot;
  if (refusals.length === 0 && typeof path === "string" && root !== undefined && !(path.startsWith(`${root}/`) && path !== root)) {
    refusals.push({
      field: "mount.path",
      message: `the run folder ${path} is not below the volume's root ${root}; with the volume option a run folder must be inside the volume`,
    });
  }
  return refusals;
}

/** cpus, memoryMb and pids within what Docker takes. */
function sizeRefusals(spec: CheckInput): Refusal[] {
  const out: Refusal[] = [];
  if (
    spec.cpus !== undefined &&
    !(typeof spec.cpus === "number" && spec.cpus > 0 && Number.isInteger(spec.cpus * 100_000) && spec.cpus * 100_000 >= 1_000 && spec.cpus <= 1024)
  ) {
    out.push({ field: "cpus", message: "cpus is a number of CPUs from 0.01 to 1024, in steps of 0.00001" });
  }
  if (spec.memoryMb !== undefined && !(Number.isInteger(spec.memoryMb) && spec.memoryMb >= 6 && spec.memoryMb <= 1 << 24)) {
    out.push({ field: "memoryMb", message: "memoryMb is a whole number of MiB from 6 (Docker's least) up" });
  }
  if (spec.pids !== undefined && !(Number.isInteger(spec.pids) && spec.pids >= 1 && spec.pids <= 4_194_304)) {
    out.push({ field: "pids", message: "pids is a whole number from 1 to 4194304 (0 or less would be no limit)" });
  }
  return out;
}

/**
 * What the host cannot give this spec: its missing enforcement, a bind or an allowlist on a host
 * that remaps user ids, the volume option on an engine older than 26. No parse of the spec's
 * fields: a checked spec's shape is known.
 */
export function hostRefusals(spec: CheckInput, host: Host, volumeRoot: string | undefined): Refusal[] {
  const out: Refusal[] = [];
  for (const lack of host.lacks) out.push({ field: "host", message: lack });
  out.push(...gvisorHostRefusals(spec, host.runtimes));
  // The computer's cpus are a CFS quota, which Docker sets past the host's CPUs without a word
  // (its --cpus refuses them): refused here in its terms.
  if (typeof spec.cpus === "number" && host.cpus !== undefined && spec.cpus > host.cpus)
    out.push({ field: "cpus", message: `cpus is ${spec.cpus}, more than this Docker host's ${host.cpus} CPUs (docker info): ask for at most ${host.cpus}` });
  if (spec.mount !== undefined) {
    const remap = remapProblem(host);
    if (remap) out.push({ field: "host", message: remap });
  }
  if (typeof spec.network === "object" && spec.network !== null && host.remap) {
    out.push({
      field: "host",
      message: `this Docker host remaps user ids (${host.remap}), so the egress volume's owner and the proxy's user are host ids the computer's user does not map to; an allowlist is refused here, and the provider does not guess the mapping: ask for none or open, or use a host without remapping`,
    });
  }
  if (volumeRoot !== undefined) {
    const major = engineMajor(host);
    if (major === undefined || major < 26) {
      out.push({
        field: "host",
        message: `the volume option mounts subpaths of a volume (volume-subpath), which needs Docker Engine 26 or later; this Docker host runs ${host.engine ? `Engine ${host.engine}` : "an engine that reports no version"}: upgrade it, or run the provider on the Docker host itself without the volume option`,
      });
    }
  }
  return out;
}
