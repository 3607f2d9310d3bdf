// A shared egress proxy on Docker, apart from any computer (src/egress/proxies.ts): the parts
// are keyed by the proxy's own name (proxy-<12 hex digits>), so a computer's release never
// finds them; computers join it by mounting its volume read-only. Changing the list makes the
// proxy container again on the same volume: its computers keep running, and their next
// connection meets the new list.
import { createHash, randomBytes } from "node:crypto";
import type { CallOptions } from "../daemon/client.js";
import { checkAllowlist, hintProblem } from "../egress/list.js";
import type { EgressProxies, ProxyCheckInput, ProxyMakeOptions, ProxyNetwork, ProxyReadBack, ProxyRef, ProxySpec } from "../egress/proxies.js";
import { labelRefusals, withOwnerLabel } from "../contract/labels.js";
import { checkLifetime } from "../contract/lifetime.js";
import { fail, ok, refuse, type Refusal, type Result } from "../daemon/result.js";
import { parseUser, userText } from "../contract/user.js";
import type { DockerEngine } from "./api.js";
import { failure } from "./containers.js";
import { COMPUTER_LABEL, DEADLINE_LABEL, MAX_LIFETIME_MS } from "./constants.js";
import { inspectEgress, makeEgress, makeEgressVolume, removeEgress } from "./egress.js";
import { flagsOf } from "../egress/proxy-command.js";
import { checkRules, credentialsOf, ruleArg } from "../egress/rules.js";
import { type EgressExpected, proxyReadBack } from "./egress-readback.js";
import { EGRESS_LABEL, egressName, type EgressPlan, PROXY_PATTERN } from "./egress-request.js";
import type { Host } from "./host.js";
import type { Inspected } from "./readback.js";
import { driftOfOther } from "../egress/network.js";

const CALL_MS = 60_000;

/** What the shared proxies need of their DockerProvider. */
export interface ProxyDeps {
  engine: DockerEngine;
  /** The host read, refused when it lacks any enforcement. */
  host(options: CallOptions): Promise<Result<Host>>;
  /** The proxy's image made ready (once per provider). */
  image(options: CallOptions): Promise<Result<string>>;
  /** The proxy's image this provider runs, read without making it. */
  imageTag(): Promise<Result<string>>;
  /** The Docker host's addresses the provider requires now. */
  addresses(): Result<string[]>;
  userDefault: string;
  hint: string;
  readyMs: number;
  testNetwork?: { name: string; range: string; upstreamRoot?: string | undefined };
}

interface VolumeInfo {
  Name: string;
  Labels?: Record<string, string> | null;
  Options?: Record<string, string> | null;
}

/** The owner the volume was made for, from its tmpfs options (uid=…,gid=…). */
function ownerOf(volume: VolumeInfo): { uid: number; gid: number } | undefined {
  const o = volume.Options?.o ?? "";
  const uid = /(?:^|,)uid=(\d+)(?:,|$)/.exec(o)?.[1];
  const gid = /(?:^|,)gid=(\d+)(?:,|$)/.exec(o)?.[1];
  return uid === undefined || gid === undefined ? undefined : { uid: Number(uid), gid: Number(gid) };
}

/** The caller's labels on a part: all but the provider's own namespace. */
function callerLabels(labels: Record<string, string> | null | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(labels ?? {}).filter(([k]) => k !== COMPUTER_LABEL && !k.startsWith(`${COMPUTER_LABEL}.`)));
}

/** A checked spec's rules in their argv form and its credentials, as a plan holds them. */
function heldBy(spec: Pick<ProxySpec, "rules" | "credentials">): Pick<EgressPlan, "rules" | "credentials"> {
  return {
    ...(spec.rules?.length ? { rules: spec.rules.map(ruleArg) } : {}),
    ...(spec.credentials?.length ? { credentials: spec.credentials } : {}),
  };
}

export class DockerEgressProxies implements EgressProxies {
  readonly #deps: ProxyDeps;

  constructor(deps: ProxyDeps) {
    this.#deps = deps;
  }

  #refusals(spec: ProxyCheckInput): Refusal[] {
    const out: Refusal[] = [];
    if (typeof spec !== "object" || spec === null) return [{ field: "spec", message: "a proxy's spec is an object with allow and lifetimeMs" }];
    const known = new Set(["name", "allow", "lifetimeMs", "user", "hint", "labels", "rules", "credentials"]);
    for (const key of Object.keys(spec))
      if (!known.has(key)) out.push({ field: key, message: `${key} is not a field of an egress proxy (it takes ${[...known].join(", ")})` });
    const range = this.#deps.testNetwork?.range;
    const list = checkAllowlist(spec.allow, range === undefined ? {} : { testNetwork: range });
    if (!list.ok) for (const r of list.refusals) out.push({ field: "allow", message: `allow: ${r.message}` });
    else out.push(...checkRules(spec.rules, spec.credentials, list.entries));
    const lifetime = checkLifetime(spec.lifetimeMs, { maxLifetimeMs: MAX_LIFETIME_MS });
    if (lifetime) out.push(lifetime);
    if (spec.user !== undefined) {
      const user = parseUser(spec.user);
      if (!user.ok) out.push({ field: "user", message: user.error.message });
    }
    if (spec.hint !== undefined) {
      const words = hintProblem(spec.hint, "hint");
      if (words) out.push({ field: "hint", message: words });
    }
    if (spec.labels !== undefined) out.push(...labelRefusals(spec.labels, COMPUTER_LABEL));
    if (spec.name !== undefined && !(typeof spec.name === "string" && PROXY_PATTERN.test(spec.name)))
      out.push({ field: "name", message: "an egress proxy's name is proxy-<12 hex digits>" });
    // The host's addresses the proxy would refuse: settings that cannot name them refuse every proxy, before anything is made.
    const addresses = this.#deps.addresses();
    if (!addresses.ok) out.push({ field: "host", message: addresses.error.message });
    return out;
  }

  freshName(seed?: string): string {
    return `proxy-${seed === undefined ? randomBytes(6).toString("hex") : createHash("sha256").update(seed).digest("hex").slice(0, 12)}`;
  }

  check(spec: ProxyCheckInput): Result<undefined> {
    return refuse(this.#refusals(spec));
  }

  /** The host, refused when it lacks an enforcement or remaps user ids (as an allowlisted computer's). */
  async #host(options: CallOptions): Promise<Result<Host>> {
    const host = await this.#deps.host(options);
    if (!host.ok) return host;
    if (host.value.remap) {
      return fail(
        "refused",
        `this Docker host remaps user ids (${host.value.remap}), so the egress volume's owner and the proxy's user are host ids a computer's user does not map to; an egress proxy is refused here. Nothing was made`,
        { field: "host" },
      );
    }
    return host;
  }

  async make(spec: ProxySpec, options: ProxyMakeOptions = {}): Promise<Result<ProxyRef>> {
    const { signal } = options;
    const checked = this.check(spec);
    if (!checked.ok) return checked;
    const host = await this.#host(options);
    if (!host.ok) return host;
    const addresses = this.#deps.addresses();
    if (!addresses.ok) return fail(addresses.error.code, `${addresses.error.message}. Nothing was made`, { field: addresses.error.field ?? "allow" });
    const image = await this.#deps.image(options);
    if (!image.ok) return fail(image.error.code, `${image.error.message}. Nothing was made`, { field: "allow" });
    const user = parseUser(spec.user ?? this.#deps.userDefault);
    if (!user.ok) return user;
    const range = this.#deps.testNetwork?.range;
    const list = checkAllowlist(spec.allow, range === undefined ? {} : { testNetwork: range });
    if (!list.ok) return fail("invalid", list.refusals[0]!.message, { field: "allow" });
    if (signal?.aborted) return fail("aborted", "making the egress proxy was aborted before anything was made");
    const key = spec.name ?? this.freshName();
    // Docker answers a volume create for a name taken with the volume there: asked first.
    if (spec.name !== undefined) {
      const taken = await this.#volume(key, options);
      if (!taken.ok) return taken;
      if (taken.value)
        return fail("exists", `the egress proxy name ${key} is taken (its volume ${egressName(key)} is there); nothing was made`, { field: "name" });
    }
    const plan: EgressPlan = {
      key,
      uid: user.value.uid,
      gid: user.value.gid,
      deadline: new Date(Date.now() + spec.lifetimeMs).toISOString(),
      allow: list.entries,
      hostAddresses: addresses.value,
      hint: spec.hint ?? this.#deps.hint,
      labels: withOwnerLabel(spec.labels, options.owner),
      image: image.value,
      ...(this.#deps.testNetwork ? { testNetwork: this.#deps.testNetwork } : {}),
      ...heldBy(spec),
    };
    const volume = await makeEgressVolume(this.#deps.engine, plan, { signal, madeFor: "proxy" });
    if (!volume.ok) return volume;
    const made = await makeEgress(this.#deps.engine, plan, { signal, readyMs: this.#deps.readyMs, madeFor: "proxy" });
    if (!made.ok) return made;
    return ok(this.#refOf(plan));
  }

  #refOf(plan: EgressPlan): ProxyRef {
    return {
      name: plan.key,
      user: `${plan.uid}:${plan.gid}`,
      deadline: plan.deadline,
      allow: [...plan.allow],
      hint: plan.hint,
      hostAddresses: [...plan.hostAddresses],
      labels: { ...plan.labels },
      rules: [...(plan.rules ?? [])],
    };
  }

  #nameProblem(name: string): ReturnType<typeof fail> | undefined {
    if (typeof name === "string" && PROXY_PATTERN.test(name)) return undefined;
    return fail("invalid", "an egress proxy's name is proxy-<12 hex digits>, as make gives it", { field: "name" });
  }

  async #volume(name: string, options: CallOptions): Promise<Result<VolumeInfo | undefined>> {
    const read = await this.#deps.engine.call<VolumeInfo>("GET", `/volumes/${encodeURIComponent(egressName(name))}`, {
      signal: options.signal,
      timeoutMs: CALL_MS,
    });
    if (read.status === 404) return ok(undefined);
    if (!read.ok || !read.value) return failure(this.#deps.engine, `inspecting the egress volume ${egressName(name)}`, read);
    return ok(read.value);
  }

  /** What the proxy must be, from its volume (owner, deadline) and the provider now. */
  async #expected(name: string, volume: VolumeInfo, addresses: readonly string[]): Promise<Result<EgressExpected>> {
    const owner = ownerOf(volume) ?? { uid: NaN, gid: NaN };
    const image = await this.#deps.imageTag();
    if (!image.ok) return image;
    return ok({
      key: name,
      uid: owner.uid,
      gid: owner.gid,
      deadline: volume.Labels?.[DEADLINE_LABEL] ?? "",
      image: image.value,
      hostAddresses: addresses,
      ...(this.#deps.testNetwork ? { testNetwork: this.#deps.testNetwork } : {}),
    });
  }

  /**
   * The proxy held to what it must be, as a computer behind it reads it. proxy is its inspect
   * (undefined when gone); the volume must be there.
   */
  async #held(name: string, volume: VolumeInfo, proxy: Inspected | undefined): Promise<Result<{ network: ProxyNetwork; expected: EgressExpected }>> {
    const addresses = this.#deps.addresses();
    if (!addresses.ok)
      return ok({
        network: { other: `network allow, but its egress proxy cannot be held to the Docker host's addresses: ${addresses.error.message}` },
        expected: { key: name, uid: NaN, gid: NaN, deadline: "", image: "", hostAddresses: [] },
      });
    const expected = await this.#expected(name, volume, addresses.value);
    if (!expected.ok) return expected;
    return ok({ network: proxyReadBack(proxy, expected.value), expected: expected.value });
  }

  async read(name: string, options: CallOptions = {}): Promise<Result<ProxyReadBack>> {
    const bad = this.#nameProblem(name);
    if (bad) return bad;
    const host = await this.#deps.host(options);
    if (!host.ok) return host;
    const volume = await this.#volume(name, options);
    if (!volume.ok) return volume;
    if (!volume.value) return fail("not_found", `the egress proxy ${name} is gone (no volume ${egressName(name)})`);
    const proxy = await inspectEgress(this.#deps.engine, name, options);
    if (!proxy.ok) return proxy;
    const held = await this.#held(name, volume.value, proxy.value);
    if (!held.ok) return held;
    const { network, expected } = held.value;
    // The list and hint as the container runs them (even one re-run wider by hand), else none.
    const flags = flagsOf(proxy.value?.Config?.Cmd);
    const ref: ProxyRef = {
      name,
      user: `${expected.uid}:${expected.gid}`,
      deadline: expected.deadline,
      allow: typeof network === "object" && "allow" in network ? network.allow : (flags?.get("--allow") ?? []),
      hint: flags?.get("--hint")?.[0] ?? "",
      hostAddresses: flags?.get("--host-address") ?? [],
      labels: callerLabels(volume.value.Labels),
      rules: flags?.get("--rule") ?? [],
    };
    const drift = typeof network === "object" && "other" in network ? [driftOfOther(network.other)] : [];
    const credentials = credentialsOf(proxy.value?.Config?.Env);
    return ok({ ref, state: proxy.value?.State?.Running ? "running" : "stopped", network, drift, credentials });
  }

  async update(name: string, change: Pick<ProxySpec, "allow" | "hint" | "rules" | "credentials">, options: CallOptions = {}): Promise<Result<ProxyRef>> {
    const { signal } = options;
    const bad = this.#nameProblem(name);
    if (bad) return bad;
    const refusals = this.#refusals({ ...change, lifetimeMs: 1 });
    const refused = refuse(refusals);
    if (!refused.ok) return refused;
    const host = await this.#host(options);
    if (!host.ok) return host;
    const volume = await this.#volume(name, options);
    if (!volume.ok) return volume;
    if (!volume.value) return fail("not_found", `the egress proxy ${name} is gone (no volume ${egressName(name)}): make a new one`);
    const owner = ownerOf(volume.value);
    const deadline = volume.value.Labels?.[DEADLINE_LABEL] ?? "";
    if (!owner || Number.isNaN(Date.parse(deadline)))
      return fail("refused", `the egress volume ${egressName(name)} is not as make leaves it (its owner or deadline cannot be read): make a new proxy`);
    if (Date.parse(deadline) <= Date.now()) return fail("refused", `the egress proxy ${name} reached its deadline ${deadline}: make a new one`);
    const addresses = this.#deps.addresses();
    if (!addresses.ok) return addresses;
    const image = await this.#deps.image(options);
    if (!image.ok) return image;
    const range = this.#deps.testNetwork?.range;
    const list = checkAllowlist(change.allow, range === undefined ? {} : { testNetwork: range });
    if (!list.ok) return fail("invalid", list.refusals[0]!.message, { field: "allow" });
    const plan: EgressPlan = {
      key: name,
      uid: owner.uid,
      gid: owner.gid,
      deadline,
      allow: list.entries,
      hostAddresses: addresses.value,
      hint: change.hint ?? this.#deps.hint,
      labels: callerLabels(volume.value.Labels),
      image: image.value,
      ...(this.#deps.testNetwork ? { testNetwork: this.#deps.testNetwork } : {}),
      ...heldBy(change),
    };
    if (signal?.aborted) return fail("aborted", `the update of ${name} was aborted before its proxy was touched`);
    // The old proxy goes first: it removes its socket as it ends, and the new one makes it again
    // on the same volume, where every computer's relay dials it.
    const gone = await removeEgress(this.#deps.engine, name, "proxy");
    if (!gone.ok) return gone;
    const made = await makeEgress(this.#deps.engine, plan, { signal, readyMs: this.#deps.readyMs, madeFor: "again" });
    if (!made.ok) return made;
    return ok(this.#refOf(plan));
  }

  async release(name: string, options: CallOptions = {}): Promise<Result<undefined>> {
    const bad = this.#nameProblem(name);
    if (bad) return bad;
    if (options.signal?.aborted) return fail("aborted", `the release of ${name} was aborted before Docker was asked`);
    // Computers that still mount the volume would lose their one way out: released first.
    const users = await this.#deps.engine.call<Array<{ Names?: string[]; Labels?: Record<string, string> | null }>>("GET", "/containers/json", {
      query: { all: true, filters: JSON.stringify({ volume: [egressName(name)] }) },
      signal: options.signal,
      timeoutMs: CALL_MS,
    });
    if (!users.ok) return failure(this.#deps.engine, `finding the computers behind ${name}`, users);
    const computers = (users.value ?? []).filter((c) => c.Labels?.[EGRESS_LABEL] !== name).map((c) => (c.Names?.[0] ?? "?").replace(/^\//, ""));
    if (computers.length > 0) return fail("refused", `the egress proxy ${name} still serves ${computers.join(", ")}: release them first; nothing was removed`);
    return removeEgress(this.#deps.engine, name);
  }

  /**
   * What a computer joining the proxy meets: the proxy held to the computer's user and
   * deadline, read as its network. Create refuses a computer whose read is not an allowlist.
   */
  async joined(
    name: string,
    computer: { uid: number; gid: number; deadline?: string },
    options: CallOptions = {},
    read?: { proxy: Inspected | undefined },
  ): Promise<Result<ProxyNetwork>> {
    const volume = await this.#volume(name, options);
    if (!volume.ok) return volume;
    if (!volume.value) return ok({ other: `network allow, but its egress proxy ${egressName(name)} is gone (no volume)` });
    // A caller that read the proxy already (list, for many computers at once) hands it in.
    const proxy = read ? ok(read.proxy) : await inspectEgress(this.#deps.engine, name, options);
    if (!proxy.ok) return proxy;
    const addresses = this.#deps.addresses();
    if (!addresses.ok) return ok({ other: `network allow, but its egress proxy cannot be held to the Docker host's addresses: ${addresses.error.message}` });
    const expected = await this.#expected(name, volume.value, addresses.value);
    if (!expected.ok) return expected;
    const owner = ownerOf(volume.value);
    if (owner && (owner.uid !== computer.uid || owner.gid !== computer.gid)) {
      return ok({
        other: `network allow, but its egress proxy ${name} belongs to ${userText(owner)}, not the computer's ${computer.uid}:${computer.gid}: a computer joins a proxy of its own user`,
      });
    }
    return ok(proxyReadBack(proxy.value, { ...expected.value, ...(computer.deadline ? { until: computer.deadline } : {}) }));
  }
}
