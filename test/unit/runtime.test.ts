// runtime on a computer's spec: the one refusal every provider that offers runc alone gives,
// Docker's refusals of gVisor where the engine or the combination cannot keep it, the create
// request and the drift check naming runtime, and the kernel read from inside told apart.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { kernelDrift, kernelOf, runtimeRefusal } from "../../src/contract/runtime.js";
import type { ComputerSpec } from "../../src/contract/provider.js";
import { checkSpec as dockerCheck } from "../../src/docker/check.js";
import { createRequest } from "../../src/docker/create-request.js";
import { inspectDrift } from "../../src/docker/drift.js";
import { hostOf, type DockerInfo } from "../../src/docker/host.js";
import { planOf } from "../../src/docker/plan.js";
import { CAPABILITIES as DOCKER } from "../../src/docker/provider.js";
import { checkSpec as modalCheck } from "../../src/modal/check.js";
import { CAPABILITIES as MODAL } from "../../src/modal/provider.js";
import { checkSpec as kubeCheck } from "../../src/kubernetes/check.js";
import { CAPABILITIES as KUBE } from "../../src/kubernetes/provider.js";

const info = JSON.parse(readFileSync(new URL("../fixtures/docker/info-20.10.24.json", import.meta.url), "utf8")) as DockerInfo;
const withRunsc = hostOf({
  ...info,
  Runtimes: { runc: { path: "runc" }, runsc: { path: "/usr/bin/runsc", runtimeArgs: ["--platform=ptrace", "--network=none"] } },
});
const withoutRunsc = hostOf({ ...info, Runtimes: { runc: { path: "runc" } } });
const gvisor: ComputerSpec = { image: "agentrun-base:x", lifetimeMs: 600_000, network: "none", runtime: "gvisor" };
const fields = (refusals: Array<{ field: string; message: string }>) => refusals.map((r) => r.field);

describe("the shared refusal", () => {
  it("refuses a name that is no runtime, and gvisor where the provider offers runc alone, naming the field", () => {
    expect(runtimeRefusal("kata", ["runc", "gvisor"], "Docker")).toEqual({ field: "runtime", message: 'runtime is runc or gvisor, not "kata"' });
    expect(runtimeRefusal("gvisor", ["runc"], "Modal")).toEqual({
      field: "runtime",
      message: "runtime gvisor is not offered by the Modal provider yet: leave runtime out (runc, the default) or make the computer on Docker",
    });
    expect(runtimeRefusal(undefined, ["runc"], "Modal")).toBeUndefined();
    expect(runtimeRefusal("runc", ["runc"], "Modal")).toBeUndefined();
  });

  it("is what Modal gives for runtime gvisor; Kubernetes without a RuntimeClass for it names the setting", () => {
    const modal = modalCheck({ ...gvisor, image: "python:3.12" }, MODAL).filter((r) => r.field === "runtime");
    expect(modal.map((r) => r.message)).toEqual([runtimeRefusal("gvisor", ["runc"], "Modal")!.message]);
    const kube = kubeCheck({ ...gvisor, user: "2510:2510" }, KUBE).filter((r) => r.field === "runtime");
    expect(kube.map((r) => r.message)).toEqual([expect.stringContaining("set the Kubernetes provider's gvisorRuntimeClass")]);
  });
});

describe("Docker's check of runtime gvisor", () => {
  it("takes it on an engine with runsc registered, and refuses an unknown runtime", () => {
    expect(dockerCheck(gvisor, { capabilities: DOCKER, host: withRunsc })).toEqual([]);
    expect(fields(dockerCheck({ ...gvisor, runtime: "kata" as never }, { capabilities: DOCKER, host: withRunsc }))).toEqual(["runtime"]);
  });

  it("refuses it where the engine has no runsc, saying how to add it", () => {
    const [refusal, ...rest] = dockerCheck(gvisor, { capabilities: DOCKER, host: withoutRunsc });
    expect(rest).toEqual([]);
    expect(refusal?.field).toBe("runtime");
    expect(refusal?.message).toContain('needs gVisor\'s runsc registered with this Docker engine as the runtime "runsc", and docker info lists runc');
    expect(refusal?.message).toContain('"runtimes" in the engine\'s daemon.json');
    expect(refusal?.message).toContain("--add-runtime runsc=/usr/bin/runsc");
  });

  it("refuses what gVisor cannot keep here: network open under --network=none, an allowlist, a desktop", () => {
    const open = dockerCheck({ ...gvisor, network: "open" }, { capabilities: DOCKER, host: withRunsc });
    expect(open.map((r) => [r.field, r.message.slice(0, 50)])).toEqual([["network", "network open under runtime gvisor is refused: this"]]);
    // A runsc with gVisor's own network stack (a host where it runs) takes network open.
    const netstack = hostOf({ ...info, Runtimes: { runsc: { path: "/usr/bin/runsc", runtimeArgs: ["--platform=systrap"] } } });
    expect(dockerCheck({ ...gvisor, network: "open" }, { capabilities: DOCKER, host: netstack })).toEqual([]);
    const allow = dockerCheck({ ...gvisor, network: { allow: ["pypi.org"] } }, { capabilities: DOCKER });
    expect(allow.map((r) => r.field)).toEqual(["runtime"]);
    expect(allow[0]?.message).toContain("with an allowlist is refused");
    expect(dockerCheck({ ...gvisor, kind: "desktop" }, { capabilities: DOCKER }).map((r) => r.message.slice(0, 46))).toEqual([
      "runtime gvisor with kind desktop is refused: a",
    ]);
    // runc keeps every one of them.
    expect(dockerCheck({ ...gvisor, runtime: "runc", network: "open" }, { capabilities: DOCKER, host: withoutRunsc })).toEqual([]);
  });
});

describe("a gvisor computer made and read back", () => {
  const plan = (spec: ComputerSpec) =>
    planOf({ spec }, { name: "computer-000000000001", deadline: "2026-12-05T04:00:00.000Z", daemon: "/d", userDefault: { uid: 1000, gid: 1000 } });

  it("is created on runsc; a runc computer's request names no runtime (the engine's runc)", () => {
    expect(createRequest(plan(gvisor)).body.HostConfig.Runtime).toBe("runsc");
    expect(createRequest(plan({ ...gvisor, runtime: undefined })).body.HostConfig).not.toHaveProperty("Runtime");
  });

  it("on runc where gvisor was declared is drift named runtime, and the other way round", () => {
    const inspected = { Id: "0".repeat(64), Name: "/computer-000000000001", HostConfig: { Runtime: "runc" }, Config: {} };
    const expected = {
      user: "1000:1000",
      daemon: "/d",
      deadline: "x",
      version: "0",
      groups: [],
      kind: "linux" as const,
      arch: "amd64",
      host: { apparmor: false, selinux: false },
    };
    expect(inspectDrift(gvisor, inspected, expected)).toContain('runtime: HostConfig.Runtime is "runc", not "runsc" (gvisor)');
    const onRunsc = { ...inspected, HostConfig: { Runtime: "runsc" } };
    expect(inspectDrift({ ...gvisor, runtime: undefined }, onRunsc, expected)).toContain('runtime: HostConfig.Runtime is "runsc", not "runc" (runc)');
  });

  it("is told from the host's kernel by what its programs read of theirs", () => {
    const gv = kernelOf("Linux version 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016\n")!;
    const host = kernelOf("Linux version 6.18.44-fc-v1272 (root@x) (gcc 12) #1 SMP\n")!;
    expect(gv.release).toBe("4.4.0");
    expect(kernelDrift("gvisor", gv, "6.18.44-fc-v1272")).toBeUndefined();
    expect(kernelDrift("gvisor", host, "6.18.44-fc-v1272")).toMatch(/^runtime: the computer's programs run on the host's kernel \(Linux version 6\.18/);
    expect(kernelDrift("runc", gv, "6.18.44-fc-v1272")).toMatch(/^runtime: the computer's programs run on kernel 4\.4\.0, not the host's/);
    expect(kernelDrift("gvisor", gv, undefined)).toMatch(/^runtime: the host reports no kernel release/);
    expect(kernelDrift("gvisor", "/proc/version could not be read", "6.1")).toMatch(/^runtime: \/proc\/version could not be read/);
    expect(kernelOf("not a kernel")).toBeUndefined();
  });
});
