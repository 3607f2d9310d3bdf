// agentrun:index:Computer, one computer at the vendor its provider names (Docker by default), made exactly as declared.
// create: the library's create, which ends with the drift check (a refusal fails the step in its
// words, with nothing left). read: the computer found by its vendor id (kept in state), never by
// its name alone; gone → no id; drifted (renamed by hand included) → the outputs and inputs as
// read back, and `drift` naming each mismatch. diff: what the vendor fixes at create is a
// replace, and so is a stopped or drifted computer; one whose shared egress proxy alone is down is
// an update that reads it back once the proxy is made again. delete: release "delete" by the vendor id.
import { z } from "zod";
import { screenOf } from "../../src/contract/screen.js";
import { sameAllowlist } from "../../src/egress/list.js";
import type { ComputerProvider, ComputerRef, ComputerSpec, ReadBack, SpecReadBack } from "../../src/contract/provider.js";
import type { Hello } from "../../src/daemon/protocol.js";
import { canonical } from "../../src/contract/canonical.js";
import { stoppedWords } from "../../src/contract/lifetime.js";
import { ownerLabel, withoutOwner } from "../../src/contract/labels.js";
import { DEFAULT_PROVIDER } from "../../src/providers.js";
import { ResultFailure, orThrow } from "../../src/daemon/result.js";
import { normalUser } from "../../src/contract/user.js";
import { knownRefusals } from "../../src/contract/checked.js";
import { madeByStack, unwritableFolder } from "../stack-folders.js";
import type { Context, Step, Stored } from "../resource.js";
import type { FieldChange, FieldDiff } from "../server.js";
import { fieldsOf, isField, strings } from "../inputs.js";
import { ownDrift, proxyDrift } from "./computer-proxy-drift.js";
import { bounded, resource, resourceOwner, unknownFields, vendorOf } from "../resource.js";
import { whileWaiting } from "../progress.js";
import { defaultImage, machineKindOf } from "./computer-image.js";
import { UNKNOWN, hasUnknown, isObject, unwrap, wrapDerived, type Props } from "../secrets.js";

const TYPE = "agentrun:index:Computer";
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
  mount: z.strictObject({ kind: z.string(), path: z.string() }).optional(),
  labels: strings().optional(),
  cpus: z.number().positive().optional(),
  memoryMb: z.number().int().positive().optional(),
  pids: z.number().int().positive().optional(),
  user: z.string().min(1).optional(),
  workdir: z.string().min(1).optional(),
  kind: z.enum(["linux", "desktop", "browser", "phone"]).optional(),
  egress: z.strictObject({ proxy: z.string().min(1), user: z.string().min(1) }).optional(),
});
export const INPUTS = fieldsOf(GIVEN);
/** What each field takes, in words: a value of the wrong shape is refused with what to ask for, never zod's stock words. */
const TAKES: Record<(typeof INPUTS)[number], string> = {
  provider: `a provider's id, such as "${DEFAULT_PROVIDER}"`,
  image: "an image's name, such as debian:bookworm-slim",
  lifetimeMs: "a number of milliseconds, such as 600000 (10 minutes)",
  network: '"none", "open" or "allow"',
  allow: 'a list of the names and CIDRs the computer may reach, such as ["pypi.org", "10.1.0.0/16"]',
  mount: "a Mount's mount output ({ kind, path })",
  labels: "an object of string values",
  cpus: "a number of CPUs above 0, such as 0.5 or 2",
  memoryMb: "a whole number of MiB above 0, such as 512",
  pids: "a whole number above 0, such as 256",
  user: 'a user as uid:gid (or uid), such as "1000:1000"',
  workdir: "an absolute path, such as /work",
  kind: '"linux", "desktop", "browser" or "phone"',
  egress: "an EgressProxy's egress output",
};
/** What each computer of a Fleet or a WarmPool is made as: a Computer's inputs, each optional (the template's type). */
export const TEMPLATE = GIVEN.partial();
// Everything a computer is made with is fixed at create: a change is a replace.
const FIXED = INPUTS;
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
const STORED = GIVEN.extend({ network: z.string(), kind: z.string(), name: z.string(), vendorId: z.string(), state: z.string(), drift: z.array(z.string()) });
type State = Stored<z.infer<typeof STORED>>;

/** A phone is the machine kind android (the only phone built): the input says phone, the spec android. */
const inputKindOf = (kind: string | undefined): string | undefined => (kind === "android" ? "phone" : kind);

/** The library's spec from the resource's inputs. */
export function specOf(inputs: Inputs): ComputerSpec {
  const spec: ComputerSpec = {
    image: inputs.image ?? "",
    lifetimeMs: inputs.lifetimeMs,
    // Behind a shared proxy the list is the proxy's, whatever it is now: { allow: [] }.
    network: inputs.network === "allow" ? { allow: inputs.egress ? [] : (inputs.allow ?? []) } : inputs.network,
    labels: inputs.labels,
    cpus: inputs.cpus,
    memoryMb: inputs.memoryMb,
    pids: inputs.pids,
    user: inputs.user,
    workdir: inputs.workdir,
    kind: machineKindOf(inputs.kind),
  };
  if (inputs.mount) spec.mount = inputs.mount as ComputerSpec["mount"];
  if (inputs.egress) spec.egress = inputs.egress.proxy;
  return spec;
}

/**
 * The inputs a declaration that names none gets, filled in at check so what is read back
 * compares equal: network none (or the one network a provider offers, a browser's or a phone's open) and no
 * labels, and the provider's own kind, image (when it names one), sizes, workdir and user
 * (capabilities().defaults), which this resource never writes itself.
 */
export function defaultsOf(provider: ComputerProvider): Props {
  const { kind, network: offered = [], defaults = {} } = provider.capabilities();
  const network = offered.includes("none") || offered.length !== 1 ? "none" : offered[0];
  return withoutUndefined({ provider: provider.id, network, labels: {}, kind: inputKindOf(kind), ...defaults });
}

const withoutUndefined = (props: Props): Props => Object.fromEntries(Object.entries(props).filter(([, v]) => v !== undefined));

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
  if (!parsed.success) {
    // The field and what it must be; never the value, which could be a secret put in the wrong place.
    for (const issue of parsed.error.issues) {
      const property = String(issue.path[0] ?? "");
      if (refused.has(property) || !isField(INPUTS, property)) continue;
      failures.push({ property, reason: `${property} must be ${TAKES[property]}` });
      refused.add(property);
    }
  }
  const given = (parsed.success ? parsed.data : Object.fromEntries(Object.entries(known).filter(([k]) => !refused.has(k)))) as z.infer<typeof Given>;
  const joins = known.egress !== undefined && !refused.has("egress");
  // Joining a proxy is an allowlist: network "allow" unless declared otherwise.
  if (joins && known.network === undefined) known.network = given.network = "allow";
  if (joins) failures.push(...egressRefusals(given));
  else if (given.network === "allow" && given.allow === undefined)
    failures.push({
      property: "allow",
      reason: 'network "allow" needs allow (the names and CIDRs the computer may reach) or egress (an EgressProxy\'s egress output, shared by a fleet)',
    });
  if (!joins && given.network !== "allow" && given.allow !== undefined)
    failures.push({ property: "allow", reason: 'allow is the list of network "allow"; set network: allow, or leave allow out' });

  const id = known.provider ?? DEFAULT_PROVIDER;
  let provider: ComputerProvider | undefined;
  if (typeof id === "string" && id !== UNKNOWN && !refused.has("provider")) {
    const v = await ctx.vendor(id);
    if (v.ok) provider = v.value;
    else failures.push({ property: "provider", reason: v.error.message });
  }
  const defaults = provider ? defaultsOf(provider) : { provider: id };
  // No image: the provider's default when it names one, else its own made ready at create
  // (on Docker, its recipe), read back then.
  const image = known.image ?? defaults.image;
  const inputs = withoutUndefined({
    ...defaults,
    ...known,
    ...(image === undefined ? {} : { image }),
    user: normalUser(known.user ?? defaults.user),
  });

  if (provider) failures.push(...(await providerRefusals(ctx, provider, inputs, refused, secretKeys)));
  // The proxy's volume belongs to its user: a computer of another user could not read its socket.
  const proxyUser = isObject(known.egress) ? known.egress.user : undefined;
  if (joins && typeof proxyUser === "string" && proxyUser !== UNKNOWN && inputs.user !== UNKNOWN && normalUser(proxyUser) !== inputs.user) {
    failures.push({
      property: "user",
      reason: `the computer's user ${String(inputs.user)} is not its EgressProxy's ${proxyUser}: a computer joins a proxy of its own user, so declare the same user on both`,
    });
  }
  const unwritable = unwritableFolder(inputs.mount, inputs.user, secretKeys.has("mount"));
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
  const spec = specOf(Object.fromEntries(Object.entries(inputs).filter(([k]) => !left.has(k))) as Inputs);
  const unknown = new Set((Object.keys(SPEC_FROM) as Array<keyof ComputerSpec>).filter((f) => SPEC_FROM[f].some((k) => left.has(k))));
  for (const f of unknown) delete spec[f];
  const mountMadeFirst = spec.mount?.kind === "bind" && madeByStack(spec.mount.path) !== undefined;
  const failures: Array<{ property: string; reason: string }> = [];
  for (const r of knownRefusals(provider.check(spec, { mountMadeFirst }), unknown)) {
    // A refusal of no input (the host, the provider's settings) is the resource's as a whole.
    const field = r.field.split(".")[0] ?? "";
    let property = isField(INPUTS, field) ? field : "";
    // An allowlist of the computer's own is its allow field.
    if (property === "network" && inputs.network === "allow" && inputs.allow !== undefined) property = "allow";
    // A secret field's refusal is named, never shown: the words could quote it.
    failures.push({ property, reason: secretKeys.has(property) ? `${property} (a secret) is refused` : r.message });
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

/** An imported computer's labels: all but its provider's own namespace. */
function callerLabels(labels: Record<string, string>): Record<string, string> {
  return withoutOwner(Object.fromEntries(Object.entries(labels).filter(([k]) => k !== "agentrun.computer" && !k.startsWith("agentrun.computer."))));
}

/** The inputs as read back: what the computer is now, in the resource's own fields. */
/** The inputs as read back. A size neither declared nor read back (Daytona's pids, Modal's sizes) is left out: undefined is no struct value. */
function inputsReadBack(declared: Inputs, spec: SpecReadBack | undefined, hello: Hello | undefined, labels: Record<string, string> | undefined): Props {
  if (!spec) return withoutUndefined({ ...declared });
  const network = spec.network;
  const read: Props = {
    provider: declared.provider,
    image: spec.image,
    lifetimeMs: declared.lifetimeMs,
    network: typeof network === "string" ? network : "allow" in network ? "allow" : `other: ${network.other}`,
    labels: labels ?? declared.labels,
    cpus: spec.cpus ?? declared.cpus,
    memoryMb: spec.memoryMb ?? declared.memoryMb,
    pids: spec.pids ?? declared.pids,
    // A computer with no user of its own (a browser) reads back none.
    user: spec.user || undefined,
    workdir: spec.workdir ?? declared.workdir,
    kind: inputKindOf(hello?.kind ?? spec.kind) ?? declared.kind,
  };
  // Behind a shared proxy: which proxy, not its list (a new list changes nothing here).
  if (spec.egress) read.egress = { proxy: spec.egress, user: spec.user };
  else if (typeof network === "object" && "allow" in network) {
    // The same list in another order or case is the declared list: kept as declared.
    const same = sameAllowlist(declared.allow, network.allow);
    read.allow = same ? declared.allow : network.allow;
  }
  if (spec.mount)
    read.mount =
      "other" in spec.mount ? { kind: "other", path: spec.mount.other } : { kind: spec.mount.kind, path: "path" in spec.mount ? spec.mount.path : "" };
  return withoutUndefined(read);
}

/**
 * The declared labels as read back. A container's labels also hold its image's and the
 * provider's own, which no one declared, so only the declared keys are compared.
 */
function declaredLabels(declared: Record<string, string>, read: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(declared)
      .filter((k) => k in read)
      .map((k) => [k, read[k]!]),
  );
}

function outputsOf(declared: Inputs, o: ReadBack, labels: Record<string, string> | undefined): Props {
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
  // create ends with the drift check, hello included: what it made is what was declared.
  const outs = await withScreen(
    provider,
    outputsOf(inputs, { ref: made, state: "running", labels: inputs.labels, hello: made.hello, drift: [] }, inputs.labels),
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
  const proxyDown = await proxyDrift(provider, o.ref.spec?.egress, signal);
  if (proxyDown) o.drift = [...o.drift, proxyDown];
  // An import has no outputs: what is there is what was declared (its labels, the caller's own),
  // and its lifetime is what is left of it, to the second.
  const declared = { ...defaultsOf(provider), ...old } as Inputs;
  if (typeof declared.lifetimeMs !== "number") declared.lifetimeMs = remainingMs(o.ref.spec?.deadline);
  const labels = typeof old.labels === "object" && old.labels !== null ? declaredLabels(declared.labels, o.labels) : callerLabels(o.labels);
  const outs =
    o.drift.length > 0 ? outputsOf(declared, o, labels) : await withScreen(provider, outputsOf(declared, o, labels), o.ref, o.hello, bounded(ctx, STEP_MS));
  // The name stays the one it was made as, so the rename stays drift on every refresh until replaced.
  if (made !== undefined) outs.name = made;
  // In the shape declared: a field left to the provider stays left out (an import declared nothing, so has every one).
  const inputs = inputsReadBack(declared, o.ref.spec, o.hello, labels);
  if (stored) for (const k of LEFT_TO_PROVIDER) if (!(k in stored)) delete inputs[k];
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
 * drift's sentences are the detail; a shared proxy down, alone, is the proxy's to heal (an update).
 */
async function diff(_ctx: Context, _id: string, { old: o }: State, n: Props): Promise<FieldDiff> {
  const changed: Record<string, FieldChange> = {};
  for (const k of FIXED) {
    if ((LEFT_TO_PROVIDER.includes(k) && n[k] === undefined) || same(o[k], n[k])) continue;
    changed[k] = o[k] === undefined ? "add-replace" : n[k] === undefined ? "delete-replace" : "update-replace";
  }
  if (o.state === "stopped") changed.state = "update-replace";
  const drifted = Array.isArray(o.drift) && o.drift.length > 0;
  const own = ownDrift(o.drift, o.egress).length > 0;
  if (own && Object.keys(changed).length === 0) changed.drift = "update-replace";
  const replaces = Object.keys(changed);
  // Its proxy down, and nothing of its own: the proxy's up heals it, and an update reads it back.
  if (drifted && replaces.length === 0) return { changes: true, replaces: [], deleteBeforeReplace: false, detailedDiff: { drift: "update" } };
  // The drift's sentences are shown under --diff whatever field names them.
  return {
    changes: replaces.length > 0,
    replaces,
    deleteBeforeReplace: false,
    detailedDiff: drifted ? { drift: "update", ...changed } : changed,
    diffs: replaces,
  };
}

/** diff asks for an update only when its shared proxy was down: by now the proxy's up made it again, so it is read back. */
async function update(ctx: Context, id: string, olds: State) {
  const r = await read(ctx, id, olds);
  if (!r.props) throw new Error(`the computer ${id} is gone; the next up makes it again`);
  return { outs: r.props };
}

/** A preview of that update: the computer as it was, its drift known once it is read back. */
async function preview(_ctx: Context, { raw }: Step<Inputs>, olds?: State) {
  return olds === undefined ? raw : { ...olds.raw, drift: UNKNOWN };
}

async function remove(ctx: Context, id: string, { old }: State) {
  const provider = await vendorOf(ctx, typeof old.provider === "string" ? old.provider : DEFAULT_PROVIDER);
  // By its vendor id: a computer renamed by hand is still found, and removed.
  const ref: ComputerRef = { id: vendorIdOf(id, old), name: typeof old.name === "string" ? old.name : id, provider: provider.id };
  orThrow(await provider.release(ref, "delete", { signal: bounded(ctx, STEP_MS) }));
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
