// Kinds: the computer an agent is given (the setting kind) against the machine kind a provider
// declares, and the table of providers Settings offers. Data and pure functions only.
import type { MountKind } from "./mount.js";
import type { Group, MachineKind } from "../daemon/protocol.js";
import type { Capabilities, DaemonMode } from "./provider.js";
import { DEFAULT_SNAPSHOT as DAYTONA_DEFAULT_SNAPSHOT } from "../daytona/constants.js";
import { BASE_TEMPLATE as E2B_BASE_TEMPLATE, DESKTOP_TEMPLATE as E2B_DESKTOP_TEMPLATE } from "../e2b/constants.js";
import { DEFAULT_IMAGE as MODAL_DEFAULT_IMAGE } from "../modal/constants.js";

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
  browser: { os: ["linux"], daemon: ["none"] },
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

// --- The providers Settings offers ---

/**
 * The default image per setting kind of a vendor with no folder yet; a vendor with a folder keeps
 * its own in its constants, and its row names that one.
 */
export const ORGO_BASE_IMAGE = "linux";
export const PHONE_IMAGE = "android";
export const BROWSER_IMAGE = "chromium";

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

const LINUX: OfferedCapabilities = { kind: "linux", groups: ["exec", "files", "processes"] };
const DESKTOP: OfferedCapabilities = {
  kind: "desktop",
  groups: ["exec", "files", "processes", "screen", "input.pointer", "input.keys"],
};
// Neither browser vendor declares downloads: the protocol has no method that reads them yet.
const BROWSER: OfferedCapabilities = { kind: "browser", groups: ["cdp", "stream"] };

function entry(fields: Omit<ProviderEntry, "kinds">): ProviderEntry {
  const kinds = SETTING_KIND_NAMES.filter((kind) => fields.capabilities.some((c) => serves(c, kind)));
  return { ...fields, kinds };
}

const required = (...names: string[]) => names.map((name) => ({ name, required: true }));
const optional = (...names: string[]) => names.map((name) => ({ name, required: false }));

/** What Settings offers. */
export const PROVIDERS: readonly ProviderEntry[] = [
  // Docker makes either: a spec's kind, or its desktop option for the provider's own.
  entry({ id: "docker", label: "Docker", keys: [], mounts: ["bind"], metered: false, capabilities: [LINUX, DESKTOP], defaultImage: {} }),
  entry({
    id: "daytona",
    label: "Daytona",
    keys: [...required("DAYTONA_API_KEY"), ...optional("DAYTONA_API_URL", "DAYTONA_TARGET")],
    // An Archil mount is not built on Daytona yet: its computers take none.
    mounts: [],
    metered: true,
    capabilities: [LINUX],
    defaultImage: { sandbox: DAYTONA_DEFAULT_SNAPSHOT },
  }),
  entry({
    id: "modal",
    label: "Modal",
    keys: required("MODAL_TOKEN_ID", "MODAL_TOKEN_SECRET"),
    // An Archil mount is not built on Modal yet: its computers take none.
    mounts: [],
    metered: true,
    capabilities: [LINUX],
    defaultImage: { sandbox: MODAL_DEFAULT_IMAGE },
  }),
  // E2B makes either, as Docker does: a spec's kind, or its kind option. An Archil mount is not
  // built on E2B yet: its computers take none.
  entry({
    id: "e2b",
    label: "E2B",
    keys: required("E2B_API_KEY"),
    mounts: [],
    metered: true,
    capabilities: [LINUX, DESKTOP],
    defaultImage: { sandbox: E2B_BASE_TEMPLATE, desktop: E2B_DESKTOP_TEMPLATE },
  }),
  entry({
    id: "orgo",
    label: "Orgo",
    keys: required("ORGO_API_KEY"),
    mounts: [],
    metered: true,
    capabilities: [DESKTOP],
    defaultImage: { desktop: ORGO_BASE_IMAGE },
  }),
  entry({
    id: "phone-harness",
    label: "Phone harness",
    keys: required("PHONE_HARNESS_API_KEY"),
    mounts: [],
    metered: true,
    // No apps.install: the phone harness refuses it, as it refuses exec and files.
    capabilities: [{ kind: "android", groups: ["screen", "input.touch", "input.keys", "apps", "apps.ui_tree"] }],
    defaultImage: { phone: PHONE_IMAGE },
  }),
  entry({
    id: "browserbase",
    label: "Browserbase",
    keys: required("BROWSERBASE_API_KEY", "BROWSERBASE_PROJECT_ID"),
    mounts: [],
    metered: true,
    capabilities: [BROWSER],
    defaultImage: { browser: BROWSER_IMAGE },
  }),
  // A cluster the user brings: its kubeconfig (a secret) and a namespace; the image is theirs.
  entry({
    id: "kubernetes",
    label: "Kubernetes",
    keys: [...required("KUBECONFIG"), ...optional("KUBERNETES_NAMESPACE")],
    mounts: [],
    metered: false,
    capabilities: [LINUX],
    defaultImage: {},
  }),
  entry({
    id: "kernel",
    label: "Kernel",
    keys: required("KERNEL_API_KEY"),
    mounts: [],
    metered: true,
    capabilities: [BROWSER],
    defaultImage: { browser: BROWSER_IMAGE },
  }),
];

/** The image a provider's computer of a setting kind starts from, or undefined: then the caller refuses in words. */
export function defaultImage(providerId: string, kind: SettingKind): string | undefined {
  return PROVIDERS.find((p) => p.id === providerId)?.defaultImage[kind];
}
