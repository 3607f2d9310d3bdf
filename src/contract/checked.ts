// check's result at every vendor: its refusals together, else the spec with what the check
// parsed (the user, the allowlist in its normal form), which every later step takes.
import { normalAllowlist } from "../egress/list.js";
import type { CheckedSpec, CheckInput, ComputerSpec } from "./provider.js";
import { fail, ok, refuse, type Refusal, type Result } from "../daemon/result.js";
import { parseUser } from "./user.js";

/** A spec with each field a create needs (image, lifetimeMs, network): a vendor's check refuses each one missing. */
function isWhole(spec: CheckInput): spec is ComputerSpec {
  return typeof spec.image === "string" && typeof spec.lifetimeMs === "number" && spec.network !== undefined;
}

/** Each field a create needs that the spec lacks, in words naming it. */
function missingRefusals(spec: CheckInput): Refusal[] {
  const out: Refusal[] = [];
  if (typeof spec.image !== "string") out.push({ field: "image", message: "image is required: the image a computer starts from" });
  if (typeof spec.lifetimeMs !== "number") out.push({ field: "lifetimeMs", message: "lifetimeMs is required: how long the computer lives, in milliseconds" });
  if (spec.network === undefined) out.push({ field: "network", message: "network is required: none, open or { allow: [...] }" });
  return out;
}

/**
 * Every refusal as one invalid result; with none, the checked spec. A spec still lacking a field a
 * create needs (a vendor's check that let it through) is refused naming it, never passed on as whole.
 */
export function checkedSpec(spec: CheckInput, refusals: Refusal[]): Result<CheckedSpec> {
  const refused = refuse(refusals);
  if (!refused.ok) return refused;
  if (!isWhole(spec)) {
    const missing = missingRefusals(spec);
    return fail("invalid", missing.map((r) => r.message).join("; "), { field: missing[0]?.field ?? "spec", refusals: missing });
  }
  const checked: CheckedSpec = { spec };
  if (spec.user !== undefined) {
    const user = parseUser(spec.user);
    if (user.ok) checked.user = user.value;
  }
  if (typeof spec.network === "object" && "allow" in spec.network) checked.allow = normalAllowlist(spec.network.allow);
  return ok(checked);
}

/**
 * The refusals of a check of a partial spec (a preview's, whose unknown fields were left out):
 * every known field is checked whatever else is unknown, and a field left out is not refused for
 * its absence. One rule for every vendor's check (a computer's, a proxy's).
 */
export function knownRefusals(checked: Result<unknown>, unknown: ReadonlySet<string>): Refusal[] {
  if (checked.ok) return [];
  const all = checked.error.refusals ?? [{ field: checked.error.field ?? "", message: checked.error.message }];
  return all.filter((r) => !unknown.has(r.field.split(".")[0] ?? ""));
}

/**
 * A check of what is known of a spec (a preview's): `known` leaves out each field in `unknown`, whose
 * refusals are dropped, and a field it lacks otherwise is refused as missing. The check takes a
 * partial spec by its type (a vendor's check takes CheckInput, a proxy's ProxyCheckInput).
 */
export function checkKnown<S>(check: (spec: Partial<S>) => Result<unknown>, known: Partial<S>, unknown: ReadonlySet<string>): Refusal[] {
  return knownRefusals(check(known), unknown);
}
