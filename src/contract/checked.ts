// check's result at every vendor: its refusals together, else the spec with what the check
// parsed (the user, the allowlist in its normal form), which every later step takes.
import { normalAllowlist } from "../egress/list.js";
import type { CheckedSpec, ComputerSpec } from "./provider.js";
import { ok, refuse, type Refusal, type Result } from "../daemon/result.js";
import { parseUser } from "./user.js";

/** Every refusal as one invalid result; with none, the checked spec. */
export function checkedSpec(spec: ComputerSpec, refusals: Refusal[]): Result<CheckedSpec> {
  const refused = refuse(refusals);
  if (!refused.ok) return refused;
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
 * refusals are dropped, and a field it lacks otherwise is refused as missing. A check reads the
 * spec it is given field by field, as a caller's untyped value, so a partial one is its input too.
 */
export function checkKnown<S>(check: (spec: S) => Result<unknown>, known: Partial<S>, unknown: ReadonlySet<string>): Refusal[] {
  return knownRefusals(check(known as S), unknown);
}
