// A Modal computer's tags: the provider's four (computer, name, deadline, the recorded spec)
// beside the caller's labels, and the spec read back from them. Modal reads back no image,
// size or network, so what create recorded in a tag only the host's token writes stands for them.
import { z } from "zod";
import type { NetworkReadBack } from "../contract/provider.js";
import { COMPUTER_TAG, DEADLINE_TAG, NAME_PATTERN, NAME_TAG, SPEC_TAG } from "./constants.js";

/** What create recorded: the spec as made, with the user and workdir it was given. */
export const RecordedSpec = z.strictObject({
  image: z.string().min(1),
  user: z.string(),
  network: z.union([z.literal("none"), z.literal("open"), z.strictObject({ allow: z.array(z.string()) })]),
  workdir: z.string(),
  cpus: z.number().optional(),
  memoryMb: z.number().optional(),
  kind: z.literal("linux"),
});
export type RecordedSpec = z.infer<typeof RecordedSpec>;

export function tagsOf(name: string, deadline: string, recorded: RecordedSpec, labels: Record<string, string> = {}): Record<string, string> {
  return { ...labels, [COMPUTER_TAG]: "1", [NAME_TAG]: name, [DEADLINE_TAG]: deadline, [SPEC_TAG]: JSON.stringify(recorded) };
}

/** The caller's labels alone: the tags less the provider's own namespace. */
export function labelsOf(tags: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tags).filter(([k]) => k !== COMPUTER_TAG && !k.startsWith(`${COMPUTER_TAG}.`)));
}

export interface OwnTags {
  name: string;
  deadline: string;
  spec: RecordedSpec;
}

/** The provider's tags read back, or why the sandbox is not one of this provider's computers. */
export function ownTagsOf(tags: Record<string, string>): { ok: true; value: OwnTags } | { ok: false; why: string } {
  if (tags[COMPUTER_TAG] !== "1") return { ok: false, why: `it has no ${COMPUTER_TAG}=1 tag` };
  const name = tags[NAME_TAG];
  if (name === undefined || !NAME_PATTERN.test(name)) return { ok: false, why: `its ${NAME_TAG} tag is not a computer's name` };
  const deadline = tags[DEADLINE_TAG];
  if (deadline === undefined || Number.isNaN(Date.parse(deadline)) || new Date(deadline).toISOString() !== deadline) {
    return { ok: false, why: `its ${DEADLINE_TAG} tag is not the ISO time the provider writes` };
  }
  let spec: unknown;
  try {
    spec = JSON.parse(tags[SPEC_TAG] ?? "");
  } catch {
    return { ok: false, why: `its ${SPEC_TAG} tag is not JSON` };
  }
  const parsed = RecordedSpec.safeParse(spec);
  if (!parsed.success) return { ok: false, why: `its ${SPEC_TAG} tag is not a spec this provider records` };
  return { ok: true, value: { name, deadline, spec: parsed.data } };
}

/** Tags read back against the tags given: one sentence per key that differs, none when exact. */
export function tagDrift(given: Record<string, string>, read: Record<string, string>): string[] {
  const out: string[] = [];
  for (const key of new Set([...Object.keys(given), ...Object.keys(read)])) {
    if (!(key in read)) out.push(`the tag ${key} is missing`);
    else if (!(key in given)) out.push(`the tag ${key} was not given`);
    else if (given[key] !== read[key]) out.push(`the tag ${key} reads another value than was given`);
  }
  return out;
}

export function networkOf(spec: RecordedSpec): NetworkReadBack {
  return spec.network;
}
