// check(spec) of a browser, the same at every browser vendor: chromium, a lifetime within the
// vendor's floor and cap, network open, labels the vendor can carry and query, and nothing a
// browser session does not have (a size, a user, a workdir, a mount, a shared proxy). No vendor call.
import { checkLifetime } from "../../contract/lifetime.js";
import { labelRefusals } from "../../contract/labels.js";
import { runtimeRefusal } from "../../contract/runtime.js";
import type { CheckInput } from "../../contract/provider.js";
import type { Refusal } from "../../daemon/result.js";
import type { BrowserVendor } from "./vendor.js";
import { BROWSER_IMAGE, COMPUTER_LABEL, CREATE_LABEL } from "./labels.js";

const NOT_A_BROWSER = ["cpus", "memoryMb", "pids", "user", "workdir", "mount", "egress"] as const;

const KNOWN = new Set(["image", "lifetimeMs", "network", "labels", "kind", "runtime", ...NOT_A_BROWSER]);

export function checkBrowserSpec(spec: CheckInput, vendor: Pick<BrowserVendor, "name" | "minLifetimeMs" | "labelProblem" | "capabilities">): Refusal[] {
  const refusals: Refusal[] = [];
  if (typeof spec !== "object" || spec === null) return [{ field: "spec", message: "a spec is an object: { image, lifetimeMs, network, labels? }" }];
  if (spec.image !== BROWSER_IMAGE) {
    refusals.push({
      field: "image",
      message: `a ${vendor.name} browser's image is ${BROWSER_IMAGE}: the vendor's own browser (ask for image "${BROWSER_IMAGE}")`,
    });
  }
  const lifetime = checkLifetime(spec.lifetimeMs, vendor.capabilities());
  if (lifetime) refusals.push(lifetime);
  else if (typeof spec.lifetimeMs === "number" && spec.lifetimeMs < vendor.minLifetimeMs) {
    refusals.push({ field: "lifetimeMs", message: `lifetimeMs is below ${vendor.name}'s floor of ${vendor.minLifetimeMs} ms: ask for at least that` });
  }
  if (spec.network !== "open") {
    refusals.push({ field: "network", message: `a ${vendor.name} browser's network is open alone: the vendor gives no other (ask for network "open")` });
  }
  if (spec.kind !== undefined && spec.kind !== "browser") refusals.push({ field: "kind", message: `${vendor.name} makes browsers, not ${String(spec.kind)}` });
  for (const field of NOT_A_BROWSER) {
    if (spec[field] !== undefined) refusals.push({ field, message: `${field} is not something a ${vendor.name} browser has: leave it out` });
  }
  for (const field of Object.keys(spec)) {
    if (!KNOWN.has(field)) refusals.push({ field, message: `${field} is not a field of a computer's spec` });
  }
  if (spec.labels !== undefined) refusals.push(...browserLabelRefusals(spec.labels, vendor));
  const runtime = runtimeRefusal(spec.runtime, ["runc"], vendor.name);
  if (runtime) refusals.push(runtime);
  return refusals;
}

/** The shared label rules, the create label refused as the provider's own, and the vendor's own rule. */
function browserLabelRefusals(labels: unknown, vendor: Pick<BrowserVendor, "labelProblem">): Refusal[] {
  const refusals = labelRefusals(labels, COMPUTER_LABEL);
  if (refusals.length > 0) return refusals;
  for (const [key, value] of Object.entries(labels as Record<string, string>)) {
    if (key === CREATE_LABEL)
      refusals.push({ field: "labels", message: `the label ${CREATE_LABEL} is the provider's own (it finds what a create made); choose another key` });
    const problem = vendor.labelProblem(key, value);
    if (problem) refusals.push({ field: "labels", message: problem });
  }
  return refusals;
}
