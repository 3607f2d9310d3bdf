// A browser on Kubernetes with no cluster: the browser option held to its rules, the capabilities
// it makes (kind browser, cdp, none, open or an allowlist), check's refusals naming each field, and the Pod's
// manifest (init told --kind browser on both of its commands) read back as a browser, its command
// changed by hand named as drift.
import { describe, expect, it } from "vitest";
import { create } from "../../src/kubernetes/create.js";
import { ENTRYPOINT_FIXED } from "../../src/kubernetes/commands.js";
import { podManifest, type PodPlan } from "../../src/kubernetes/pod.js";
import { networkPartsDrift, podDrift, specOf, recordedSpec, type Pod } from "../../src/kubernetes/readback.js";
import { tokenKubeconfig } from "../support/kubeconfig.js";

const IMAGE = "10.0.0.1:5000/agentrun-browser@sha256:" + "b".repeat(64);
const browsers = create({ kubeconfig: tokenKubeconfig, browser: { image: IMAGE } });
const linux = create({ kubeconfig: tokenKubeconfig });
const spec = { image: "chromium", lifetimeMs: 60_000, network: "none" as const };

const plan = (network: "none" | "open"): PodPlan => ({
  name: "computer-0123456789ab",
  namespace: "agents",
  deadline: "2026-12-02T12:00:00.000Z",
  lifetimeMs: 600_000,
  recorded: { image: IMAGE, user: "2510:2510", workdir: "/work", network, kind: "browser" },
  labels: {},
  arch: "amd64",
  pullPolicy: "Never",
  waitSeconds: 150,
});

function running(network: "none" | "open"): Pod {
  const pod = structuredClone(podManifest(plan(network))) as unknown as Pod;
  pod.spec!.nodeName = "node-1";
  pod.status = { phase: "Running", containerStatuses: (pod.spec!.containers ?? []).map((c) => ({ name: c.name, state: { running: { startedAt: "x" } } })) };
  return pod;
}

describe("a Kubernetes browser's option and capabilities", () => {
  it("makes every computer a browser: cdp beside linux's groups, none or open, chromium by default, no gVisor", () => {
    const caps = browsers.capabilities();
    expect(caps).toMatchObject({ kind: "browser", daemon: "pid1", network: ["none", "open", "allow"], defaults: { image: "chromium" } });
    expect(caps.groups).toEqual(["exec", "files", "processes", "cdp"]);
    expect(caps.runtimes).toBeUndefined();
    expect(linux.capabilities().kind).toBe("linux");
  });

  it("watches a browser through CDP's screencast; a linux computer has no live view", () => {
    expect(typeof browsers.watch).toBe("function");
    expect(linux.watch).toBeUndefined();
  });

  it("refuses a browser option without an image, naming browser", () => {
    expect(() => create({ kubeconfig: tokenKubeconfig, browser: { image: "" } })).toThrow(/browser option/);
  });
});

describe("a Kubernetes browser's check", () => {
  it("takes chromium with network none, open or an allowlist", () => {
    expect(browsers.check(spec).ok).toBe(true);
    expect(browsers.check({ ...spec, network: "open", kind: "browser" }).ok).toBe(true);
    expect(browsers.check({ ...spec, network: { allow: ["example.com"] } }).ok).toBe(true);
  });

  it.each([
    [
      "image",
      { image: "debian" },
      "a Kubernetes browser's image is chromium: the image the provider's browser option names, Debian's Chromium (ask for image \"chromium\")",
    ],
    ["memoryMb", { memoryMb: 256 }, "a browser needs memoryMb of at least 512: Chromium does not start in less"],
    ["egress", { network: { allow: [] }, egress: "proxy-0123456789ab" }, "a Kubernetes browser joins no shared egress proxy: leave egress out"],
    ["workdir", { workdir: "/work" }, "a browser has no workdir: leave it out"],
    ["runtime", { runtime: "gvisor" }, "a Kubernetes browser runs under the Pod's runtime alone, not gVisor: leave runtime out"],
    ["user", { user: "0:0" }, "never runs its programs as root"],
    ["kind", { kind: "linux" }, "this Kubernetes provider makes browsers (its browser option), not linux; ask for kind browser"],
  ] as const)("refuses %s in words naming it, once", (field, extra, words) => {
    const checked = browsers.check({ ...spec, ...extra } as never);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.field).toBe(field);
    expect(checked.error.message).toContain(words);
    expect((checked.error.refusals ?? []).filter((r) => r.field === field)).toHaveLength(1);
  });

  it("refuses kind browser on a provider without the browser option, saying what it needs", () => {
    const checked = linux.check({ ...spec, image: "debian", kind: "browser" });
    expect(checked).toMatchObject({ ok: false, error: { field: "kind", message: expect.stringContaining("needs the provider's browser option") } });
  });
});

describe("a Kubernetes browser's Pod", () => {
  it("tells init --kind browser after the network's flags, and reads back as a browser of image chromium with no workdir", () => {
    const pod = running("none");
    expect(pod.spec!.containers![0]!.command!.slice(ENTRYPOINT_FIXED)).toEqual(["--own-network", "--kind", "browser"]);
    expect(pod.spec!.containers![0]!.image).toBe(IMAGE);
    expect(podDrift(pod, { runtimeClass: undefined, pullPolicy: "Never" })).toEqual([]);
    const read = specOf(pod, recordedSpec(pod));
    expect(read).toMatchObject({ image: "chromium", kind: "browser", network: "none" });
    expect(read.workdir).toBeUndefined();
  });

  it("tells an open browser's init --kind browser too", () => {
    const pod = running("open");
    expect(pod.spec!.containers![0]!.command!.slice(-2)).toEqual(["--kind", "browser"]);
    expect(podDrift(pod, { runtimeClass: undefined, pullPolicy: "Never" })).toEqual([]);
  });

  it("names init started without --kind browser, and another image, as drift", () => {
    const pod = running("none");
    pod.spec!.containers![0]!.command = pod.spec!.containers![0]!.command!.slice(0, ENTRYPOINT_FIXED + 1);
    expect(networkPartsDrift(pod, "none")).toEqual([expect.stringContaining('its init runs with the network flags ["--own-network"]')]);
    pod.spec!.containers![0]!.image = "debian";
    expect(specOf(pod, recordedSpec(pod)).image).toBe("debian");
  });
});
