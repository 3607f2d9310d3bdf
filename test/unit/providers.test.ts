// The registry: lazy, an entry per vendor folder, an unknown id refused naming the known ones.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

// Loads of the modules a registry load must not reach: four vendors' modules and two SDKs.
const loaded = vi.hoisted(() => ({ dockerModule: 0, modalModule: 0, modalSdk: 0, daytonaModule: 0, e2bModule: 0, e2bSdk: 0 }));
vi.mock("../../src/docker/module.js", async (importOriginal) => {
  loaded.dockerModule++;
  return importOriginal();
});
vi.mock("../../src/daytona/index.js", async (importOriginal) => {
  loaded.daytonaModule++;
  return importOriginal();
});
vi.mock("../../src/modal/index.js", async (importOriginal) => {
  loaded.modalModule++;
  return importOriginal();
});
vi.mock("../../src/e2b/index.js", async (importOriginal) => {
  loaded.e2bModule++;
  return importOriginal();
});
vi.mock("e2b", async (importOriginal) => {
  loaded.e2bSdk++;
  return importOriginal();
});
vi.mock("modal", async (importOriginal) => {
  loaded.modalSdk++;
  return importOriginal();
});

afterEach(() => {
  vi.resetModules();
  for (const key of Object.keys(loaded) as Array<keyof typeof loaded>) loaded[key] = 0;
});

const SRC = join(import.meta.dirname, "..", "..", "src");

describe("the provider registry", () => {
  it("holds every vendor folder (a folder of src/ with an entry.ts), each under its folder's name", async () => {
    const { PROVIDER_IDS } = await import("../../src/providers.js");
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory() && readdirSync(join(SRC, e.name)).includes("entry.ts"))
      .map((e) => e.name);
    expect([...PROVIDER_IDS].sort()).toEqual(folders.sort());
  });

  it("loads no provider when it is loaded", async () => {
    await import("../../src/providers.js");
    expect(loaded).toEqual({ dockerModule: 0, modalModule: 0, modalSdk: 0, daytonaModule: 0, e2bModule: 0, e2bSdk: 0 });
  });

  it("loads a provider's module when its id is asked for, with MOUNT and create", async () => {
    const { providerModule } = await import("../../src/providers.js");
    const docker = await providerModule("docker");
    expect(loaded).toEqual({ dockerModule: 1, modalModule: 0, modalSdk: 0, daytonaModule: 0, e2bModule: 0, e2bSdk: 0 });
    expect(docker.MOUNT).toEqual(["bind"]);
    expect(typeof docker.create).toBe("function");
  });

  it("builds the E2B provider without loading the e2b package: the SDK loads at the first call", async () => {
    const { providerFor } = await import("../../src/providers.js");
    const built = await providerFor("e2b", { apiKey: "e2b_placeholder" });
    expect(built.ok).toBe(true);
    expect(loaded).toMatchObject({ e2bModule: 1, e2bSdk: 0 });
  });

  it("refuses an unknown id, naming the ones it holds", async () => {
    const { providerFor, providerModule, PROVIDER_IDS } = await import("../../src/providers.js");
    const holds = `the registry holds ${PROVIDER_IDS.join(", ")}`;
    await expect(providerModule("fly")).rejects.toThrow(`there is no provider "fly": ${holds}`);
    expect(await providerFor("fly", {})).toEqual({
      ok: false,
      error: {
        code: "invalid",
        field: "provider",
        message: `there is no provider "fly": ${holds}`,
      },
    });
    // An id that could hold anything is not echoed.
    expect(await providerFor("sk-live-0123456789abcdef0123456789abcdef/../x", {})).toMatchObject({
      ok: false,
      error: { message: `there is no provider that id: ${holds}` },
    });
    await expect(providerModule("toString")).rejects.toThrow("there is no provider");
    expect(loaded.dockerModule).toBe(0);
  });

  it("builds a provider by id, and turns options its create refuses into a result in words", async () => {
    const { providerFor } = await import("../../src/providers.js");
    const daemonPath = join(import.meta.dirname, "..", "..", "dist", "computerd-linux-amd64");
    const built = await providerFor("docker", { daemonPath });
    expect(built.ok && built.value.id).toBe("docker");
    // The spec's own case: the provider option refuses root's group.
    const refused = await providerFor("docker", { daemonPath, user: "1000:0" });
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid" } });
    if (!refused.ok) expect(refused.error.message).toMatch(/^docker: .*root's group/);
  });

  it("builds a provider from a host's plain settings through its module's own map (Docker: the daemon it carries)", async () => {
    const { providerFromSettings } = await import("../../src/providers.js");
    const { optionsFromSettings, packagedDaemon } = await import("../../src/docker/settings.js");
    expect(packagedDaemon()).toBe(join(import.meta.dirname, "..", "..", "dist", `computerd-linux-${process.arch === "arm64" ? "arm64" : "amd64"}`));
    expect(optionsFromSettings({ user: "1234", image: "agentrun-base:x" })).toEqual({
      daemonPath: packagedDaemon(),
      user: "1234",
      image: { image: "agentrun-base:x" },
    });
    expect(optionsFromSettings({ daemonPath: "/opt/computerd" }).daemonPath).toBe("/opt/computerd");
    const built = await providerFromSettings("docker", { user: "1234" });
    expect(built.ok && built.value.capabilities().defaults?.user).toBe("1234:1234");
    expect(await providerFromSettings("fly", {})).toMatchObject({ ok: false, error: { code: "invalid", field: "provider" } });
    const refused = await providerFromSettings("docker", { user: "0" });
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid" } });
  });

  it("holds a host's settings to the provider's schema: a key it does not take is refused by name, its value never said", async () => {
    const { providerFromSettings } = await import("../../src/providers.js");
    const refused = await providerFromSettings("docker", { imag: "secret-looking-value", user: "1234" });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: "invalid", field: "imag", message: "docker has no setting imag: it takes user, image, daemonPath, daemonCache, engine, egress, desktop" },
    });
    const nested = await providerFromSettings("docker", { egress: { hostAddress: ["10.0.0.1"] } });
    expect(nested).toMatchObject({ ok: false, error: { field: "egress.hostAddress" } });
    expect(await providerFromSettings("daytona", { apiKey: "k", clas: "linux-vm" })).toMatchObject({ ok: false, error: { field: "clas" } });
  });
});
