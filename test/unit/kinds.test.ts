import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PROVIDER_IDS, providerFromSettings, providerModule } from "../../src/providers.js";
import { SETTING_KINDS, coreGroups, kindOf, kindRefusals, serves, servingRefusals } from "../../src/contract/kinds.js";
import { defaultImage, PROVIDERS } from "../../src/registry/offers.js";
import type { Capabilities } from "../../src/contract/provider.js";

const sandbox = { kind: "linux", groups: ["exec", "files", "processes"] } as const;
const desktop = { kind: "desktop", groups: ["exec", "files", "processes", "screen", "input.pointer", "input.keys"] } as const;
const phone = { kind: "android", groups: ["screen", "input.touch", "apps", "input.keys"] } as const;
const ios = { kind: "ios", groups: ["screen", "input.touch", "apps"] } as const;
const browser = { kind: "browser", groups: ["cdp", "stream"] } as const;

describe("serves and servingRefusals, for every setting kind", () => {
  it.each([
    [sandbox, "sandbox"],
    [desktop, "desktop"],
    [phone, "phone"],
    [ios, "phone"],
    [browser, "browser"],
  ] as const)("%j serves %s and no other kind", (caps, kind) => {
    for (const other of Object.keys(SETTING_KINDS) as Array<keyof typeof SETTING_KINDS>) {
      expect(serves({ ...caps, groups: [...caps.groups] }, other)).toBe(other === kind);
    }
    expect(kindOf({ ...caps, groups: [...caps.groups] })).toBe(kind);
    expect(servingRefusals({ ...caps, groups: [...caps.groups] }, kind)).toEqual([]);
  });

  it("stops serving a kind when a required group is dropped, and says why", () => {
    expect(servingRefusals({ kind: "linux", groups: ["exec", "files"] }, "sandbox")).toEqual(["a sandbox needs the group processes, not declared"]);
    expect(servingRefusals({ kind: "desktop", groups: ["screen"] }, "desktop")).toEqual(["a desktop needs the groups input.pointer, input.keys, not declared"]);
    expect(servingRefusals({ kind: "android", groups: ["screen", "input.touch"] }, "phone")).toEqual(["a phone needs the group apps, not declared"]);
    expect(servingRefusals({ kind: "browser", groups: [] }, "browser")).toEqual(["a browser needs the group cdp, not declared"]);
    expect(kindOf({ kind: "linux", groups: ["exec"] })).toBeUndefined();
  });

  it("names a machine kind that is not the setting kind's", () => {
    expect(servingRefusals({ ...desktop, groups: [...desktop.groups] }, "sandbox")).toEqual(["a sandbox is a computer of kind linux, and this one is desktop"]);
    expect(servingRefusals({ ...sandbox, groups: [...sandbox.groups] }, "phone")).toEqual([
      "a phone is a computer of kind android or ios, and this one is linux",
      "a phone needs the groups screen, input.touch, apps, not declared",
    ]);
  });

  it("serves none with no computer", () => {
    expect(serves({ ...sandbox, groups: [...sandbox.groups] }, "none")).toBe(false);
    expect(servingRefusals({ ...sandbox, groups: [...sandbox.groups] }, "none")).toEqual(["the setting kind none is no computer: no provider serves it"]);
  });
});

describe("kindRefusals and coreGroups", () => {
  const docker: Capabilities = {
    kind: "linux",
    os: "linux",
    daemon: "pid1",
    groups: ["exec", "files", "processes"],
    lifetime: "janitor",
    maxLifetimeMs: 30 * 86_400_000,
    network: ["none", "open", "allow"],
    release: ["stop", "delete"],
    mount: ["bind"],
  };

  it("takes the valid pairs", () => {
    expect(kindRefusals(docker)).toEqual([]);
    expect(kindRefusals({ ...docker, kind: "desktop", groups: [...docker.groups, "screen", "input.pointer", "input.keys"] })).toEqual([]);
    expect(kindRefusals({ ...docker, kind: "android", os: "android", daemon: "none", groups: ["screen", "input.touch"], network: [] })).toEqual([]);
    expect(kindRefusals({ ...docker, kind: "browser", daemon: "none", groups: ["cdp"], network: ["open"] })).toEqual([]);
  });

  it("names every way a pair breaks the table", () => {
    expect(kindRefusals({ ...docker, os: "android", daemon: "none", groups: ["exec"], network: ["open"] })).toEqual([
      "a linux computer runs os linux, not android",
      "a linux computer has daemon pid1, child, not none",
      "a linux computer must declare the group files",
      "a linux computer must declare the group processes",
      "a linux computer with computerd must offer network none",
    ]);
    expect(kindRefusals({ ...docker, daemon: "child" })).toEqual([
      "a linux computer with daemon child must declare its vendor agent's ports (vendorAgentPorts)",
    ]);
    expect(kindRefusals({ ...docker, kind: "ios", os: "ios", daemon: "none", groups: ["screen"] })).toEqual([
      "a ios computer must declare the group input.touch",
    ]);
  });

  it("gives each kind's Core groups by daemon", () => {
    expect(coreGroups("linux", "pid1")).toEqual(["exec", "files", "processes", "network:none"]);
    expect(coreGroups("linux", "child")).toEqual(["exec", "files", "processes", "network:none", "vendor-agent"]);
    expect(coreGroups("desktop", "none")).toEqual(["screen", "input.pointer", "input.keys"]);
    expect(coreGroups("desktop", "pid1")).toEqual(["exec", "files", "processes", "network:none", "screen", "input.pointer", "input.keys"]);
    expect(coreGroups("android", "none")).toEqual(["screen", "input.touch"]);
    expect(coreGroups("browser", "none")).toEqual(["cdp"]);
  });
});

/** A vendor's row by its id. */
const row = (id: string) => PROVIDERS.find((p) => p.id === id)!;

describe("PROVIDERS", () => {
  it("holds a row for every registry vendor, and Orgo's beside them", () => {
    expect(PROVIDERS.map((p) => p.id)).toEqual([...PROVIDER_IDS, "orgo"]);
  });

  it("derives each entry's kinds from its capabilities, as the spec's table", () => {
    expect(row("docker").kinds).toEqual(["sandbox", "desktop"]);
    expect(row("daytona").kinds).toEqual(["sandbox"]);
    expect(row("modal").kinds).toEqual(["sandbox"]);
    expect(row("e2b").kinds).toEqual(["sandbox", "desktop"]);
    expect(row("orgo").kinds).toEqual(["desktop"]);
    expect(row("phone-harness").kinds).toEqual(["phone"]);
    expect(row("browserbase").kinds).toEqual(["browser"]);
    expect(row("kubernetes").kinds).toEqual(["sandbox"]);
    expect(row("kernel").kinds).toEqual(["browser"]);
    for (const p of PROVIDERS) for (const kind of p.kinds) expect(p.capabilities.some((c) => serves(c, kind))).toBe(true);
  });

  it("holds the spec's default images, and none for Docker", () => {
    expect(defaultImage("docker", "sandbox")).toBeUndefined();
    expect(defaultImage("daytona", "sandbox")).toBe("default");
    expect(defaultImage("modal", "sandbox")).toBe("debian:bookworm-slim");
    expect(defaultImage("e2b", "sandbox")).toBe("base");
    expect(defaultImage("e2b", "desktop")).toBe("desktop");
    expect(defaultImage("orgo", "desktop")).toBe("linux");
    expect(defaultImage("phone-harness", "phone")).toBe("android");
    expect(defaultImage("kernel", "browser")).toBe("chromium");
    expect(defaultImage("modal", "desktop")).toBeUndefined();
  });

  it("lists keys by name and mounts as the spec's table, never a value", () => {
    expect(row("daytona").keys).toEqual([
      { name: "DAYTONA_API_KEY", required: true },
      { name: "DAYTONA_API_URL", required: false },
      { name: "DAYTONA_TARGET", required: false },
    ]);
    expect([row("docker").mounts, row("docker").metered]).toEqual([["bind"], false]);
    expect([row("modal").mounts, row("modal").metered]).toEqual([[], true]);
    expect([row("orgo").mounts, row("orgo").metered]).toEqual([[], true]);
  });
});

/** A provider whose create needs settings gets stand-in ones from its fixture (test/fixtures/stand-in-settings/<id>.json): no call is made with them. */
function standInSettings(id: string): Record<string, unknown> {
  const file = new URL(`../fixtures/stand-in-settings/${id}.json`, import.meta.url);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
}

describe("each registry row against its provider", () => {
  it.each(PROVIDER_IDS)("holds %s's capabilities(), CAPABILITIES and MOUNT to its row", async (id) => {
    const row = PROVIDERS.find((p) => p.id === id)!;
    const module = await providerModule(id);
    const built = await providerFromSettings(id, standInSettings(id));
    if (!built.ok) throw new Error(built.error.message);
    const capabilities = built.value.capabilities();
    // A row with more than one configuration (Docker's desktop option) holds the built one among them.
    expect(row.capabilities).toContainEqual({ kind: capabilities.kind, groups: capabilities.groups });
    const declared = module.CAPABILITIES && "kind" in module.CAPABILITIES ? [module.CAPABILITIES] : Object.values(module.CAPABILITIES ?? {});
    expect(declared.map((c) => ({ kind: c.kind, groups: c.groups }))).toEqual(row.capabilities);
    // A row says only what its provider takes: its mounts are capabilities()' and MOUNT's, as its groups are.
    expect(row.mounts).toEqual(capabilities.mount ?? []);
    expect(row.mounts).toEqual([...module.MOUNT]);
  });

  it("builds Docker's desktop configuration from its settings, as its row offers it", async () => {
    const built = await providerFromSettings("docker", { desktop: {} });
    if (!built.ok) throw new Error(built.error.message);
    const { kind, groups } = built.value.capabilities();
    expect(PROVIDERS.find((p) => p.id === "docker")!.capabilities).toContainEqual({ kind, groups });
    expect(kind).toBe("desktop");
  });

  it("builds E2B's desktop configuration from its kind option, as its row offers it", async () => {
    const { create } = await import("../../src/e2b/create.js");
    const { kind, groups } = create({ apiKey: "kinds-test-placeholder", kind: "desktop" }).capabilities();
    expect(PROVIDERS.find((p) => p.id === "e2b")!.capabilities).toContainEqual({ kind, groups });
    expect(kind).toBe("desktop");
  });

  it.each(PROVIDER_IDS)("has %s's check take a computer of every kind its row offers", async (id) => {
    const row = PROVIDERS.find((p) => p.id === id)!;
    const built = await providerFromSettings(id, standInSettings(id));
    if (!built.ok) throw new Error(built.error.message);
    for (const offered of row.capabilities) {
      const checked = built.value.check({ image: "agentrun-base:x", lifetimeMs: 60_000, network: "none", kind: offered.kind });
      expect(checked.ok ? [] : (checked.error.refusals ?? [checked.error]).filter((r) => r.field === "kind")).toEqual([]);
    }
  });

  it("holds the rows of vendors not in the registry yet to the spec's groups", () => {
    const groups = Object.fromEntries(PROVIDERS.map((p) => [p.id, p.capabilities.map((c) => c.groups)]));
    expect(groups.browserbase).toEqual([["cdp", "stream"]]);
    expect(groups.kernel).toEqual([["cdp", "stream"]]);
    expect(groups["phone-harness"]).toEqual([["screen", "input.touch", "input.keys", "apps", "apps.ui_tree"]]);
  });
});
