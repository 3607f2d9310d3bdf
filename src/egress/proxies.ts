// A shared egress proxy apart from any computer: made, read back, changed and released on its
// own, so one proxy serves a fleet (the EgressProxy resource). A computer joins one by naming it
// (ComputerSpec.egress); its network is then that proxy's list, whatever the list is now.
import type { CallOptions } from "../daemon/client.js";
import type { Result } from "../daemon/result.js";
import type { EgressCredential, EgressRule } from "./rules.js";

export interface ProxySpec {
  /**
   * The name to make it under (Docker: proxy-<12 hex digits>); default a fresh one. A name
   * already taken is refused (exists), so a caller that chose one ahead can choose again.
   */
  name?: string;
  /** The names (exact or *.suffix) and CIDRs the proxy forwards to, on ports 80 and 443. */
  allow: string[];
  /** How long the proxy forwards, in whole milliseconds: its computers must end before it. */
  lifetimeMs: number;
  /** The proxy's user, uid:gid, which owns its volume: every computer joining it runs as this user. */
  user?: string;
  /** The words every refusal adds (printable ASCII); default the provider's. */
  hint?: string;
  /** The caller's labels, on the proxy and its volume (a run's among them). */
  labels?: Record<string, string>;
  /** Methods and path prefixes per listed name: requests to it (HTTPS too, its TLS ended at the proxy) are judged by them; it is never tunnelled untouched. */
  rules?: EgressRule[];
  /** Headers the proxy sets on requests to a listed name, replacing the computer's; no computer ever holds them. */
  credentials?: EgressCredential[];
}

/** What a proxy's check takes: a spec as a caller gives it, any field possibly missing (a preview's), each one a make needs refused when it lacks it. */
export type ProxyCheckInput = Partial<ProxySpec>;

export interface ProxyMakeOptions extends CallOptions {
  /** Who it is made for: only the owner label's hash of it is written (ownerLabel). */
  owner?: string;
}

/** A proxy as made or read back. */
export interface ProxyRef {
  /** Its own name (Docker: proxy-<12 hex digits>); the name computers join it by. */
  name: string;
  /**
   * What read, update and release take to name this proxy and never one made since under its name
   * (Kubernetes: the ConfigMap's name and uid); the name when absent.
   */
  id?: string;
  /** uid:gid: the volume's owner and the proxy's user. */
  user: string;
  /** When it stops forwarding, an ISO time. */
  deadline: string;
  /** The list it holds now, normalized (empty when it cannot be read). */
  allow: string[];
  hint: string;
  /** The host's addresses it refuses as this-host. */
  hostAddresses: string[];
  /** The caller's labels, and the owner label when made for an owner. */
  labels: Record<string, string>;
  /** The rules it holds, in their argv form (ruleArg), as it runs them. */
  rules?: string[];
}

/** A proxy's list as a computer behind it reads it: the list only when the proxy is as made, else words. */
export type ProxyNetwork = { allow: string[] } | { other: string };

export interface ProxyReadBack {
  ref: ProxyRef;
  state: "running" | "stopped";
  /** Its list as a computer behind it reads it: { allow } only when it is as made, else { other }. */
  network: ProxyNetwork;
  /** One sentence per way it is not as made (stopped, removed, re-run wider by hand, host addresses gained). */
  drift: string[];
  /** The credentials it holds, values and all: a secret, compared with the declaration and never shown. */
  credentials?: EgressCredential[];
}

export interface EgressProxies {
  /**
   * A name to make a proxy under, chosen ahead (a Pulumi check does): the same for the same seed
   * (so a preview names the proxy its up makes), else random.
   */
  freshName(seed?: string): string;
  /** Every refusal of a spec together, in words, with no vendor call. */
  check(spec: ProxyCheckInput): Result<undefined>;
  /**
   * The volume, then the proxy, then its ready line; a failure leaves nothing. Made for an owner
   * (a resource), its parts carry the owner label, so a create cut short is known as its own.
   */
  make(spec: ProxySpec, options?: ProxyMakeOptions): Promise<Result<ProxyRef>>;
  /** The proxy of that name or id read back; not_found when its volume is gone (a proxy removed alone is drift). */
  read(name: string, options?: CallOptions): Promise<Result<ProxyReadBack>>;
  /**
   * A new list (and hint) on the same volume: the proxy is made again and its computers keep
   * running; their next connection meets the new list. Also heals a proxy stopped or re-run by hand.
   */
  update(name: string, change: Pick<ProxySpec, "allow" | "hint" | "rules" | "credentials">, options?: CallOptions): Promise<Result<ProxyRef>>;
  /** The proxy and its volume removed (by its id, the proxy it names alone); refused while a computer still mounts it. Gone is ok. */
  release(name: string, options?: CallOptions): Promise<Result<undefined>>;
}
