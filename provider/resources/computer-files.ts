// agentrun:index:ComputerFiles, files loaded into a computer's home: a map of home-relative
// destinations to assets and archives, under `destination` (default Downloads). check refuses an
// absolute path, one that leaves the home, or a NUL, naming it. create sends them in batches of at
// most 64 MiB, each file whole (src/inside/load.ts), and reads each batch back by sha256 and mode.
// read: each file read back from inside; one changed or removed is drift, which `up` writes again.
// delete removes the files it wrote and never others.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { asset, fieldsOf } from "../inputs.js";
import type { CheckFailure } from "@pulumi/pulumi/provider/index.js";
import { driftOf, readBack, removeFiles, syncFiles, type FileReadBack, type FileToLoad } from "../../src/inside/load.js";
import { canonical } from "../../src/contract/canonical.js";
import { orThrow } from "../../src/daemon/result.js";
import type { Context, Step, Stored } from "../resource.js";
import { resource, unknownFields } from "../resource.js";
import { UNKNOWN, hasUnknown, isObject, unwrap, wrapDerived, type Props } from "../secrets.js";
import type { FieldChange, FieldDiff } from "../server.js";
import { destinationOf, plan, toLoad } from "./computer-files-assets.js";
import { checkComputer, inComputer, WRITTEN } from "./computer-step.js";

const TYPE = "agentrun:index:ComputerFiles";
const DEFAULT_DESTINATION = "Downloads";
// Sending is bounded by the batches' size, not by a step: 150 MiB takes seconds, a slow host minutes.
const LOAD_MS = 30 * 60_000;
const STEP_MS = 2 * 60_000;
// Outputs derived from inputs of other names, so secret files keep them secret.
const DERIVED = { written: ["files"], drift: ["files"], sources: ["files"] } as const;

/** A ComputerFiles' inputs as a stack gives them. */
const Given = z.strictObject({
  computer: z.string(),
  provider: z.string().optional(),
  files: z.record(z.string(), asset()),
  destination: z.string().optional(),
});
const INPUTS = fieldsOf(Given);
/** What check gives: the provider and the destination filled in. */
const Checked = Given.required();
type Inputs = z.infer<typeof Checked>;
/** What the steps read of the stored state: the inputs, the files written, their sources and drift. */
const Stored = Given.extend({ written: WRITTEN, sources: z.record(z.string(), z.string()), drift: z.array(z.string()) });
type State = Stored<z.infer<typeof Stored>>;
type Written = Record<string, FileReadBack>;

async function check(ctx: Context, _olds: Props, news: Props) {
  const { plain, secretKeys } = unwrap(news);
  const failures: CheckFailure[] = unknownFields(plain, INPUTS, TYPE);
  const { computer, provider } = await checkComputer(ctx, plain, failures);
  let destination = plain.destination ?? DEFAULT_DESTINATION;
  if (destination !== UNKNOWN) {
    const d = destinationOf(destination);
    if (!d.ok) failures.push({ property: "destination", reason: d.error.message });
    else destination = d.value;
  }
  const files = plain.files;
  if (typeof files !== "object" || files === null || Array.isArray(files) || Object.keys(files).length === 0) {
    if (files !== UNKNOWN)
      failures.push({
        property: "files",
        reason: "files is required: a map of home-relative paths to assets or archives (fn::stringAsset, fn::fileAsset, fn::fileArchive)",
      });
  } else if (typeof destination === "string" && destination !== UNKNOWN) {
    // Each entry known now, whatever else is unknown (a preview's).
    const planned = await plan(Object.fromEntries(Object.entries(files).filter(([, v]) => !hasUnknown(v))), destination);
    if (!planned.ok) for (const r of planned.error.refusals ?? []) failures.push({ property: "files", reason: r.message });
  }
  if (failures.length) return { failures };
  return { inputs: wrapDerived({ computer, provider, files, destination }, secretKeys) };
}

/** The files the inputs name, hashed, ready to send. */
async function wanted(inputs: Inputs): Promise<FileToLoad[]> {
  return toLoad(orThrow(await plan(inputs.files, inputs.destination)));
}

/**
 * The engine's hash of each entry of files (sha256 of an asset's bytes, or of an archive's): diff
 * is given hashes alone, never contents, so what was loaded is known by them. An entry with no
 * hash is "" and never equal, so it is written again.
 */
export function sourcesOf(files: Props): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([k, v]) => [k, isObject(v) && typeof v.hash === "string" ? v.hash : ""]));
}

function outputsOf(inputs: Partial<Inputs>, written: Written, drift: string[], sources: Record<string, string>): Props {
  return { computer: inputs.computer, provider: inputs.provider, destination: inputs.destination, sources, written, drift };
}

/** The files loaded in batches, the ones already there as wanted left as they are. */
async function put(ctx: Context, inputs: Inputs, remove: readonly string[]): Promise<Written> {
  const files = await wanted(inputs);
  const say = ctx.say;
  const onBatch = (i: number, of: number, bytes: number) =>
    say?.(`loading files into ${inputs.computer}: batch ${i} of ${of} (${(bytes / 2 ** 20).toFixed(1)} MiB)`);
  return orThrow(await inComputer(ctx, inputs, LOAD_MS, (session, signal) => syncFiles(session, files, remove, { signal, onBatch })));
}

async function create(ctx: Context, { inputs, secretKeys }: Step<Inputs>) {
  const written = await put(ctx, inputs, []);
  return { id: `files-${randomBytes(8).toString("hex")}`, outs: wrapDerived(outputsOf(inputs, written, [], sourcesOf(inputs.files)), secretKeys, DERIVED) };
}

async function read(ctx: Context, id: string, { old, secretKeys }: State) {
  const written = old.written ?? {};
  const read = await inComputer(ctx, old, STEP_MS, (s, signal) => readBack(s, Object.keys(written), { signal }));
  if (!read.ok && read.error.code === "gone") return {}; // the computer is gone, and its files with it
  const drift = driftOf(written, orThrow(read));
  return { id, props: wrapDerived(outputsOf(old, written, drift, old.sources ?? {}), secretKeys, DERIVED) };
}

/** The sources an up will hold: known once every entry's hash is (the engine hashes each asset at preview too). */
function sourcesWanted(files: unknown): Record<string, string> | undefined {
  if (hasUnknown(files) || !isObject(files)) return undefined;
  const want = sourcesOf(files);
  return Object.values(want).includes("") ? undefined : want;
}

/** Each changed field by name, as the plan's line shows it: files, destination, or drift (a file changed inside). */
async function diff(_ctx: Context, _id: string, { old: o }: State, n: Props): Promise<FieldDiff> {
  // A computer still unknown at preview is one made again: its files go in again too.
  const replaces = (["computer", "provider"] as const).filter((k) => o[k] !== n[k]);
  const want = sourcesWanted(n.files);
  const changed: Record<string, FieldChange> = Object.fromEntries(replaces.map((k) => [k, "update-replace" as const]));
  if (!want || canonical(want) !== canonical(o.sources ?? {})) changed.files = "update";
  if (n.destination !== o.destination) changed.destination = "update";
  if ((o.drift?.length ?? 0) > 0) changed.drift = "update";
  return { changes: Object.keys(changed).length > 0, replaces, deleteBeforeReplace: false, detailedDiff: changed };
}

/**
 * What an up makes, for a preview: the sources are the declared files' hashes, known at preview,
 * so a command triggered by them is run again only when the files themselves change, never for a
 * file healed inside. What is written is known once it is.
 */
async function preview(_ctx: Context, { inputs, secretKeys, raw }: Step<Inputs>) {
  const sources = sourcesWanted(inputs.files);
  if (!sources) return raw;
  return wrapDerived({ ...outputsOf(inputs, {}, [], sources), written: UNKNOWN }, secretKeys, DERIVED);
}

async function update(ctx: Context, _id: string, olds: State, { inputs, secretKeys }: Step<Inputs>) {
  const before = Object.keys(olds.old.written ?? {});
  const written = await put(ctx, inputs, before);
  return { outs: wrapDerived(outputsOf(inputs, written, [], sourcesOf(inputs.files)), secretKeys, DERIVED) };
}

async function remove(ctx: Context, _id: string, { old }: State) {
  const removed = await inComputer(ctx, old, STEP_MS, (s, signal) => removeFiles(s, Object.keys(old.written ?? {}), { signal }));
  if (!removed.ok && removed.error.code === "gone") return; // gone with its computer
  orThrow(removed);
}

export const computerFiles = resource(TYPE, {
  given: Given,
  inputs: INPUTS,
  checked: Checked,
  stored: Stored,
  check,
  diff,
  create,
  read,
  update,
  preview,
  delete: remove,
});
