// A shared egress proxy on Kubernetes (src/egress/proxies.ts): a ConfigMap in the namespace, its
// list one entry a line (key allow) beside its rules, hint, user and deadline, labelled with the
// caller's labels, and its credentials a Secret beside it (proxy-secret.ts). It runs nowhere
// itself: each computer that joins it keeps its own egress sidecar (as an allowlisted computer's
// own), which reads the list, rules, hint and credentials from the ConfigMap and Secret projected
// into it alone, so the computer still reaches only its own sidecar and the proxy's rules are the
// same code. An update patches the ConfigMap (and changes the Secret in place); the running
// sidecars take it as the kubelet writes it (at once for a Pod the update touches, else at the
// kubelet's next sync), which a read calls "not yet" within the bound listSyncMs and drift past
// it. A change of rules, hint or credentials waits, within that bound, until each running sidecar
// says it holds it: no computer restarts. A ConfigMap or Secret changed by hand is drift naming
// the host on the proxy. Release is refused while a computer mounts it.
// Its id is the ConfigMap's name and uid: read, update and release by it never touch a ConfigMap
// of the same name made since.
import { createHash, randomBytes } from "node:crypto";
import { labelRefusals, withOwnerLabel } from "../contract/labels.js";
import { checkLifetime } from "../contract/lifetime.js";
import { fail, ok, refuse, type Refusal, type Result } from "../daemon/result.js";
import { parseUser, userText } from "../contract/user.js";
import type { CallOptions } from "../daemon/client.js";
import { listDigest } from "../egress/list-digest.js";
import { checkAllowlist, hintProblem, sameAllowlist } from "../egress/list.js";
import { checkRules, credentialsChangedHosts, type EgressCredential, ruleArg, rulesChangedHosts } from "../egress/rules.js";
import { freshVersion, type ProxySecret, secretData, secretHeld, secretManifest, secretName } from "./proxy-secret.js";
import {
  type ConfigMap,
  heldOf,
  holdsAll,
  listText,
  proxyManifest,
  type ProxyHeld,
  type ProxyPlan,
  rulesText,
  type SidecarHolds,
  sidecarHolds,
} from "./proxy-configmap.js";
import { waitUntil } from "../contract/wait.js";
import type { EgressProxies, ProxyCheckInput, ProxyMakeOptions, ProxyReadBack, ProxyRef, ProxySpec } from "../egress/proxies.js";
import { userProblem } from "./check.js";
import { COMPUTER_LABEL, DIGEST_ANNOTATION, FIELD_MANAGER, idOf, PROXY_LABEL, PROXY_PATTERN, proxyOfId, TOLD_ANNOTATION } from "./constants.js";
import { EGRESS_CONTAINER, HINT_KEY, LIST_KEY, LIST_VOLUME, RULES_KEY } from "./egress.js";
import type { KubePods } from "./pods.js";
import type { Pod } from "./readback.js";

/** Whether a Pod mounts the proxy's ConfigMap. */
const mounts = (pod: Pod, name: string) =>
  (pod.spec?.volumes ?? []).some((v) => v.name === LIST_VOLUME && (v.projected?.sources ?? []).some((src) => src.configMap?.name === name));

const KNOWN = new Set(["name", "allow", "lifetimeMs", "user", "hint", "labels", "rules", "credentials"]);

export class KubeEgressProxies implements EgressProxies {
  readonly #sb: KubePods;

  constructor(sb: KubePods) {
    this.#sb = sb;
  }

  #path(name?: string): string {
    return `/api/v1/namespaces/${encodeURIComponent(this.#sb.o.namespace)}/configmaps${name === undefined ? "" : `/${encodeURIComponent(name)}`}`;
  }

  #range(): { testNetwork: string } | Record<string, never> {
    return this.#sb.o.egress.testRange ? { testNetwork: this.#sb.o.egress.testRange } : {};
  }

  #refusals(spec: ProxyCheckInput): Refusal[] {
    if (typeof spec !== "object" || spec === null) return [{ field: "spec", message: "a proxy's spec is an object with allow and lifetimeMs" }];
    const out: Refusal[] = [];
    for (const key of Object.keys(spec)) {
      if (!KNOWN.has(key)) out.push({ field: key, message: `${key} is not a field of an egress proxy (it takes ${[...KNOWN].join(", ")})` });
    }
    const list = checkAllowlist(spec.allow, this.#range());
    if (!list.ok) for (const r of list.refusals) out.push({ field: "allow", message: `allow: ${r.message}` });
    else out.push(...checkRules(spec.rules, spec.credentials, list.entries));
    const lifetime = checkLifetime(spec.lifetimeMs, { maxLifetimeMs: this.#sb.o.maxLifetimeMs });
    if (lifetime) out.push(lifetime);
    if (spec.user !== undefined) {
      const problem = userProblem(spec.user);
      if (problem) out.push({ field: "user", message: problem });
    }
    if (spec.hint !== undefined) {
      const words = hintProblem(spec.hint, "hint");
      if (words) out.push({ field: "hint", message: words });
    }
    if (spec.labels !== undefined) {
      out.push(...labelRefusals(spec.labels, COMPUTER_LABEL));
      if (typeof spec.labels === "object" && spec.labels !== null)
        for (const key of Object.keys(spec.labels))
          if (key.startsWith(`${COMPUTER_LABEL}/`))
            out.push({ field: "labels", message: `the label ${key} is in the provider's own prefix (${COMPUTER_LABEL}/); choose another key` });
    }
    if (spec.name !== undefined && !(typeof spec.name === "string" && PROXY_PATTERN.test(spec.name)))
      out.push({ field: "name", message: "an egress proxy's name is proxy-<12 hex digits>" });
    return out;
  }

  freshName(seed?: string): string {
    return `proxy-${seed === undefined ? randomBytes(6).toString("hex") : createHash("sha256").update(seed).digest("hex").slice(0, 12)}`;
  }

  check(spec: ProxyCheckInput): Result<undefined> {
    return refuse(this.#refusals(spec));
  }

  /** The ConfigMap an id names, or the refusal of an id that names no proxy. */
  #target(id: unknown): Result<{ name: string; uid?: string }> {
    const target = proxyOfId(id);
    return target ? ok(target) : fail("invalid", "an egress proxy's id is proxy-<12 hex digits>, as make gives it, or that and its uid", { field: "name" });
  }

  /** The ConfigMap an id names: undefined when there is none, or when the one of its name is another, made since. */
  async #configMapOf(target: { name: string; uid?: string }, signal?: AbortSignal): Promise<Result<ConfigMap | undefined>> {
    const cm = await this.configMap(target.name, signal);
    return cm.ok && cm.value && target.uid && cm.value.metadata.uid !== target.uid ? ok(undefined) : cm;
  }

  /** Why the proxy an id names is not there, in the words read, update and release share. */
  #gone(target: { name: string; uid?: string }): string {
    return `the egress proxy ${idOf(target.name, target.uid)} is gone (no ConfigMap ${target.name}${target.uid ? ` of uid ${target.uid}` : ""} in ${this.#sb.o.namespace})`;
  }

  /** The ConfigMap, or undefined when there is none. */
  async configMap(name: string, signal?: AbortSignal): Promise<Result<ConfigMap | undefined>> {
    const read = await this.#sb.api.call<ConfigMap>(this.#path(name), `reading the ConfigMap ${name}`, { ms: this.#sb.o.t.callMs, signal });
    if (read.ok) return read;
    return read.error.code === "not_found" ? ok(undefined) : read;
  }

  #secretPath(name?: string): string {
    return `/api/v1/namespaces/${encodeURIComponent(this.#sb.o.namespace)}/secrets${name === undefined ? "" : `/${encodeURIComponent(secretName(name))}`}`;
  }

  /** The proxy's credentials as its Secret holds them: undefined when it has no Secret. */
  async credentials(name: string, signal?: AbortSignal): Promise<Result<EgressCredential[] | undefined>> {
    const read = await this.#sb.api.call<ProxySecret>(this.#secretPath(name), `reading the Secret ${secretName(name)}`, { ms: this.#sb.o.t.callMs, signal });
    if (read.ok) return ok(secretHeld(read.value).credentials);
    return read.error.code === "not_found" ? ok(undefined) : read;
  }

  /**
   * The proxy's Secret holding these credentials under a fresh version, given back (none: deleted,
   * and a Secret already gone is fine, its version "none" as a sidecar says it). One there is
   * changed in place, so a running sidecar never reads a moment with none.
   */
  async #writeSecret(name: string, credentials: readonly EgressCredential[], labels: Record<string, string>, signal?: AbortSignal): Promise<Result<string>> {
    if (credentials.length === 0) {
      const gone = await this.#sb.api.call(this.#secretPath(name), `deleting the Secret ${secretName(name)}`, {
        method: "DELETE",
        ms: this.#sb.o.t.callMs,
        signal,
      });
      return gone.ok || gone.error.code === "not_found" ? ok("none") : gone;
    }
    const version = freshVersion();
    const changed = await this.#sb.api.call(`${this.#secretPath(name)}?fieldManager=${FIELD_MANAGER}`, `changing the Secret ${secretName(name)}`, {
      method: "PATCH",
      body: { data: secretData(credentials, version) },
      ms: this.#sb.o.t.callMs,
      signal,
    });
    if (changed.ok) return ok(version);
    if (changed.error.code !== "not_found") return changed;
    const made = await this.#sb.api.call(`${this.#secretPath()}?fieldManager=${FIELD_MANAGER}`, `making the Secret ${secretName(name)}`, {
      method: "POST",
      body: secretManifest(name, this.#sb.o.namespace, credentials, labels, version),
      ms: this.#sb.o.t.callMs,
      signal,
    });
    return made.ok ? ok(version) : made;
  }

  async make(spec: ProxySpec, options: ProxyMakeOptions = {}): Promise<Result<ProxyRef>> {
    const { signal } = options;
    const checked = this.check(spec);
    if (!checked.ok) return checked;
    const cluster = await this.#sb.preflight.check(undefined, signal);
    if (!cluster.ok) return fail(cluster.error.code, `${cluster.error.message}; nothing was made`, cluster.error.field ? { field: cluster.error.field } : {});
    const user = parseUser(spec.user ?? this.#sb.o.user);
    const list = checkAllowlist(spec.allow, this.#range());
    if (!user.ok || !list.ok) return fail("invalid", "the proxy's user or list changed under check; nothing was made");
    if (signal?.aborted) return fail("aborted", "making the egress proxy was aborted before the API server was asked; nothing was made");
    const plan: ProxyPlan = {
      name: spec.name ?? this.freshName(),
      namespace: this.#sb.o.namespace,
      allow: list.entries,
      rules: (spec.rules ?? []).map(ruleArg),
      user: userText(user.value),
      deadline: new Date(Date.now() + spec.lifetimeMs).toISOString(),
      hint: spec.hint ?? this.#sb.o.egress.hint,
      labels: withOwnerLabel(spec.labels, options.owner),
    };
    const made = await this.#sb.api.call<ConfigMap>(`${this.#path()}?fieldManager=${FIELD_MANAGER}`, `making the ConfigMap ${plan.name}`, {
      method: "POST",
      body: proxyManifest(plan),
      ms: this.#sb.o.t.callMs,
      signal,
    });
    if (!made.ok) {
      const field = made.error.code === "exists" ? "name" : made.error.code === "refused" ? "namespace" : undefined;
      return fail(made.error.code, `${made.error.message}; nothing was made`, field ? { field } : {});
    }
    const uid = made.value.metadata.uid;
    if (spec.credentials?.length) {
      const keyed = await this.#writeSecret(plan.name, spec.credentials, plan.labels, signal);
      if (!keyed.ok) {
        // The ConfigMap made is removed (by its uid): a proxy is made whole or not at all.
        await this.#sb.api.call(this.#path(plan.name), `deleting the ConfigMap ${plan.name}`, {
          method: "DELETE",
          body: { apiVersion: "v1", kind: "DeleteOptions", ...(uid ? { preconditions: { uid } } : {}) },
          ms: this.#sb.o.t.callMs,
        });
        return fail(keyed.error.code, `${keyed.error.message}; the ConfigMap ${plan.name} made was deleted, so nothing was made`, { field: "credentials" });
      }
    }
    return ok(this.#refOf({ ...plan, uid }));
  }

  #refOf(p: Pick<ProxyPlan, "name" | "allow" | "rules" | "user" | "deadline" | "hint" | "labels"> & { uid: string | undefined }): ProxyRef {
    return {
      name: p.name,
      id: idOf(p.name, p.uid),
      user: p.user,
      deadline: p.deadline,
      allow: [...p.allow],
      rules: [...p.rules],
      hint: p.hint,
      hostAddresses: [...this.#sb.o.egress.hostAddresses],
      labels: { ...p.labels },
    };
  }

  async read(id: string, options: CallOptions = {}): Promise<Result<ProxyReadBack>> {
    const target = this.#target(id);
    if (!target.ok) return target;
    const { name } = target.value;
    const cm = await this.#configMapOf(target.value, options.signal);
    if (!cm.ok) return cm;
    if (!cm.value) return fail("not_found", this.#gone(target.value));
    const held = heldOf(cm.value, this.#sb.o.egress.testRange);
    const drift = [...held.drift];
    const stopped = Date.parse(held.deadline) <= Date.now();
    if (stopped) drift.push(`the egress proxy ${name} reached its deadline ${held.deadline}: its computers' sidecars forward nothing past theirs`);
    const network = held.entries ? { allow: held.entries } : { other: `network allow, but its egress proxy ${name}'s list cannot be held (${held.refused})` };
    const credentials = await this.credentials(name, options.signal);
    if (!credentials.ok) return credentials;
    return ok({
      ref: this.#refOf({ ...held, allow: held.entries ?? [] }),
      state: stopped ? "stopped" : "running",
      network,
      drift,
      // Always given, [] for no Secret: a Secret deleted by hand is drift too.
      credentials: credentials.value ?? [],
    });
  }

  /** The computers' Pods that mount the proxy's ConfigMap, in one list of the namespace's computers. */
  async joinedPods(name: string, signal?: AbortSignal): Promise<Result<Pod[]>> {
    const pods = await this.#sb.list({}, signal);
    return pods.ok ? ok(pods.value.filter((p) => !p.metadata.deletionTimestamp && mounts(p, name))) : pods;
  }

  async update(id: string, change: Pick<ProxySpec, "allow" | "hint" | "rules" | "credentials">, options: CallOptions = {}): Promise<Result<ProxyRef>> {
    const { signal } = options;
    const target = this.#target(id);
    if (!target.ok) return target;
    const { name } = target.value;
    const refused = refuse(this.#refusals({ ...change, lifetimeMs: 1 }));
    if (!refused.ok) return refused;
    const cm = await this.#configMapOf(target.value, signal);
    if (!cm.ok) return cm;
    if (!cm.value) return fail("not_found", `${this.#gone(target.value)}: make a new one`);
    const held = heldOf(cm.value, this.#sb.o.egress.testRange);
    if (!held.user || Number.isNaN(Date.parse(held.deadline)))
      return fail("refused", `the ConfigMap ${name} is not as make leaves it (its user or deadline cannot be read): make a new proxy; nothing was changed`);
    if (Date.parse(held.deadline) <= Date.now())
      return fail("refused", `the egress proxy ${name} reached its deadline ${held.deadline}: make a new one; nothing was changed`);
    const list = checkAllowlist(change.allow, this.#range());
    if (!list.ok) return fail("invalid", list.refusals[0]!.message, { field: "allow" });
    const rules = change.rules === undefined ? held.rules : change.rules.map(ruleArg);
    const hint = change.hint ?? held.hint;
    const keys = await this.credentials(name, signal);
    if (!keys.ok) return keys;
    const rekeyed = change.credentials !== undefined && credentialsChangedHosts(keys.value ?? [], change.credentials).length > 0;
    // What each running sidecar reads from its files again: the update waits until each says it holds them.
    const resettled = rekeyed || hint !== held.hint || rulesChangedHosts(held.rules, rules).length > 0;
    const digest = listDigest(list.entries);
    if (signal?.aborted) return fail("aborted", `the update of ${name} was aborted before the API server was asked; nothing was changed`);
    const patched = await this.#sb.api.call(`${this.#path(name)}?fieldManager=${FIELD_MANAGER}`, `changing the ConfigMap ${name}'s list`, {
      method: "PATCH",
      // Its uid in the patch: the API server refuses it for a ConfigMap of the same name made since the read.
      body: {
        metadata: { uid: held.uid, labels: { [PROXY_LABEL]: "1" }, annotations: { [DIGEST_ANNOTATION]: digest } },
        data: { [LIST_KEY]: listText(list.entries), [RULES_KEY]: rulesText(rules), [HINT_KEY]: hint },
      },
      ms: this.#sb.o.t.callMs,
      signal,
    });
    if (!patched.ok) return patched;
    let version: string | undefined;
    if (rekeyed) {
      const keyed = await this.#writeSecret(name, change.credentials ?? [], held.labels, signal);
      if (!keyed.ok) return fail(keyed.error.code, `${keyed.error.message}; the list and rules were changed, the credentials not`, { field: "credentials" });
      version = keyed.value;
    }
    await this.#tell(name, digest, signal);
    const ref = this.#refOf({ ...held, allow: list.entries, rules, hint });
    if (!resettled) return ok(ref);
    const taken = await this.#taken(name, { allow: list.entries, rules, hint, ...(version === undefined ? {} : { version }) }, signal);
    return taken.ok ? ok(ref) : taken;
  }

  /**
   * Waits, within listSyncMs, until each running computer behind the proxy says (its sidecar's log)
   * it holds the proxy's list, rules, hint and, given, credentials' version; else names those that
   * did not, the proxy changed all the same.
   */
  async #taken(
    name: string,
    want: { allow: string[]; rules: string[]; hint: string; version?: string },
    signal: AbortSignal | undefined,
  ): Promise<Result<undefined>> {
    const bound = this.#sb.o.t.listSyncMs;
    const waited = await waitUntil(
      async (s) => {
        const pods = await this.joinedPods(name, s);
        if (!pods.ok) throw new Error(pods.error.message);
        // Each sidecar's log read at once: a fleet's rotation waits on one round of reads, not a queue of them.
        const running = pods.value.filter((p) => p.status?.phase === "Running");
        const read = await Promise.all(running.map((pod) => this.sidecarHolds(pod.metadata.name, s)));
        return running.flatMap((pod, i) => {
          const holds = read[i]!;
          if (!holds.ok) throw new Error(holds.error.message);
          return holdsAll(holds.value, want) ? [] : [pod.metadata.name];
        });
      },
      (pending) => pending.length === 0,
      {
        boundMs: bound,
        signal,
        minMs: this.#sb.o.t.pollMs,
        maxMs: 1000,
        what: `the change to reach every computer behind it`,
        describe: (p) => `${p.join(", ")} not yet`,
      },
    );
    if (waited.ok) return ok();
    return fail(
      waited.error.code,
      `the egress proxy ${name} was changed, but ${waited.error.message} (their sidecars read it as the kubelet writes it, within ${Math.round(bound / 1000)} s; read them again, or release them)`,
    );
  }

  /**
   * Each running Pod behind the proxy told the new list's digest and the time (an annotation new at
   * every update, so a list changed back is a change too): the write makes
   * the kubelet sync that Pod, its ConfigMap volume with it, within seconds rather than at its next
   * periodic sync. Best effort: a Pod not told takes the list at that sync, within listSyncMs.
   */
  async #tell(name: string, digest: string, signal: AbortSignal | undefined): Promise<void> {
    const pods = await this.joinedPods(name, signal);
    if (!pods.ok) return;
    await Promise.all(
      pods.value.map((p) =>
        this.#sb.api.call(`${this.#sb.path(p.metadata.name)}?fieldManager=${FIELD_MANAGER}`, `telling ${p.metadata.name} its proxy's list`, {
          method: "PATCH",
          body: { metadata: { annotations: { [TOLD_ANNOTATION]: `${digest} at ${new Date().toISOString()}` } } },
          ms: this.#sb.o.t.callMs,
          signal,
        }),
      ),
    );
  }

  async release(id: string, options: CallOptions = {}): Promise<Result<undefined>> {
    const target = this.#target(id);
    if (!target.ok) return target;
    const { name, uid } = target.value;
    if (options.signal?.aborted) return fail("aborted", `the release of ${name} was aborted before the API server was asked`);
    const joined = await this.joinedPods(name, options.signal);
    if (!joined.ok) return fail(joined.error.code, `finding the computers behind ${name}: ${joined.error.message}`);
    if (joined.value.length > 0)
      return fail(
        "refused",
        `the egress proxy ${name} still serves ${joined.value.map((p) => p.metadata.name).join(", ")}: release them first; nothing was removed`,
      );
    const gone = await this.#sb.api.call(this.#path(name), `deleting the ConfigMap ${name}`, {
      method: "DELETE",
      body: { apiVersion: "v1", kind: "DeleteOptions", ...(uid ? { preconditions: { uid } } : {}) },
      ms: this.#sb.o.t.callMs,
      signal: options.signal,
    });
    // A precondition that fails (409) is a ConfigMap of the same name made since: ours is gone, and that one (and its Secret) stays.
    if (uid !== undefined && !gone.ok && gone.error.code === "exists") return ok();
    if (!gone.ok && gone.error.code !== "not_found") return gone;
    const removed = await this.#writeSecret(name, [], {}, options.signal);
    return removed.ok ? ok() : removed;
  }

  /**
   * What a computer joining the proxy meets, before its Pod is made: the ConfigMap there with a
   * list check takes, the computer's user, a deadline no earlier than the computer's, and when the
   * spec names a list, that list. Refused in words naming egress, with nothing made.
   */
  async joinable(name: string, computer: { user: string; deadline: string; allow: string[] }, signal?: AbortSignal): Promise<Result<ProxyHeld>> {
    const cm = await this.configMap(name, signal);
    if (!cm.ok) return cm;
    const refused = (why: string) => fail("refused", `${why}; nothing was made`, { field: "egress" });
    if (!cm.value) return refused(`the egress proxy ${name} is not there (no ConfigMap ${name} in ${this.#sb.o.namespace}): make it first`);
    const held = heldOf(cm.value, this.#sb.o.egress.testRange);
    if (!held.entries) return refused(`the egress proxy ${name}'s list cannot be held (${held.refused})`);
    if (held.rulesRefused) return refused(`the egress proxy ${name}'s rules cannot be held (${held.rulesRefused})`);
    // The sidecar's volume names both keys: a ConfigMap without one would never mount.
    const missing = [RULES_KEY, HINT_KEY].filter((k) => cm.value?.data?.[k] === undefined);
    if (missing.length > 0)
      return refused(`the egress proxy ${name}'s ConfigMap has no ${missing.join(" or ")} key, which its computers' sidecars read: update the proxy`);
    if (held.user !== computer.user)
      return refused(
        `the egress proxy ${name} belongs to ${held.user || "no user"}, not the computer's ${computer.user}: a computer joins a proxy of its own user`,
      );
    if (!(Date.parse(held.deadline) >= Date.parse(computer.deadline)))
      return refused(`the egress proxy ${name} ends at ${held.deadline}, before the computer's deadline ${computer.deadline}: ask for a shorter lifetime`);
    if (computer.allow.length > 0 && !sameAllowlist(computer.allow, held.entries))
      return refused(`the egress proxy ${name} holds ${held.entries.join(", ")}, not the list asked for: ask for { allow: [] } to take the proxy's list`);
    const keys = await this.credentials(name, signal);
    if (!keys.ok) return keys;
    // A Secret the sidecar would refuse (emptied or edited by hand) is refused here, naming no value.
    if (keys.value && (keys.value.length === 0 || checkRules(undefined, keys.value, held.entries).length > 0))
      return refused(`the egress proxy ${name}'s Secret ${secretName(name)} holds no credentials its list takes: update the proxy's credentials`);
    return ok(held);
  }

  /** What a joined Pod's sidecar last logged of its list: its last 500 lines, else its whole log (at most 8 MiB). */
  async sidecarHolds(pod: string, signal?: AbortSignal): Promise<Result<SidecarHolds | undefined>> {
    const base = `${this.#sb.path(pod)}/log?container=${EGRESS_CONTAINER}`;
    for (const query of ["&tailLines=500", `&limitBytes=${8 << 20}`]) {
      const log = await this.#sb.api.call<string>(`${base}${query}`, `reading ${pod}'s egress proxy's log`, { ms: this.#sb.o.t.callMs, signal, text: true });
      if (!log.ok) return log;
      const holds = sidecarHolds(log.value ?? "");
      if (holds) return ok(holds);
    }
    return ok(undefined);
  }
}
