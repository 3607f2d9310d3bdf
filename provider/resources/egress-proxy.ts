// agentrun:index:EgressProxy, one allowlist's way out shared by a fleet: on Docker the egress
// volume and the proxy container (src/docker/egress-proxy.ts), on Kubernetes a ConfigMap each
// joined computer's own sidecar reads (src/kubernetes/proxies.ts). Computers join it through their
// `egress` input, which takes this resource's `egress` output. create: the library's make.
// read: the proxy read back (running, hardened, its list and today's host addresses); its volume
// gone → no id; the proxy stopped, removed or re-run wider by hand → drift, with the list as
// read back. diff: a new list or hint, or drift, is an update (the proxy made again on the same
// volume, so its computers keep running); a new provider, user or lifetime, or a deadline
// passed, is a replace. delete: the proxy and its volume, after the computers behind it.
// check chooses the proxy's name (from the resource, so a preview's is its up's) and writes it,
// with the `egress` value, into the inputs: a preview knows an updated resource's inputs alone, so
// the computers behind a proxy whose list changes see the same `egress` and are not shown as made again.
import { z } from "zod";
import { sameAllowlist } from "../../src/egress/list.js";
import { rulesChange } from "../../src/egress/rules-change.js";
import { credentialsChangedHosts, EGRESS_CREDENTIAL, EGRESS_RULE, ruleArg, ruleOf, rulesChangedHosts, type EgressRule } from "../../src/egress/rules.js";
import type { EgressProxies, ProxyCheckInput, ProxyReadBack, ProxyRef, ProxySpec } from "../../src/egress/proxies.js";
import type { ComputerProvider } from "../../src/contract/provider.js";
import { DEFAULT_PROVIDER } from "../../src/providers.js";
import { OWNER_LABEL, ownerLabel } from "../../src/contract/labels.js";
import { orThrow } from "../../src/daemon/result.js";
import { checkKnown } from "../../src/contract/checked.js";
import { normalUser } from "../../src/contract/user.js";
import type { Context, Step, Stored } from "../resource.js";
import type { FieldChange, FieldDiff } from "../server.js";
import { bounded, resource, resourceOwner, unknownFields, vendorOf } from "../resource.js";
import { whileWaiting } from "../progress.js";
import { fieldsOf, isField } from "../inputs.js";
import { UNKNOWN, hasUnknown, unwrap, wrapDerived, type Props } from "../secrets.js";

const TYPE = "agentrun:index:EgressProxy";
// What a change of makes a new proxy (a new volume, so new computers behind it).
const REPLACING = ["provider", "user", "lifetimeMs"] as const;
const STEP_MS = 2 * 60_000;
// Outputs derived from inputs of other names, so a secret input keeps them secret.
const DERIVED: Record<string, readonly string[]> = {
  egress: ["user"],
  drift: ["allow", "hint", "rules"],
  name: [],
  hostAddresses: [],
  deadline: [],
  state: [],
};

/** An EgressProxy's inputs as a stack gives them. */
const Given = z.strictObject({
  provider: z.string().min(1).optional(),
  allow: z.array(z.string()),
  lifetimeMs: z.number(),
  user: z.string().min(1).optional(),
  hint: z.string().optional(),
  rules: z.array(EGRESS_RULE).optional(),
  credentials: z.array(EGRESS_CREDENTIAL).optional(),
});
export const INPUTS = fieldsOf(Given);
const EGRESS = z.object({ proxy: z.string(), user: z.string() });
/** What the proxy's check takes of the inputs known now (a preview leaves some out). */
const KNOWN_SPEC = Given.omit({ provider: true }).partial();
/** What check gives: the provider and user filled in, the proxy's name check chose, and the egress its computers take. */
const Checked = Given.required({ provider: true, user: true }).extend({ name: z.string(), egress: EGRESS.optional() });
type Inputs = z.infer<typeof Checked>;
/** What the steps read of the stored state: the inputs, the proxy's name, its deadline and drift. */
const Stored = Given.extend({ name: z.string(), deadline: z.string(), state: z.string(), drift: z.array(z.string()) });
type State = Stored<z.infer<typeof Stored>>;

/** The secret fields: those the stack marked, and credentials always, so a key never reaches state in the clear. */
const secretsOf = (marked: Set<string>) => new Set([...marked, "credentials"]);

/** The fields of REPLACING that differ between what was and what is asked now. */
const replacedBy = (olds: Props, news: Props) => REPLACING.filter((k) => news[k] !== undefined && JSON.stringify(olds[k]) !== JSON.stringify(news[k]));

/** The provider's shared proxies, or a throw in words when the vendor has none. */
function proxiesOf(provider: ComputerProvider): EgressProxies {
  if (!provider.proxies) throw new Error(`the ${provider.id} provider has no shared egress proxy, so an EgressProxy cannot run on it`);
  return provider.proxies;
}

/** What an update changes: the list, the hint, the rules and the credentials, each only when given. */
const changeOf = (inputs: Pick<Inputs, "allow" | "hint" | "rules" | "credentials">): Pick<ProxySpec, "allow" | "hint" | "rules" | "credentials"> => ({
  allow: inputs.allow,
  ...(inputs.hint === undefined ? {} : { hint: inputs.hint }),
  ...(inputs.rules === undefined ? {} : { rules: inputs.rules }),
  ...(inputs.credentials === undefined ? {} : { credentials: inputs.credentials }),
});

const specOf = (inputs: Pick<Inputs, "allow" | "lifetimeMs" | "user" | "hint" | "rules" | "credentials"> & { name?: string }): ProxySpec => ({
  ...(inputs.name === undefined ? {} : { name: inputs.name }),
  ...changeOf(inputs),
  lifetimeMs: inputs.lifetimeMs,
  user: inputs.user,
});

/** Rules in their argv form, as a proxy holds them and its read-back compares them. */
const ruleArgs = (rules: readonly EgressRule[] | undefined): string[] => (rules ?? []).map(ruleArg);

/** Every refusal together, each naming its field, with no vendor call. */
async function check(ctx: Context, olds: Props, news: Props) {
  const { plain: given, secretKeys } = unwrap(news);
  const old = unwrap(olds).plain;
  // check's own fields come back from an import's inputs: taken when they are the ones it wrote.
  const { name: givenName, egress: givenEgress, ...plain } = given;
  const failures = unknownFields(plain, INPUTS, TYPE);
  if (givenName !== undefined && givenName !== old.name)
    failures.push({ property: "name", reason: `${TYPE}'s name is chosen at its create (proxy-<12 hex digits>); it takes no name` });
  if (givenEgress !== undefined && JSON.stringify(givenEgress) !== JSON.stringify(old.egress))
    failures.push({ property: "egress", reason: `${TYPE}'s egress is an output, for its computers; it takes no egress` });
  const known = Object.fromEntries(Object.entries(plain).filter(([k, v]) => isField(INPUTS, k) && !hasUnknown(v)));
  const parsed = Given.safeParse(known);
  const refused = new Set<string>();
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const property = String(issue.path[0] ?? "");
      // A field still unknown (preview) is checked at up.
      if (hasUnknown(plain[property])) continue;
      const missing = issue.code === "invalid_type" && plain[property] === undefined;
      failures.push({
        property,
        reason: missing
          ? property === "allow"
            ? "allow is required: the names (exact or *.suffix) and CIDRs the proxy's computers may reach"
            : "lifetimeMs is required: how long the proxy forwards, longer than its computers live"
          : `${issue.path.join(".")}: ${issue.message}`,
      });
      refused.add(property);
    }
  }
  const id = plain.provider ?? DEFAULT_PROVIDER;
  let provider: ComputerProvider | undefined;
  if (typeof id === "string" && id !== UNKNOWN && !refused.has("provider")) {
    const v = await ctx.vendor(id);
    if (!v.ok) failures.push({ property: "provider", reason: v.error.message });
    else if (!v.value.proxies)
      failures.push({ property: "provider", reason: `the ${v.value.id} provider has no shared egress proxy, so an EgressProxy cannot run on it` });
    else provider = v.value;
  }
  const inputs: Props = { ...plain, provider: id };
  const user = plain.user ?? provider?.capabilities().defaults?.user;
  if (user !== undefined) inputs.user = normalUser(user);
  if (provider?.proxies) {
    // Every field known now, whatever else is unknown (a preview's): one refused already, unknown
    // or left out is left out of the spec, and not refused for its absence.
    const left = new Set<string>(INPUTS.filter((k) => refused.has(k) || inputs[k] === undefined || hasUnknown(inputs[k])));
    const parsed = KNOWN_SPEC.safeParse(Object.fromEntries(Object.entries(inputs).filter(([k]) => isField(INPUTS, k) && k !== "provider" && !left.has(k))));
    // Each field was of its shape as given, or is the provider's own default user.
    if (!parsed.success) throw new Error(`the ${TYPE} inputs check filled in are not of their shapes (${parsed.error.message}): a fault of the plugin's`);
    const proxies = provider.proxies;
    for (const r of checkKnown((known: ProxyCheckInput) => proxies.check(known), parsed.data, left)) {
      // A refusal of no input (the host, the provider's settings) is the resource's as a whole.
      const field = r.field.split(/[.[]/)[0] ?? "";
      const property = isField(INPUTS, field) ? field : "";
      // A credential's refusal names its place and never its value, so it is said whole.
      const said = !secretKeys.has(property) || property === "credentials";
      failures.push({ property, reason: said ? r.message : `${property} (a secret) is refused` });
    }
  }
  if (failures.length) return { failures };
  // The name stays while the proxy does; a change that makes a new proxy chooses a new one, the
  // same at a preview as at its up (seeded by the resource and the name it replaces).
  const keep = typeof old.name === "string" && replacedBy(old, inputs).length === 0;
  const owner = resourceOwner(ctx);
  const seed = owner === undefined ? undefined : `${owner}\0${typeof old.name === "string" ? old.name : ""}`;
  inputs.name = keep ? old.name : (provider?.proxies?.freshName(seed) ?? UNKNOWN);
  inputs.egress = { proxy: inputs.name, user: inputs.user };
  return { inputs: wrapDerived(inputs, secretsOf(secretKeys), { egress: ["user"], name: [] }) };
}

/** The declared list, kept as declared when the read-back is the same list in normal form. */
function listAsDeclared(declared: string[], read: string[]): string[] {
  return sameAllowlist(declared, read) ? declared : read;
}

function outputsOf(declared: Omit<Inputs, "egress">, ref: ProxyRef, state: "running" | "stopped", drift: string[]): Props {
  const outs: Props = {
    provider: declared.provider,
    allow: listAsDeclared(declared.allow, ref.allow),
    lifetimeMs: declared.lifetimeMs,
    user: ref.user,
    name: ref.name,
    egress: { proxy: ref.name, user: ref.user },
    hostAddresses: ref.hostAddresses,
    deadline: ref.deadline,
    state,
    drift,
  };
  if (declared.hint !== undefined) outs.hint = declared.hint;
  if (declared.rules !== undefined) outs.rules = declared.rules;
  if (declared.credentials !== undefined) outs.credentials = declared.credentials;
  return outs;
}

async function create(ctx: Context, { inputs, secretKeys }: Step<Inputs>) {
  const proxies = proxiesOf(await vendorOf(ctx, inputs.provider));
  const signal = bounded(ctx, STEP_MS);
  const owner = resourceOwner(ctx);
  const options = { signal, ...(owner === undefined ? {} : { owner }) };
  const make = async () => {
    const first = await proxies.make(specOf(inputs), options);
    if (first.ok || first.error.code !== "exists") return first;
    // The name check chose is held: by this resource's own create, cut short (its owner label),
    // which is removed and made again; else (a replacement made before the old proxy goes) by
    // another, and a fresh name is taken.
    const held = owner !== undefined && typeof inputs.name === "string" ? await heldByOwner(proxies, inputs.name, owner, signal) : undefined;
    if (held !== undefined) {
      const removed = await proxies.release(held, { signal });
      if (removed.ok) return proxies.make(specOf(inputs), options);
    }
    return proxies.make({ ...specOf(inputs), name: undefined }, options);
  };
  const made = orThrow(await whileWaiting(ctx.say, "waiting for the egress proxy's ready line", make));
  // Its id (Kubernetes: the ConfigMap's name and uid) names it alone to read, update and delete.
  return { id: made.id ?? made.name, outs: wrapDerived(outputsOf(inputs, made, "running", []), secretsOf(secretKeys), DERIVED) };
}

/** The id of the proxy of that name when it was made for this owner. */
async function heldByOwner(proxies: EgressProxies, name: string, owner: string, signal: AbortSignal): Promise<string | undefined> {
  const read = await proxies.read(name, { signal });
  return read.ok && read.value.ref.labels[OWNER_LABEL] === ownerLabel(owner)[OWNER_LABEL] ? (read.value.ref.id ?? name) : undefined;
}

async function observe(proxies: EgressProxies, id: string, signal: AbortSignal): Promise<ProxyReadBack | "gone"> {
  const read = await proxies.read(id, { signal });
  if (read.ok) return read.value;
  if (read.error.code === "not_found") return "gone";
  return orThrow(read);
}

async function read(ctx: Context, id: string, { old, secretKeys }: State) {
  const provider = await vendorOf(ctx, typeof old.provider === "string" ? old.provider : DEFAULT_PROVIDER);
  const o = await observe(proxiesOf(provider), id, bounded(ctx, STEP_MS));
  if (o === "gone") return {}; // its volume is gone: refresh drops it, and the next up makes a new one
  // An import has no outputs: what is there is what was declared (its hint too, which a stack's
  // default would otherwise change), and its lifetime what is left.
  const imported = old.allow === undefined;
  const hint = typeof old.hint === "string" ? old.hint : imported && o.ref.hint !== "" ? o.ref.hint : undefined;
  const name = o.ref.name;
  const declared: Omit<Inputs, "egress"> = {
    name,
    provider: provider.id,
    allow: old.allow ?? o.ref.allow,
    lifetimeMs: typeof old.lifetimeMs === "number" ? old.lifetimeMs : Math.max(1000, Math.ceil((Date.parse(o.ref.deadline) - Date.now()) / 1000) * 1000),
    user: typeof old.user === "string" ? old.user : o.ref.user,
    ...(hint === undefined ? {} : { hint }),
    ...(old.rules === undefined ? {} : { rules: old.rules }),
    ...(old.credentials === undefined ? {} : { credentials: old.credentials }),
  };
  // Stopped is drift, named `state` by the diff, and said first; a proxy re-run by hand with
  // another list reads back as made, but not as declared.
  const drift = o.state === "stopped" ? [`the egress proxy ${name} is stopped: its computers reach nothing`, ...o.drift] : [...o.drift];
  if (o.network && "allow" in o.network && !sameAllowlist(declared.allow, o.ref.allow))
    drift.push(`the egress proxy ${name} holds ${o.ref.allow.join(", ")}, not the declared ${declared.allow.join(", ")}`);
  if (o.network && "allow" in o.network && o.ref.rules !== undefined)
    for (const host of rulesChangedHosts(ruleArgs(declared.rules), o.ref.rules))
      drift.push(`the egress proxy ${name} holds other rules for ${host} than declared`);
  if (o.network && "allow" in o.network && o.credentials !== undefined && !imported)
    for (const host of credentialsChangedHosts(declared.credentials ?? [], o.credentials))
      drift.push(`the egress proxy ${name} holds another credential for ${host} than declared`);
  const outs = outputsOf(declared, o.ref, o.state, drift);
  // The inputs as read back, so preview --refresh shows the list that changed (none when the proxy is gone).
  const inputs: Props = {
    provider: declared.provider,
    allow: outs.allow,
    lifetimeMs: declared.lifetimeMs,
    user: o.ref.user,
    name,
    egress: { proxy: name, user: o.ref.user },
  };
  if (declared.hint !== undefined) inputs.hint = o.ref.hint === declared.hint || o.ref.hint === "" ? declared.hint : o.ref.hint;
  // The rules as the proxy runs them (declared when the same), so preview --refresh shows a hand change.
  const held = o.ref.rules ?? [];
  if (declared.rules !== undefined || held.length > 0)
    inputs.rules = rulesChangedHosts(ruleArgs(declared.rules), held).length === 0 ? declared.rules : held.map(ruleOf);
  if (declared.credentials !== undefined) inputs.credentials = declared.credentials;
  return { id, props: wrapDerived(outs, secretsOf(secretKeys), DERIVED), inputs: wrapDerived(inputs, secretsOf(secretKeys)) };
}

async function diff(ctx: Context, _id: string, { old: o }: State, n: Props): Promise<FieldDiff> {
  const replaces: string[] = replacedBy(o, n);
  // The new rules as check passed them; at a preview they may hold an unknown anywhere (a rule's
  // methods from another resource's output), which is a change of rules, known at up.
  const newRules = Given.shape.rules.safeParse(n.rules);
  if (typeof n.name === "string" && n.name !== o.name) replaces.push("name");
  // Past its deadline the volume's time is spent: a new proxy (and so new computers).
  if (typeof o.deadline === "string" && Date.parse(o.deadline) <= Date.now()) replaces.push("deadline");
  const updates = [
    ...(n.allow === UNKNOWN || !sameAllowlist(o.allow, n.allow) ? ["allow"] : []),
    ...(n.hint !== undefined && o.hint !== n.hint ? ["hint"] : []),
    ...(!newRules.success || rulesChangedHosts(ruleArgs(o.rules), ruleArgs(newRules.data)).length > 0 ? ["rules"] : []),
    ...(n.credentials === UNKNOWN || JSON.stringify(o.credentials ?? []) !== JSON.stringify(n.credentials ?? []) ? ["credentials"] : []),
    ...(o.state === "stopped" ? ["state"] : []),
  ];
  // Stopped, removed or widened by hand: made again on the same volume. Drift no field names is
  // named drift; the drift's sentences are shown under --diff whatever field names them.
  const drifted = Array.isArray(o.drift) && o.drift.length > 0;
  if (drifted && replaces.length + updates.length === 0) updates.push("drift");
  const changed: Record<string, FieldChange> = {
    ...(drifted ? { drift: "update" as const } : {}),
    ...Object.fromEntries(updates.map((k) => [k, "update" as const])),
    ...Object.fromEntries(replaces.map((k) => [k, "update-replace" as const])),
  };
  const diffs = [...replaces, ...updates];
  // What a change of rules opens and closes, host by host, among the preview's diagnostics (one
  // message, so the hosts keep their order).
  const opened = newRules.success && updates.includes("rules") ? rulesChange(o.rules, newRules.data) : [];
  if (opened.length > 0) ctx.tell?.(opened.join("\n"));
  return { changes: diffs.length > 0, replaces, deleteBeforeReplace: false, detailedDiff: changed, diffs };
}

async function update(ctx: Context, id: string, _olds: State, { inputs, secretKeys }: Step<Inputs>) {
  const proxies = proxiesOf(await vendorOf(ctx, inputs.provider));
  const signal = bounded(ctx, STEP_MS);
  const made = orThrow(await whileWaiting(ctx.say, "changing the egress proxy's list", () => proxies.update(id, changeOf(inputs), { signal })));
  return { outs: wrapDerived(outputsOf(inputs, made, "running", []), secretsOf(secretKeys), DERIVED) };
}

async function remove(ctx: Context, id: string, { old }: State) {
  const provider = await vendorOf(ctx, typeof old.provider === "string" ? old.provider : DEFAULT_PROVIDER);
  orThrow(await proxiesOf(provider).release(id, { signal: bounded(ctx, STEP_MS) }));
}

export const egressProxy = resource(TYPE, {
  given: Given,
  inputs: INPUTS,
  checked: Checked,
  stored: Stored,
  check,
  diff,
  create,
  read,
  update,
  delete: remove,
});
