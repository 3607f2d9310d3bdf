// agentrun:index:Computer, one computer at the vendor its provider names (Docker by default), made exactly as declared.
// create: the library's create, which ends with the drift check (a refusal fails the step in its
// words, with nothing left). read: the computer found by its vendor id (kept in state), never by
// its name alone; gone → no id; drifted (renamed by hand included) → the outputs and inputs as
// read back, and `drift` naming each mismatch. diff: what the vendor fixes at create is a
// replace, and so is a stopped or drifted computer; one whose shared egress proxy alone is down is
// an update that reads it back once the proxy is made again. delete: release "delete" by the vendor id.
import { z } from "zod";
import { screenOf } from "../../src/contract/screen.js";
import type { CheckInput, ComputerProvider, ComputerRef, ComputerSpec, NetworkPolicy, ReadBack, SpecDefaults } from "../../src/contract/provider.js";
import type { Hello } from "../../src/daemon/protocol.js";
import { canonical } from "../../src/contract/canonical.js";
import { stoppedWords } from "../../src/contract/lifetime.js";
import { ownerLabel } from "../../src/contract/labels.js";
import { DEFAULT_PROVIDER } from "../../src/providers.js";
import { ResultFailure, orThrow } from "../../src/daemon/result.js";
import { normalUser } from "../../src/contract/user.js";
import { checkKnown } from "../../src/contract/checked.js";
import { madeByStack, unwritableFolder } from "../stack-folders.js";
import type { Context, Step, Stored } from "../resource.js";
import type { FieldChange, FieldDiff } from "../server.js";
import { fieldsOf, isField, strings } from "../inputs.js";
import { ownDrift, proxyDrift } from "./computer-proxy-drift.js";
import { bounded, resource, resourceOwner, unknownFields, vendorOf } from "../resource.js";
import { whileWaiting } from "../progress.js";
import { defaultImage, machineKindOf } from "./computer-image.js";
import { declaredState, forkAndPauseRefusals, putState, runStateRefusal, stateMoves, stateWords, withoutStateWords } from "./computer-state.js";
import { RUN_STATES } from "../../src/contract/state.js";
import { callerLabels, declaredLabels, defaultsOf, inputsReadBack, withoutUndefined, type Declared } from "./computer-read-back.js";
import { UNKNOWN, hasUnknown, isObject, unwrap, wrapDerived, type Props } from "../secrets.js";

export const TYPE = "agentrun:index:Computer";
// How long one step may wait on the vendor (an image built at create is the longest).
const CREATE_MS = 15 * 60_000;
const STEP_MS = 2 * 60_000;
const HOST_MS = 10_000;

/** A Computer's inputs as a stack gives them (a Fleet's and a WarmPool's template too). */
export const GIVEN = z.strictObject({
  provider: z.string().min(1).optional(),
  image: z.string().min(1).optional(),
  lifetimeMs: z.number(),
  network: z.enum(["none", "open", "allow"]).optional(),
  allow: z.array(z.string()).optional(),
  // A Mount makes a bind folder, the one kind this takes: an archil mount has no path.
  mount: z.strictObject({ kind: z.literal("bind"), path: z.string() }).optional(),
  labels: strings().optional(),
  cpus: z.number().positive().optional(),
  memoryMb: z.number().int().positive().optional(),
  pids: z.number().int().positive().optional(),
  user: z.string().min(1).optional(),
  workdir: z.string().min(1).optional(),
  kind: z.enum(["linux", "desktop", "browser", "phone"]).optional(),
  egress: z.strictObject({ proxy: z.string().min(1), user: z.string().min(1) }).optional(),
  state: z.enum(RUN_STATES).optional(),
  runtime: z.enum(["runc", "gvisor"]).optional(),
});
export const INPUTS = fieldsOf(GIVEN);
/** What each field takes, in words: a value of the wrong shape is refused with what to ask for, never zod's stock words. */
const TAKES: Record<(typeof INPUTS)[number], string> = {
  provider: `a provider's id, such as "${DEFAULT_PROVIDER}"`,
  image: "an image's name, such as debian:bookworm-slim",
  lifetimeMs: "a number of milliseconds, such as 600000 (10 minutes)",
  network: '"none", "open" or "allow"',
  allow: 'a list of the names and CIDRs the computer may reach, such as ["pypi.org", "10.1.0.0/16"]',
  mount: 'a Mount\'s mount output ({ kind: "bind", path })',
  labels: "an object of string values",
  cpus: "a number of CPUs above 0, such as 0.5 or 2",
  memoryMb: "a whole number of MiB above 0, such as 512",
  pids: "a whole number above 0, such as 256",
  user: 'a user as uid:gid (or uid), such as "1000:1000"',
  workdir: "an absolute path, such as /work",
  kind: '"linux", "desktop", "browser" or "phone"',
  egress: "an EgressProxy's egress output",
  state: '"running" or "paused"',
  runtime: '"runc" or "gvisor"',
};
/** What each computer of a Fleet or a WarmPool is made as: a Computer's inputs, each optional (the template's type). */
export const TEMPLATE = GIVEN.partial();
// Everything a computer is made with is fixed at create: a change is a replace. Its state is a pause or a resume.
const FIXED = INPUTS.filter((k) => k !== "state");
// What check parses: lifetimeMs left out goes on to the provider's check, which says so in its words.
const Given = GIVEN.partial({ lifetimeMs: true });
/** What check gives: the provider, the network and the labels filled in (the provider's defaults too, where it has them). */
export const CHECKED = GIVEN.required({ provider: true, network: true, labels: true });
export type Inputs = z.infer<typeof CHECKED>;
/**
 * What the steps read of the stored state: the inputs, the name and id it was made as, its state and
 * drift. A refresh stores what it read back, which may be no value a stack declares (a network
 * "other: …", a kind the daemon says): the diff must see it to name the field.
 */
const STORED = GIVEN.extend({
  network: z.string(),
  kind: z.string(),
  mount: z.strictObject({ kind: z.string(), path: z.string() }),
  name: z.string(),
  vendorId: z.string(),
  state: z.string(),
  drift: z.array(z.string()),
});
type State = Stored<z.infer<typeof STORED>>;

/** The library's spec from the resource's inputs. */
export function specOf(inputs: Inputs): ComputerSpec {
  return { ...knownSpecOf(inputs), image: inputs.image ?? "", lifetimeMs: inputs.lifetimeMs, network: networkOf(inputs, inputs.network) };
}

// Behind a shared proxy the list is the proxy's, whatever it is now: { allow: [] }.
const networkOf = (inputs: Known, network: Inputs["network"]): NetworkPolicy =>
  network === "allow" ? { allow: inputs.egress ? [] : (inputs.allow ?? []) } : network;

/** What check has of the inputs: each field known, of the right shape, and not refused. */
type Known = z.infer<typeof Given>;

/** The spec of what is known: a field left out of the inputs is left out of the spec (check's, a preview's). */
function knownSpecOf(inputs: Known): CheckInput {
  const spec: CheckInput = {
    image: inputs.image,
    lifetimeMs: inputs.lifetimeMs,
    network: inputs.network === undefined ? undefined : networkOf(inputs, inputs.network),
    labels: inputs.labels,
    cpus: inputs.cpus,
    memoryMb: inputs.memoryMb,
    pids: inputs.pids,
    user: inputs.user,
    workdir: inputs.workdir,
    kind: machineKindOf(inputs.kind),
  };
  if (inputs.mount) spec.mount = inputs.mount;
  if (inputs.egress) spec.egress = inputs.egress.proxy;
  if (inputs.runtime) spec.runtime = inputs.runtime;
  return spec;
}

/**
 * Every refusal together, each naming its field: an unknown field, a value of the wrong shape,
 * and the provider's own check (with no vendor call) of every field that has the right shape.
 */
async function check(ctx: Context, _olds: Props, news: Props) {
  const { plain, secretKeys } = unwrap(news);
  const failures = unknownFields(plain, INPUTS, TYPE);
  const known = Object.fromEntries(Object.entries(plain).filter(([k]) => isField(INPUTS, k)));
  const parsed = Given.safeParse(Object.fromEntries(Object.entries(known).filter(([, v]) => !hasUnknown(v))));
  // Fields already refused: the provider's check of them would say it twice.
  const refused = new Set<string>();
  const badState = runStateRefusal(known.state, secretKeys.has("state"));
  if (badState) {
    failures.push(badState);
    refused.add("state");
  }
  if (!parsed.success) {
    // The field and what it must be; never the value, which could be a secret put in the wrong place.
    for (const issue of parsed.error.issues) {
      const property = String(issue.path[0] ?? "");
      if (refused.has(property) || !isField(INPUTS, property)) continue;
      failures.push({ property, reason: `${property} must be ${TAKES[property]}` });
      refused.add(property);
    }
  }
  // The fields of the right shape that are known now (a preview's unknown ones are checked at up).
  const shaped = Object.entries(known).filter(([k, v]) => !refused.has(k) && !hasUnknown(v));
  const given: Known = parsed.success ? parsed.data : (Given.safeParse(Object.fromEntries(shaped)).data ?? {});
  const joins = known.egress !== undefined && !refused.has("egress");
  // Joining a proxy is an allowlist: network "allow" unless declared otherwise.
  if (joins && known.network === undefined) known.network = given.network = "allow";
  if (joins) failures.push(...egressRefusals(given));
  else if (given.network === "allow" && known.allow === undefined)
    failures.push({
      property: "allow",
      reason: 'network "allow" needs allow (the names and CIDRs the computer may reach) or egress (an EgressProxy\'s egress output, shared by a fleet)',
    });
  if (!joins && given.network !== "allow" && !hasUnknown(known.network) && given.allow !== undefined)
    failures.push({ property: "allow", reason: 'allow is the list of network "allow"; set network: allow, or leave allow out' });

  const id = known.provider ?? DEFAULT_PROVIDER;
  let provider: ComputerProvider | undefined;
  if (typeof id === "string" && id !== UNKNOWN && !refused.has("provider")) {
    const v = await ctx.vendor(id);
    if (v.ok) provider = v.value;
    else failures.push({ property: "provider", reason: v.error.message });
  }
  const defaults: SpecDefaults & { provider: unknown } = provider ? defaultsOf(provider, known.kind) : { provider: id };
  // No image: the provider's default when it names one, else its own made ready at create
  // (on Docker, its recipe), read back then.
  const image = known.image ?? defaults.image;
  const inputs = withoutUndefined({
    ...defaults,
    ...known,
    ...(image === undefined ? {} : { image }),
    user: normalUser(known.user ?? defaults.user),
  });

  if (provider) failures.push(...(await providerRefusals(ctx, provider, inputs, refused, secretKeys)), ...forkAndPauseRefusals(provider, inputs, refused));
  // The proxy's volume belongs to its user: a computer of another user could not read its socket.
  const proxyUser = isObject(known.egress) ? known.egress.user : undefined;
  if (joins && typeof proxyUser === "string" && proxyUser !== UNKNOWN && inputs.user !== UNKNOWN && normalUser(proxyUser) !== inputs.user) {
    failures.push({
      property: "user",
      reason: `the computer's user ${String(inputs.user)} is not its EgressProxy's ${proxyUser}: a computer joins a proxy of its own user, so declare the same user on both`,
    });
  }
  const unwritable = unwritableFolder(given.mount, inputs.user, secretKeys.has("mount"));
  if (unwritable) failures.push({ property: "mount", reason: unwritable });
  if (failures.length) return { failures };
  return { inputs: wrapDerived(inputs, secretKeys) };
}

/** The input fields each field of the library's spec is made from (specOf). */
const SPEC_FROM: Record<keyof ComputerSpec, readonly string[]> = {
  image: ["image"],
  lifetimeMs: ["lifetimeMs"],
  network: ["network", "allow", "egress"],
  egress: ["egress"],
  labels: ["labels"],
  mount: ["mount"],
  cpus: ["cpus"],
  memoryMb: ["memoryMb"],
  pids: ["pids"],
  user: ["user"],
  workdir: ["workdir"],
  kind: ["kind"],
  runtime: ["runtime"],
};

/**
 * The provider's own check (no vendor call) of every field known now, whatever else is unknown (a
 * preview's), held to the host when the provider can read it (a host it cannot reach leaves that
 * to create). A field refused already, unknown, or left to the provider (an image it makes at
 * create) is left out of the spec and not refused for its absence; a bind folder a Mount of the
 * stack makes may not be there yet.
 */
async function providerRefusals(ctx: Context, provider: ComputerProvider, inputs: Props, refused: Set<string>, secretKeys: Set<string>) {
  await provider.host?.({ signal: bounded(ctx, HOST_MS) });
  const left = new Set(Object.keys(inputs).filter((k) => refused.has(k) || hasUnknown(inputs[k])));
  if (inputs.image === undefined) left.add("image");
  const parsed = Given.safeParse(Object.fromEntries(Object.entries(inputs).filter(([k]) => !left.has(k))));
  // Each field was of its shape as given, or is the provider's own default.
  if (!parsed.success) throw new Error(`the ${TYPE} inputs check filled in are not of their shapes (${parsed.error.message}): a fault of the plugin's`);
  const spec = knownSpecOf(parsed.data);
  const unknown = new Set(Object.entries(SPEC_FROM).flatMap(([f, from]) => (from.some((k) => left.has(k)) ? [f] : [])));
  for (const f of unknown) Reflect.deleteProperty(spec, f);
  const mountMadeFirst = spec.mount?.kind === "bind" && madeByStack(spec.mount.path) !== undefined;
  const failures: Array<{ property: string; reason: string }> = [];
  // A resource's computer is made for its owner (create passes it), so the check counts its labels.
  for (const r of checkKnown((known: CheckInput) => provider.check(known, { mountMadeFirst, owned: true }), spec, unknown)) {
    // A refusal of no input (the host, the provider's settings) is the resource's as a whole.
    const field = r.field.split(".")[0] ?? "";
    let property = isField(INPUTS, field) ? field : "";
    // An allowlist of the computer's own is its allow field.
    if (property === "network" && inputs.network === "allow" && inputs.allow !== undefined) property = "allow";
    // A secret field's refusal is named, never shown: the words could quote it.
    failures.push({ property, reason: secretKeys.has(property) ? `${property} (a secret) is refused` : r.message });
  }
  // An image the provider knows it could not have is refused now, not by a create half-way through an up.
  if (spec.image !== undefined && provider.imageHeld && !failures.some((f) => f.property === "image")) {
    const held = await provider.imageHeld(spec.image, { signal: bounded(ctx, HOST_MS) });
    if (!held.ok && held.error.field === "image")
      failures.push({ property: "image", reason: secretKeys.has("image") ? "image (a secret) is refused" : held.error.message });
  }
  return failures;
}

/** What joining a shared proxy refuses: another network, or a list of the computer's own. */
function egressRefusals(given: z.infer<typeof Given>) {
  const out: Array<{ property: string; reason: string }> = [];
  if (given.network !== undefined && given.network !== "allow")
    out.push({ property: "network", reason: `a computer behind an EgressProxy has network "allow" (the proxy's list), not ${given.network}` });
  if (given.allow !== undefined)
    out.push({
      property: "allow",
      reason: "a computer behind an EgressProxy takes the proxy's list: change allow on the EgressProxy, or leave egress out for a proxy of the computer's own",
    });
  return out;
}

/**
 * The computer as it is now, with every mismatch of the provider's drift check: read gives the
 * spec even of a drifted computer, so refresh shows each field that changed.
 */
async function observe(provider: ComputerProvider, id: string, signal: AbortSignal): Promise<ReadBack | "gone"> {
  if (!provider.read) throw new Error(`the ${provider.id} provider cannot read a computer back, so refresh cannot tell its drift`);
  const read = await provider.read({ id }, { signal });
  if (read.ok) return read.value;
  if (read.error.code === "not_found") return "gone";
  throw new ResultFailure(read.error);
}

function remainingMs(deadline: string | undefined): number {
  const left = deadline ? Date.parse(deadline) - Date.now() : NaN;
  return Number.isFinite(left) && left > 0 ? Math.ceil(left / 1000) * 1000 : 1000;
}

function outputsOf(declared: Declared, o: ReadBack, labels: Record<string, string> | undefined): Props {
  const outs: Props = {
    ...inputsReadBack(declared, o.ref.spec, o.hello, labels),
    name: o.ref.name,
    vendorId: o.ref.id,
    state: o.state,
    notes: o.ref.notes ?? [],
    drift: o.drift,
  };
  if (o.ref.spec) outs.spec = JSON.parse(JSON.stringify(o.ref.spec));
  if (o.ref.spec?.deadline) outs.deadline = o.ref.spec.deadline;
  if (o.hello) outs.hello = { version: o.hello.version, arch: o.hello.arch, kind: o.hello.kind, groups: o.hello.groups };
  return outs;
}

// Outputs that come from inputs of other names, so a secret input keeps them secret.
const DERIVED: Record<string, readonly string[]> = {
  spec: ["image", "mount", "user", "workdir", "allow"],
  drift: [...INPUTS],
  notes: [...INPUTS],
  name: [],
  vendorId: [],
  state: [],
  deadline: [],
  hello: [],
  screen: [],
};

/** A running computer whose hello declares a screen gets its size among the outputs. */
async function withScreen(provider: ComputerProvider, outs: Props, ref: ComputerRef, hello: Hello | undefined, signal: AbortSignal): Promise<Props> {
  if (!hello?.groups.includes("screen") || outs.state !== "running") return outs;
  return { ...outs, screen: orThrow(await screenOf(provider, ref, { signal })) };
}

async function create(ctx: Context, { inputs, secretKeys }: Step<Inputs>) {
  const provider = await vendorOf(ctx, inputs.provider);
  const signal = bounded(ctx, CREATE_MS);
  inputs.image ??= await defaultImage(provider, signal, ctx, inputs.kind);
  // The owner: a computer an interrupted create of this resource left is adopted or removed first.
  const owner = resourceOwner(ctx);
  const made = orThrow(
    await whileWaiting(ctx.say, `waiting for the ${provider.id} computer to start and its daemon to answer`, () =>
      provider.create(specOf(inputs), { signal, ...(owner === undefined ? {} : { owner }) }),
    ),
  );
  // Declared paused: made, then paused; a pause that fails removes what was made.
  const state = declaredState(inputs.state);
  if (state === "paused")
    await putState(provider, made, state, "running", signal).catch(async (e) => {
      await provider.release(made, "delete", { signal: bounded(ctx, STEP_MS) });
      throw e;
    });
  // create ends with the drift check, hello included: what it made is what was declared.
  const outs = await withScreen(
    provider,
    outputsOf(inputs, { ref: made, state, labels: inputs.labels, hello: made.hello, drift: [] }, inputs.labels),
    made,
    made.hello,
    signal,
  );
  return { id: made.name, outs: wrapDerived(outs, secretKeys, DERIVED) };
}

/** The computer a resource's state names: its vendor id, or (an import) the id it was given. */
function vendorIdOf(id: string, old: { vendorId?: string }): string {
  return old.vendorId || id;
}

/** stored: the stored inputs (none on an import, whose declared state is what was found). */
async function read(ctx: Context, id: string, { old, secretKeys }: State, stored?: Props) {
  const provider = await vendorOf(ctx, typeof old.provider === "string" ? old.provider : DEFAULT_PROVIDER);
  const signal = bounded(ctx, STEP_MS);
  const named = typeof old.name === "string" ? old.name : undefined;
  // A refresh of a large fleet reads each back: its line says which, and how long it took.
  let o = await whileWaiting(ctx.say, `reading ${named ?? id} back from ${provider.id}`, () => observe(provider, vendorIdOf(id, old), signal));
  // Gone by its id, but a computer of this resource is there (a create cut off after it made one,
  // whose answer state never took): refresh shows that one, so it is never invisible to the stack.
  const owned = o === "gone" ? await ownedComputer(ctx, provider, signal) : undefined;
  if (owned) o = await observe(provider, owned, signal);
  if (o === "gone") return {}; // refresh drops it; the next up makes it again
  // Found by its vendor id under another name: renamed by hand, which a replace removes.
  const made = owned ? o.ref.name : named;
  if (made !== undefined && o.ref.name !== made) o.drift = [`renamed by hand to ${o.ref.name} (it was made as ${made})`, ...o.drift];
  // Stopped is drift, as the diff's `state` shows it: said in the drift's own words too.
  if (o.state === "stopped") o.drift = [stoppedWords(o.ref.spec?.deadline ? new Date(o.ref.spec.deadline) : undefined), ...o.drift];
  const wanted = stored ? declaredState(unwrap(stored).plain.state) : declaredState(o.state);
  const moved = stateWords(wanted, o.state);
  if (moved) o.drift = [...o.drift, moved];
  const proxyDown = await proxyDrift(provider, o.ref.spec?.egress, signal);
  if (proxyDown) o.drift = [...o.drift, proxyDown];
  // An import has no outputs: what is there is what was declared (its labels, the caller's own),
  // and its lifetime is what is left of it, to the second.
  const was: Partial<z.infer<typeof STORED>> = old;
  const declared: Declared = { ...defaultsOf(provider, was.kind), ...was, lifetimeMs: was.lifetimeMs ?? remainingMs(o.ref.spec?.deadline) };
  const labels = typeof old.labels === "object" && old.labels !== null ? declaredLabels(declared.labels, o.labels) : callerLabels(o.labels);
  const outs =
    o.drift.length > 0 ? outputsOf(declared, o, labels) : await withScreen(provider, outputsOf(declared, o, labels), o.ref, o.hello, bounded(ctx, STEP_MS));
  // The name stays the one it was made as, so the rename stays drift on every refresh until replaced.
  if (made !== undefined) outs.name = made;
  // In the shape declared: a field left to the provider stays left out (an import declared nothing, so has every one).
  const inputs = inputsReadBack(declared, o.ref.spec, o.hello, labels);
  if (stored) for (const k of LEFT_TO_PROVIDER) if (!(k in stored)) delete inputs[k];
  // The state as found, where the stack declared one or it is not the default; a stopped one is made again.
  if (o.state !== "stopped" && (stored?.state !== undefined || o.state === "paused")) inputs.state = o.state;
  // A resource keeps its id whatever the computer is called now; an import takes the name read.
  return { id: made === undefined || owned ? o.ref.name : id, props: wrapDerived(outs, secretKeys, DERIVED), inputs: wrapDerived(inputs, secretKeys) };
}

/** The one computer carrying this resource's owner label, by its vendor id; undefined when none or more than one. */
async function ownedComputer(ctx: Context, provider: ComputerProvider, signal: AbortSignal): Promise<string | undefined> {
  const owner = resourceOwner(ctx);
  if (owner === undefined) return undefined;
  const found = orThrow(await provider.list(ownerLabel(owner), { signal }));
  return found.length === 1 ? found[0]!.ref.id : undefined;
}

const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

// An image left to the provider is whatever it made ready, and a size left to it is its own (a
// Daytona snapshot's): each compared, and read back as an input, only when declared.
const LEFT_TO_PROVIDER: readonly string[] = ["image", "cpus", "memoryMb", "pids"];

/**
 * Each field that changed, by name, which is what the engine prints: an input declared otherwise
 * or read back otherwise, `state` for a stopped computer (past its deadline), and `drift` for a
 * mismatch no field names (a rename, a setting no input holds). Every one is a replace, and the
 * drift's sentences are the detail; a shared proxy down, alone, is the proxy's to heal, and a
 * paused or running computer not as declared is a pause or a resume: each an update.
 */
async function diff(_ctx: Context, _id: string, { old: o }: State, n: Props): Promise<FieldDiff> {
  const changed: Record<string, FieldChange> = {};
  for (const k of FIXED) {
    if ((LEFT_TO_PROVIDER.includes(k) && n[k] === undefined) || same(o[k], n[k])) continue;
    changed[k] = o[k] === undefined ? "add-replace" : n[k] === undefined ? "delete-replace" : "update-replace";
  }
  if (o.state === "stopped") changed.state = "update-replace";
  const drifted = Array.isArray(o.drift) && o.drift.length > 0;
  const own = ownDrift(withoutStateWords(o.drift), o.egress).length > 0;
  if (own && Object.keys(changed).length === 0) changed.drift = "update-replace";
  const replaces = Object.keys(changed);
  // Its proxy down or its state moved, and nothing else: an update heals it and reads it back.
  const moves = stateMoves(o.state, n.state);
  if (replaces.length === 0 && (drifted || moves)) {
    const detailedDiff: Record<string, FieldChange> = { ...(drifted ? { drift: "update" } : {}), ...(moves ? { state: "update" } : {}) };
    return { changes: true, replaces: [], deleteBeforeReplace: false, detailedDiff, ...(moves ? { diffs: ["state"] } : {}) };
  }
  // The drift's sentences are shown under --diff whatever field names them.
  return {
    changes: replaces.length > 0,
    replaces,
    deleteBeforeReplace: false,
    detailedDiff: drifted ? { drift: "update", ...changed } : changed,
    diffs: replaces,
  };
}

/**
 * diff asks for an update when the state moves (paused or resumed here) or its shared proxy was
 * down (by now the proxy's up made it again): then it is read back.
 */
async function update(ctx: Context, id: string, olds: State, { inputs, raw }: Step<Inputs>) {
  const wanted = declaredState(inputs.state);
  if (stateMoves(olds.old.state, wanted)) {
    const provider = await vendorOf(ctx, inputs.provider);
    await whileWaiting(ctx.say, `${wanted === "paused" ? "pausing" : "resuming"} the ${provider.id} computer`, () =>
      putState(provider, refOf(id, olds.old, provider), wanted, olds.old.state, bounded(ctx, STEP_MS)),
    );
  }
  const r = await read(ctx, id, olds, raw);
  if (!r.props) throw new Error(`the computer ${id} is gone; the next up makes it again`);
  return { outs: r.props };
}

/** A preview of that update: the computer as it was, its drift known once it is read back. */
async function preview(_ctx: Context, { raw, inputs }: Step<Inputs>, olds?: State) {
  return olds === undefined ? raw : { ...olds.raw, state: declaredState(inputs.state), drift: UNKNOWN };
}

async function remove(ctx: Context, id: string, { old }: State) {
  const provider = await vendorOf(ctx, typeof old.provider === "string" ? old.provider : DEFAULT_PROVIDER);
  orThrow(await provider.release(refOf(id, old, provider), "delete", { signal: bounded(ctx, STEP_MS) }));
}

/** The computer a resource's state names, by its vendor id: one renamed by hand is still found. */
function refOf(id: string, old: State["old"], provider: ComputerProvider): ComputerRef {
  return { id: vendorIdOf(id, old), name: typeof old.name === "string" ? old.name : id, provider: provider.id };
}

export const computer = resource(TYPE, {
  given: GIVEN,
  inputs: INPUTS,
  checked: CHECKED,
  stored: STORED,
  check,
  diff,
  create,
  read,
  update,
  preview,
  delete: remove,
});
