// The suite by kind: which cases a kind runs (kindCases, casesFor) and whether a provider passes
// it (kindVerdict). Exported, so the serve side reads the same table.
import { SETTING_KINDS, type SettingKind, SETTING_KIND_NAMES, servingRefusals } from "../contract/kinds.js";
import { MACHINE_KINDS, type MachineKind } from "../daemon/protocol.js";
import type { Capabilities } from "../contract/provider.js";
import { type RunShape, settingKindOf } from "../kits/conformance/module.js";
import type { ConformanceCase } from "./case.js";
import { browserCases, conformanceCases } from "./cases/index.js";
import { type CaseResult, type Cleanup, cleanupClean, type KindVerdict } from "./report.js";

export { type RunShape, settingKindOf };

/** A setting kind, or a machine kind standing for the setting kind it is (linux is a sandbox). */
export type KindName = SettingKind | MachineKind;
export const KIND_NAMES: readonly KindName[] = [...new Set<KindName>([...SETTING_KIND_NAMES, ...MACHINE_KINDS])];

/** Why a name cannot be run as a kind, in words; undefined when it can. */
export function kindProblem(kind: string): string | undefined {
  const setting = settingKindOf(kind);
  if (setting === undefined) return `--kind takes ${KIND_NAMES.filter((k) => k !== "none").join(", ")}; ${JSON.stringify(kind.slice(0, 40))} is none of them`;
  if (setting === "none") return "--kind none is no computer (the run's folder only), so there is nothing to run conformance on";
  return undefined;
}

/** A browser's own cases, every other kind the suite's. */
export function casesFor(kind: MachineKind): readonly ConformanceCase[] {
  return kind === "browser" ? browserCases : conformanceCases;
}

/** Every case whose groups the kind requires or allows; those that need no group among them. Throws for none. */
export function kindCases(kind: KindName): ConformanceCase[] {
  const problem = kindProblem(kind);
  if (problem) throw new TypeError(problem);
  const spec = SETTING_KINDS[settingKindOf(kind)!];
  const allowed = new Set<string>([...spec.required, ...spec.optional]);
  return casesFor(spec.machineKinds[0]!).filter((c) => (c.needs.groups ?? []).every((g) => allowed.has(g)));
}

/**
 * Whether a run passes a kind: the provider serves it, no case failed, every required group has a
 * passing case, no Core case skipped (a Core case of a group the computer does not declare is
 * optional and skips freely), and nothing was left behind.
 */
export function kindVerdict(
  kind: KindName,
  capabilities: Pick<Capabilities, "kind" | "groups">,
  results: readonly CaseResult[],
  cleanup: Cleanup,
  cases: readonly ConformanceCase[] = casesFor(capabilities.kind),
): KindVerdict {
  const setting = settingKindOf(kind);
  if (setting === undefined || setting === "none") return { kind, verdict: "fail", reasons: [kindProblem(kind)!] };
  const reasons: string[] = [];
  const refusals = servingRefusals(capabilities, setting);
  if (refusals.length > 0) reasons.push(`the provider does not serve ${kind}: ${refusals.join("; ")}`);
  const failed = results.filter((r) => r.status === "fail").map((r) => r.id);
  if (failed.length > 0) reasons.push(`${failed.length} case${failed.length === 1 ? "" : "s"} failed (${failed.join(", ")})`);
  const byId = new Map(cases.map((c) => [c.id, c]));
  for (const group of SETTING_KINDS[setting].required) {
    const passing = results.some((r) => r.status === "pass" && (byId.get(r.id)?.needs.groups ?? []).includes(group));
    if (!passing) reasons.push(`no case of the required group ${group} passed`);
  }
  const skipped = results.filter((r) => r.status === "skip" && r.level === "core").map((r) => r.id);
  if (skipped.length > 0) reasons.push(`Core cases skipped: ${skipped.join(", ")}`);
  if (!cleanupClean(cleanup)) reasons.push("the run left something behind (see cleanup)");
  return { kind, verdict: reasons.length === 0 ? "pass" : "fail", reasons };
}
