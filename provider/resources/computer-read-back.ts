// A Computer's inputs as read back: what the computer is now, in the resource's own fields, so
// refresh shows each one that changed; and the defaults check fills in, so they compare equal.
import { sameAllowlist } from "../../src/egress/list.js";
import { withoutOwner } from "../../src/contract/labels.js";
import type { ComputerProvider, SpecDefaults, SpecReadBack } from "../../src/contract/provider.js";
import type { Hello } from "../../src/daemon/protocol.js";
import type { Props } from "../secrets.js";

/** A phone is the machine kind android (the only phone built): the input says phone, the spec android. */
export const inputKindOf = (kind: string | undefined): string | undefined => (kind === "android" ? "phone" : kind);

/** The declared inputs a read-back keeps where the computer says nothing of them (a Computer's checked inputs). */
export interface Declared {
  provider: string;
  lifetimeMs: number;
  labels: Record<string, string>;
  allow?: string[];
  cpus?: number;
  memoryMb?: number;
  pids?: number;
  workdir?: string;
  kind?: string;
  runtime?: string;
}

export const withoutUndefined = (props: Props): Props => Object.fromEntries(Object.entries(props).filter(([, v]) => v !== undefined));

/**
 * The inputs a declaration that names none gets, filled in at check so what is read back
 * compares equal: network none (or the one network a provider offers, a browser's or a phone's open) and no
 * labels, and the provider's own kind, image (when it names one), sizes, workdir and user
 * (capabilities().defaults), which this resource never writes itself. A browser declared on a
 * provider of another kind (Docker's browser) takes no workdir default: a browser has none.
 */
export function defaultsOf(provider: ComputerProvider, declaredKind?: unknown): Defaults {
  const { kind, network: offered = [], defaults = {} } = provider.capabilities();
  const network = offered.includes("none") || offered.length !== 1 ? "none" : (offered[0] ?? "none");
  const out: Defaults = { provider: provider.id, network, labels: {}, kind: inputKindOf(kind), ...defaults };
  if (declaredKind === "browser") delete out.workdir;
  // A default the provider leaves undefined is no input.
  for (const [k, v] of Object.entries(out)) if (v === undefined) Reflect.deleteProperty(out, k);
  return out;
}

/** What defaultsOf fills in. */
export interface Defaults extends SpecDefaults {
  provider: string;
  network: string;
  labels: Record<string, string>;
  kind?: string | undefined;
}

/** An imported computer's labels: all but its provider's own namespace. */
export function callerLabels(labels: Record<string, string>): Record<string, string> {
  return withoutOwner(Object.fromEntries(Object.entries(labels).filter(([k]) => k !== "agentrun.computer" && !k.startsWith("agentrun.computer."))));
}

/** The inputs as read back. A size neither declared nor read back (Daytona's pids, Modal's sizes) is left out: undefined is no struct value. */
export function inputsReadBack(
  declared: Declared,
  spec: SpecReadBack | undefined,
  hello: Hello | undefined,
  labels: Record<string, string> | undefined,
): Props {
  if (!spec) return withoutUndefined({ ...declared });
  const network = spec.network;
  const kind = inputKindOf(hello?.kind ?? spec.kind) ?? declared.kind;
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
    // A browser declares no workdir (Docker's reads back its home, /work).
    workdir: kind === "browser" ? undefined : (spec.workdir ?? declared.workdir),
    kind,
    // runc is read back as no runtime: the declaration that names none is runc.
    runtime: spec.runtime === "gvisor" || declared.runtime !== undefined ? (spec.runtime ?? "runc") : undefined,
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
export function declaredLabels(declared: Record<string, string>, read: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(declared)
      .filter((k) => k in read)
      .map((k) => [k, read[k]!]),
  );
}
