// Kinds: the computer an agent is given (the setting kind) against the machine kind a provider
// declares, and the shape of a row Settings offers (each vendor's is in its entry, the table in
// src/registry/offers.ts). Data and pure functions only.
import type { MountKind } from "./mount.js";
import type { Group, MachineKind } from "../daemon/protocol.js";
import type { Capabilities, DaemonMode } from "./provider.js";

export const SETTING_KIND_NAMES = ["none", "sandbox", "desktop", "phone", "browser"] as const;
export type SettingKind = (typeof SETTING_KIND_NAMES)[number];

export interface SettingKindSpec {
  machineKinds: readonly MachineKind[];
  required: readonly Group[];
  optional: readonly Group[];
}

/** Each setting kind: its machine kinds, the groups it requires and those it may use. */
export const SETTING_KINDS: Record<SettingKind, SettingKindSpec> = {
  none: { machineKinds: [], required: [], optional: [] },
  sandbox: { machineKinds: ["linux"], required: ["exec", "files", "processes"], optional: [] },
  desktop: {
    machineKinds: ["desktop"],
    required: ["screen", "input.pointer", "input.keys"],
    optional: ["exec", "files", "processes", "apps", "stream"],
  },
  phone: {
    machineKinds: ["android", "ios"],
    required: ["screen", "input.touch", "apps"],
    optional: ["input.keys", "apps.install", "apps.ui_tree", "stream"],
  },
  browser: { machineKinds: ["browser"], required: ["cdp"], optional: ["stream", "downloads"] },
};

type Served = Pick<Capabilities, "kind" | "groups">;

/** Why capabilities do not serve a setting kind, in words; empty when they do. */
export function servingRefusals(capabilities: Served, kind: SettingKind): string[] {
  const spec = SETTING_KINDS[kind];
  if (spec.machineKinds.length === 0) return [`the setting kind ${kind} is no computer: no provider serves it`];
  const refusals: string[] = [];
  if (!spec.machineKinds.includes(capabilities.kind)) {
    refusals.push(`a ${kind} is a computer of kind ${spec.machineKinds.join(" or ")}, and this one is ${capabilities.kind}`);
  }
  const missing = spec.required.filter((group) => !capabilities.groups.includes(group));
  if (missing.length > 0) refusals.push(`a ${kind} needs the group${missing.length > 1 ? "s" : ""} ${missing.join(", ")}, not declared`);
  return refusals;
}

/** True when capabilities serve the setting kind: its machine kind, and every required group. */
export function serves(capabilities: Served, kind: SettingKind): boolean {
  return servingRefusals(capabilities, kind).length === 0;
}

/** The setting kind capabilities serve (machine kinds are apart, so at most one). */
export function kindOf(capabilities: Served): SettingKind | undefined {
  return SETTING_KIND_NAMES.find((kind) => serves(capabilities, kind));
}

/** What a computer must declare beyond the groups: network none, and a child daemon's vendor agent. */
export type CoreNeed = Group | "network:none" | "vendor-agent";

const LINUX_CORE: CoreNeed[] = ["exec", "files", "processes", "network:none"];

/** What a computer of its kind must declare, by who answers the methods. */
export function coreGroups(kind: MachineKind, daemon: DaemonMode): CoreNeed[] {
  const computerd = daemon !== "none";
  const agent: CoreNeed[] = daemon === "child" ? ["vendor-agent"] : [];
  switch (kind) {
    case "linux":
      return [...LINUX_CORE, ...agent];
    case "desktop":
      return [...(computerd ? LINUX_CORE : []), "screen", "input.pointer", "input.keys", ...agent];
    case "android":
    case "ios":
      return ["screen", "input.touch"];
    case "browser":
      return ["cdp"];
  }
}

/** The valid kind, os and daemon pairs (the protocol extension's table). */
const PAIRS: Record<MachineKind, { os: readonly string[]; daemon: readonly DaemonMode[] }> = {
  linux: { os: ["linux"], daemon: ["pid1", "child"] },
  desktop: { os: ["linux"], daemon: ["pid1", "child", "none"] },
  android: { os: ["android"], daemon: ["none"] },
  ios: { os: ["ios"], daemon: ["none"] },
  // A browser vendor's answers for itself; a browser we run ourselves has computerd as its init.
  browser: { os: ["linux"], daemon: ["none", "pid1"] },
};

/** Every way capabilities break the kind table, in words; empty when they keep it. */
export function kindRefusals(capabilities: Pick<Capabilities, "kind" | "os" | "daemon" | "groups" | "network" | "vendorAgentPorts">): string[] {
  const { kind, os, daemon } = capabilities;
  const pair = PAIRS[kind];
  if (!pair) return [`kind ${String(kind)} is not a machine kind (linux, desktop, android, ios or browser)`];
  const refusals: string[] = [];
  if (!pair.os.includes(os)) refusals.push(`a ${kind} computer runs os ${pair.os.join(" or ")}, not ${os}`);
  if (!pair.daemon.includes(daemon)) refusals.push(`a ${kind} computer has daemon ${pair.daemon.join(", ")}, not ${daemon}`);
  for (const need of coreGroups(kind, daemon)) {
    if (need === "network:none") {
      if (!capabilities.network.includes("none")) refusals.push(`a ${kind} computer with computerd must offer network none`);
    } else if (need === "vendor-agent") {
      if (capabilities.vendorAgentPorts === undefined) {
        refusals.push(`a ${kind} computer with daemon child must declare its vendor agent's ports (vendorAgentPorts)`);
      }
    } else if (!capabilities.groups.includes(need)) {
      refusals.push(`a ${kind} computer must declare the group ${need}`);
    }
  }
  return refusals;
}

// --- The rows Settings offers ---

export interface ProviderKey {
  /** The serve-side name Settings accepts (never a value). */
  name: string;
  required: boolean;
}

/** One configuration a provider offers: its machine kind and groups. */
export type OfferedCapabilities = Served;

export interface ProviderEntry {
  id: string;
  label: string;
  keys: ProviderKey[];
  /** The mount kinds its computers take; [] cannot mount the run's folder. */
  mounts: MountKind[];
  /** The vendor bills by time. */
  metered: boolean;
  capabilities: OfferedCapabilities[];
  /** The image a computer of each setting kind starts from when its setting names none. */
  defaultImage: Partial<Record<SettingKind, string>>;
  /** Derived from capabilities by serves, never written by hand. */
  kinds: SettingKind[];
}

/** What a vendor writes of its row: all but its id (its registry id) and its kinds (derived). */
export type Offer = Omit<ProviderEntry, "id" | "kinds">;

export const LINUX_OFFER: OfferedCapabilities = { kind: "linux", groups: ["exec", "files", "processes"] };
export const DESKTOP_OFFER: OfferedCapabilities = {
  kind: "desktop",
  groups: ["exec", "files", "processes", "screen", "input.pointer", "input.keys"],
};
// Neither browser vendor declares downloads: the protocol has no method that reads them yet.
export const BROWSER_OFFER: OfferedCapabilities = { kind: "browser", groups: ["cdp", "stream"] };

/** A vendor's row under its id, its kinds derived from its capabilities by serves. */
export function offeredRow(id: string, offer: Offer): ProviderEntry {
  const kinds = SETTING_KIND_NAMES.filter((kind) => offer.capabilities.some((c) => serves(c, kind)));
  return { id, ...offer, kinds };
}

export const requiredKeys = (...names: string[]): ProviderKey[] => names.map((name) => ({ name, required: true }));
export const optionalKeys = (...names: string[]): ProviderKey[] => names.map((name) => ({ name, required: false }));
