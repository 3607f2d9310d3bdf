// The registry: lazy, one line per provider, an unknown id refused naming the known ones.
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

const loaded = vi.hoisted(() => ({ docker: 0, modal: 0, sdk: 0, daytona: 0, e2b: 0, e2bSdk: 0 }));
vi.mock("../../src/docker/module.js", async (importOriginal) => {
  loaded.docker++;
  return importOriginal();
});
vi.mock("../../src/daytona/index.js", async (importOriginal) => {
  loaded.daytona++;
  return importOriginal();
});
vi.mock("../../src/modal/index.js", async (importOriginal) => {
  loaded.modal++;
  return importOriginal();
});
vi.mock("../../src/e2b/index.js", async (importOriginal) => {
  loaded.e2b++;
  return importOriginal();
});
vi.mock("e2b", async (importOriginal) => {
  loaded.e2bSdk++;
  return importOriginal();
});
vi.mock("modal", async (importOriginal) => {
  loaded.sdk++;
  return importOriginal();
});

afterEach(() => {
  vi.resetModules();
  loaded.docker = 0;
  loaded.modal = 0;
  loaded.sdk = 0;
  loaded.daytona = 0;
  loaded.e2b = 0;
  loaded.e2bSdk = 0;
});

describe("the provider registry", () => {
  it("loads no provider when it is loaded", async () => {
    const registry = await import("../../src/providers.js");
    expect(registry.PROVIDER_IDS).toEqual(["docker", "modal", "daytona", "e2b", "browserbase", "kernel", "phone-harness", "kubernetes"]);
    expect(loaded.docker).toBe(0);
    expect(loaded.modal).toBe(0);
    expect(loaded.sdk).toBe(0);
    expect(loaded.daytona).toBe(0);
    expect(loaded.e2b).toBe(0);
    expect(loaded.e2bSdk).toBe(0);
  });

  it("loads a provider's module when its id is asked for, with MOUNT and create", async () => {
    const { providerModule } = await import("../../src/providers.js");
    const docker = await providerModule("docker");
    expect(loaded).toEqual({ docker: 1, modal: 0, sdk: 0, daytona: 0, e2b: 0, e2bSdk: 0 });
    expect(docker.MOUNT).toEqual(["bind"]);
    expect(typeof docker.create).toBe("function");
  });

  it("builds the E2B provider without loading the e2b package: the SDK loads at the first call", async () => {
    const { providerFor } = await import("../../src/providers.js");
    const built = await providerFor("e2b", { apiKey: "e2b_placeholder" });
    expect(built.ok).toBe(true);
    expect(loaded).toMatchObject({ e2b: 1, e2bSdk: 0 });
  });

  it("refuses an unknown id, naming the ones it holds", async () => {
    const { providerFor, providerModule } = await import("../../src/providers.js");
    await expect(providerModule("fly")).rejects.toThrow(
      'there is no provider "fly": the registry holds docker, modal, daytona, e2b, browserbase, kernel, phone-harness, kubernetes',
    );
    expect(await providerFor("fly", {})).toEqual({
      ok: false,
      error: {
        code: "invalid",
        field: "provider",
        message: 'there is no provider "fly": the registry holds docker, modal, daytona, e2b, browserbase, kernel, phone-harness, kubernetes',
      },
    });
    // An id that could hold anything is not echoed.
    expect(await providerFor("sk-live-0123456789abcdef0123456789abcdef/../x", {})).toMatchObject({
      ok: false,
      error: { message: "there is no provider that id: the registry holds docker, modal, daytona, e2b, browserbase, kernel, phone-harness, kubernetes" },
    });
    await expect(providerModule("toString")).rejects.toThrow("there is no provider");
    expect(loaded.docker).toBe(0);
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
