// agentrun:index:Mount, the run's folder a Computer mounts at /workspace.
// kind "bind": a folder on this host, made when missing, owned by the computer's user, mode
// 0700, canonical; read back on refresh (gone: no id; owner or mode changed: drift, with the
// inputs read back so preview shows it field by field); removed on delete unless retained.
import { createHash } from "node:crypto";
import type { CheckFailure } from "@pulumi/pulumi/provider/index.js";
import { fail, ok, orThrow, type Result, ResultFailure } from "../../src/daemon/result.js";
import type { Context, Step, Stored } from "../resource.js";
import { resource, resourceOwner, unknownFields } from "../resource.js";
import { stackMakes } from "../stack-folders.js";
import { recordsPath, dropFolderRecord, readFolderRecord, writeFolderRecord } from "../folder-record.js";
import { UNKNOWN, unwrap, wrapDerived, type Props } from "../secrets.js";
import { z } from "zod";
import { bindPathProblem, MOUNT_KINDS } from "../../src/contract/mount.js";
import { fieldsOf } from "../inputs.js";
import { DEFAULT_PROVIDER } from "../../src/providers.js";
import { parseUser, processUser, userText, type User } from "../../src/contract/user.js";
import { FOLDER_MODE, folderDrift, healFolder, makeFolder, modeText, readFolder, removeEmptyParents, removeFolder } from "../run-folder.js";

const TYPE = "agentrun:index:Mount";
const MODE = modeText(FOLDER_MODE);
// Outputs derived from inputs of other names, so a secret input keeps them secret.
const DERIVED = { mount: ["kind", "path"], drift: ["path", "user"], owner: ["user"], made: [] } as const;

/** A Mount's inputs as a stack gives them. */
const Given = z.strictObject({
  kind: z.enum(MOUNT_KINDS).optional(),
  path: z.string(),
  user: z.string().optional(),
  retainOnDelete: z.boolean().optional(),
});
const INPUTS = fieldsOf(Given);
/** What check gives: a bind folder's, every field filled in, and the mode it writes (always 0700). */
const Checked = Given.required().extend({ kind: z.literal("bind"), mode: z.string() });
type Inputs = z.infer<typeof Checked>;
/** What the steps read of the stored state: the inputs, the folder's owner and mode as read, and whether this resource made it. */
const Stored = Given.extend({ owner: z.string(), mode: z.string(), made: z.boolean(), drift: z.array(z.string()) });
type State = Stored<z.infer<typeof Stored>>;

async function check(ctx: Context, _olds: Props, news: Props) {
  const { plain, secretKeys } = unwrap(news);
  const failures: CheckFailure[] = [];
  // check writes `mode`, and an import's inputs carry it back: it is ours, and only 0700.
  const { mode, ...given } = plain;
  if (mode !== undefined && mode !== MODE) failures.push({ property: "mode", reason: `${TYPE} has no field "mode"; a run folder's mode is always ${MODE}` });
  failures.push(...unknownFields(given, INPUTS, TYPE));

  const kind = given.kind ?? "bind";
  if (kind === "archil")
    failures.push({ property: "kind", reason: "a Mount of kind archil is not built yet; this plugin makes bind mounts (a folder on this host)" });
  else if (kind !== "bind" && kind !== UNKNOWN) failures.push({ property: "kind", reason: 'kind must be "bind" (a folder on this host)' });

  const path = given.path;
  if (typeof path !== "string" || path === "") failures.push({ property: "path", reason: "path is required: the run folder's absolute path on this host" });
  else if (path !== UNKNOWN) {
    const problem = bindPathProblem(path, { mayBeMissing: true });
    if (problem)
      failures.push({
        property: "path",
        reason: secretKeys.has("path")
          ? "the run folder's path (a secret) is refused: it must be absolute, canonical, with no link, NUL, comma, double quote or line break"
          : problem,
      });
  }

  const local = given.user === undefined ? await localUser(ctx) : ok(given.user);
  let user = local.ok ? local.value : undefined;
  let owner: User | undefined;
  if (!local.ok) failures.push({ property: "user", reason: local.error.message });
  else if (user !== UNKNOWN) {
    const parsed = parseUser(user);
    if (!parsed.ok) failures.push({ property: "user", reason: parsed.error.message });
    else [owner, user] = [parsed.value, userText(parsed.value)];
  }

  const retain = given.retainOnDelete ?? false;
  if (typeof retain !== "boolean" && retain !== UNKNOWN) failures.push({ property: "retainOnDelete", reason: "retainOnDelete must be true or false" });

  if (failures.length) return { failures };
  // A Computer on this folder waits for it (stack-folders.ts).
  if (kind === "bind" && typeof path === "string" && path !== UNKNOWN) stackMakes(path, owner === undefined ? {} : { owner });
  const inputs = { kind, path, user, mode: MODE, retainOnDelete: retain };
  return { inputs: wrapDerived(inputs, secretKeys) };
}

/**
 * The user a folder is given when none is declared: the local provider's computer user (on
 * Docker, its user setting, else this process's rule), known through the registry alone.
 */
async function localUser(ctx: Context): Promise<Result<unknown>> {
  const local = await ctx.vendor(DEFAULT_PROVIDER);
  if (!local.ok) return fail(local.error.code, `no user was declared, and the local provider's cannot be read: ${local.error.message}`);
  return ok(local.value.capabilities().defaults?.user ?? processUser());
}

/** A checked input's owner (check wrote it as uid:gid). */
function ownerOf(user: string): User {
  const owner = parseUser(user);
  if (!owner.ok) throw new ResultFailure({ ...owner.error, message: `the Mount's user was not checked: ${owner.error.message}` });
  return owner.value;
}

/** The outputs: `user` as declared, `owner` and `mode` as read from the folder, and the drift. */
function outputsOf(inputs: Inputs, state: { owner: User; mode: number }, made: boolean) {
  return {
    kind: inputs.kind,
    path: inputs.path,
    user: inputs.user,
    owner: userText(state.owner),
    mode: modeText(state.mode),
    retainOnDelete: inputs.retainOnDelete,
    made,
    mount: { kind: inputs.kind, path: inputs.path },
    drift: folderDrift(inputs.path, ownerOf(inputs.user), state),
  };
}

// An id is stored in clear, so a secret path is named by its hash; read finds the path in the
// (decrypted) outputs. Otherwise the id is the path, which is what `pulumi import` takes.
function idOf(path: string, secretKeys: Set<string>): string {
  return secretKeys.has("path") ? `mount-${createHash("sha256").update(path).digest("hex").slice(0, 16)}` : path;
}

/**
 * Whether an earlier create of this resource, cut off after its mkdir, made the folder; else
 * the claim is written (whether this create makes it) before anything is made.
 */
async function recordFolder(ctx: Context, path: string, secretPath: boolean): Promise<boolean> {
  const owner = resourceOwner(ctx);
  if (owner === undefined) return false;
  const prior = await readFolderRecord(owner);
  if (prior?.made && recordsPath(prior, path)) return true;
  await writeFolderRecord(owner, path, (await readFolder(path)) === undefined, secretPath);
  return false;
}

async function create(ctx: Context, { inputs, secretKeys }: Step<Inputs>) {
  const owner = ownerOf(inputs.user);
  const madeBefore = await recordFolder(ctx, inputs.path, secretKeys.has("path"));
  const made = orThrow(await makeFolder(inputs.path, owner));
  // The parents it made are kept in its record, for its delete to remove while empty.
  const recordOwner = resourceOwner(ctx);
  if (recordOwner !== undefined && made.made && made.parents.length > 0)
    await writeFolderRecord(recordOwner, inputs.path, true, secretKeys.has("path"), undefined, made.parents);
  const state = await readFolder(inputs.path);
  if (!state) throw new Error(`the run folder ${inputs.path} was made but is gone again`);
  return { id: idOf(inputs.path, secretKeys), outs: wrapDerived(outputsOf(inputs, state, made.made || madeBefore), secretKeys, DERIVED) };
}

// The Node provider server hands read the stored outputs only, so what was declared comes
// from them (`user`); an import has none, and then what is there is what was declared.
async function read(_ctx: Context, id: string, { old, secretKeys }: State) {
  const path = typeof old.path === "string" ? old.path : id;
  const state = await readFolder(path);
  if (!state) return {}; // gone: no id, and refresh drops it
  const owner = userText(state.owner);
  const declared = old.user !== undefined && parseUser(old.user).ok ? old.user : owner;
  const retainOnDelete = old.retainOnDelete === true;
  // The inputs as read back, so preview --refresh shows the owner and mode that changed.
  const inputs: Inputs = { kind: "bind", path, user: owner, mode: modeText(state.mode), retainOnDelete };
  const outs = outputsOf({ ...inputs, user: declared }, state, old.made === true);
  return { id, props: wrapDerived(outs, secretKeys, DERIVED), inputs: wrapDerived(inputs, secretKeys) };
}

async function diff(_ctx: Context, _id: string, { old: o }: State, n: Props) {
  const replaces = ["kind", "path"].filter((k) => n[k] !== UNKNOWN && o[k] !== n[k]);
  // The owner and mode are compared as read back (owner, mode), not as once declared.
  const updates = [
    ["owner", "user"],
    ["mode", "mode"],
    ["retainOnDelete", "retainOnDelete"],
  ].filter(([out, inp]) => n[inp!] !== UNKNOWN && o[out!] !== n[inp!]);
  const drifted = Array.isArray(o.drift) && o.drift.length > 0;
  return { changes: replaces.length + updates.length > 0 || drifted, replaces, deleteBeforeReplace: false };
}

async function update(_ctx: Context, _id: string, olds: State, { inputs, secretKeys }: Step<Inputs>) {
  orThrow(await healFolder(inputs.path, ownerOf(inputs.user)));
  const state = await readFolder(inputs.path);
  if (!state) throw new Error(`the run folder ${inputs.path} is gone`);
  return { outs: wrapDerived(outputsOf(inputs, state, olds.old.made === true), secretKeys, DERIVED) };
}

/**
 * What an up makes, for a preview: the folder as declared (an update heals its owner and mode), so
 * the `mount` a Computer takes is known, and a folder's drift replaces no computer on it.
 */
async function preview(_ctx: Context, { inputs, secretKeys }: Step<Inputs>, olds?: State) {
  const outs = outputsOf(inputs, { owner: ownerOf(inputs.user), mode: FOLDER_MODE }, olds === undefined ? false : olds.old.made === true);
  // Whether a create makes the folder is known only once it runs.
  return wrapDerived(olds === undefined ? { ...outs, made: UNKNOWN } : outs, secretKeys, DERIVED);
}

async function remove(ctx: Context, id: string, { old }: State) {
  const path = typeof old.path === "string" ? old.path : id;
  // A folder this resource did not make, or one declared retained, stays.
  const owner = resourceOwner(ctx);
  const claim = owner === undefined ? undefined : await readFolderRecord(owner);
  if (old.retainOnDelete !== true && old.made === true) {
    orThrow(await removeFolder(path));
    // The parents its create made, and only those, while empty.
    if (claim && recordsPath(claim, path)) await removeEmptyParents((claim.parents ?? []).filter((dir) => path.startsWith(`${dir}/`)));
  }
  // The claim goes with it, unless a replace's new folder (another path) holds it now.
  if (owner !== undefined && claim && recordsPath(claim, path)) await dropFolderRecord(owner);
}

export const mount = resource(TYPE, {
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
