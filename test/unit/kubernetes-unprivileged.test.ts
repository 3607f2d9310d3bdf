// An open computer's Pod with no cluster: nothing in it runs as root or holds a capability (the
// setup container and the computer both the user's, no escalation, seccomp RuntimeDefault), the
// daemon reaches the computer read-only, the setup's script run for real in sh makes the user's
// folders 0700, the read-back names every way such a Pod can be made to run as root or hold a
// capability, and a setup that never runs is refused naming image.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DAEMON_IN_COMPUTER } from "../../src/contract/daemon-path.js";
import { SETUP_SCRIPT } from "../../src/kubernetes/commands.js";
import { INIT_CAPABILITIES } from "../../src/kubernetes/constants.js";
import { podManifest, type PodPlan } from "../../src/kubernetes/pod.js";
import { podDrift, setupProblem, waitingProblem, type Pod } from "../../src/kubernetes/readback.js";
import { RUN_DIR, SETUP_CONTAINER } from "../../src/kubernetes/unprivileged.js";

const DEADLINE = "2026-12-02T12:00:00.000Z";
const plan = (network: "open" | "none"): PodPlan => ({
  name: "computer-0123456789ab",
  namespace: "agents",
  deadline: DEADLINE,
  lifetimeMs: 600_000,
  recorded: { image: "base@sha256:" + "a".repeat(64), user: "2510:2511", workdir: "/work", network, cpus: 1, memoryMb: 512 },
  labels: { run: "r1" },
  arch: "amd64",
  pullPolicy: "Never",
  waitSeconds: 150,
});
const want = { runtimeClass: undefined, pullPolicy: "Never" };

interface C {
  name: string;
  image: string;
  command: string[];
  securityContext: Record<string, unknown> & { capabilities?: { add?: string[]; drop?: string[] } };
  volumeMounts?: Array<Record<string, unknown>>;
  resources: unknown;
}
type Manifest = { spec: { containers: C[]; initContainers?: C[]; volumes?: unknown[]; securityContext: unknown } };
const manifest = (network: "open" | "none") => podManifest(plan(network)) as unknown as Manifest;

/** The open Pod as the API server gives it back: setup done, the computer running on a node. */
function running(): Pod {
  const pod = structuredClone(podManifest(plan("open"))) as unknown as Pod;
  pod.spec!.nodeName = "node-1";
  pod.status = {
    phase: "Running",
    initContainerStatuses: [{ name: SETUP_CONTAINER, state: { terminated: { reason: "Completed", exitCode: 0 } } }],
    containerStatuses: [{ name: "computer", state: { running: { startedAt: "x" } } }],
  };
  return pod;
}
const edited = (edit: (pod: Pod & { spec: Manifest["spec"] }) => void) => {
  const pod = running() as Pod & { spec: Manifest["spec"] };
  edit(pod);
  return podDrift(pod, want).join("; ");
};

describe("an open computer's Pod", () => {
  it("runs no container as root, none holding a capability or able to gain one", () => {
    const spec = manifest("open").spec;
    const all = [...(spec.initContainers ?? []), ...spec.containers];
    expect(all.map((c) => c.name)).toEqual([SETUP_CONTAINER, "computer"]);
    for (const c of all)
      expect(c.securityContext).toMatchObject({
        runAsUser: 2510,
        runAsGroup: 2511,
        runAsNonRoot: true,
        privileged: false,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
        seccompProfile: { type: "RuntimeDefault" },
      });
    for (const c of all) expect(c.securityContext.capabilities?.add).toBeUndefined();
    expect(spec.initContainers![0]!.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(spec.securityContext).toEqual({ seccompProfile: { type: "RuntimeDefault" } });
  });

  it("runs init itself, already the user, in the Pod's network: no --user, no --own-network", () => {
    expect(manifest("open").spec.containers[0]!.command).toEqual([DAEMON_IN_COMPUTER, "init", "--deadline", DEADLINE]);
  });

  it("gets the daemon read-only and HOME and the socket's folder from the setup's emptyDir", () => {
    const spec = manifest("open").spec;
    expect(spec.volumes).toEqual([{ name: "agentrun", emptyDir: {} }]);
    expect(spec.containers[0]!.volumeMounts).toEqual([
      { name: "agentrun", mountPath: DAEMON_IN_COMPUTER, subPath: "computerd", readOnly: true },
      { name: "agentrun", mountPath: "/work", subPath: "home" },
      { name: "agentrun", mountPath: RUN_DIR, subPath: "run" },
    ]);
    expect(spec.initContainers![0]!.volumeMounts).toEqual([{ name: "agentrun", mountPath: "/opt/agentrun" }]);
    // The setup asks for the computer's sizes, so the Pod asks for no more than before.
    expect(spec.initContainers![0]!.resources).toEqual(spec.containers[0]!.resources);
  });

  it("leaves none as it was: root for init alone, with its capabilities, and no setup", () => {
    const spec = manifest("none").spec;
    expect(spec.initContainers).toBeUndefined();
    expect(spec.containers[0]!.securityContext).toMatchObject({ runAsUser: 0, capabilities: { drop: ["ALL"], add: [...INIT_CAPABILITIES] } });
  });
});

describe("the setup's script, run in sh", () => {
  const dir = mkdtempSync(join(tmpdir(), "kube-setup-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const script = SETUP_SCRIPT.replace(/^d=.*$/m, `d=${dir}/computerd`);

  it("is the daemon's own folder it waits in (the one the upload writes)", () => {
    expect(SETUP_SCRIPT).toMatch(new RegExp(`^d=${DAEMON_IN_COMPUTER}$`, "m"));
    expect(script).not.toBe(SETUP_SCRIPT);
  });

  it("waits for the daemon, then makes home and run the user's alone (0700) and exits 0", () => {
    const daemon = join(dir, "computerd");
    writeFileSync(daemon, "#!/bin/sh\n");
    chmodSync(daemon, 0o755);
    const run = spawnSync("sh", ["-c", script, "sh", DEADLINE, "2510:2511", "2"], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    for (const sub of ["home", "run"]) {
      const st = statSync(join(dir, sub));
      expect(st.isDirectory()).toBe(true);
      expect(st.mode & 0o777).toBe(0o700);
      expect(st.uid).toBe(process.getuid!());
    }
  });

  it("ends the Pod (exit 3, in words) when no daemon comes within the wait", () => {
    const empty = mkdtempSync(join(dir, "none-"));
    const run = spawnSync("sh", ["-c", SETUP_SCRIPT.replace(/^d=.*$/m, `d=${empty}/computerd`), "sh", DEADLINE, "2510:2511", "1"], {
      encoding: "utf8",
    });
    expect(run.status).toBe(3);
    expect(run.stderr).toMatch(/no daemon at .* after 1 s/);
  });
});

describe("an open Pod read back", () => {
  it("is what was made", () => {
    expect(podDrift(running(), want)).toEqual([]);
  });

  it("names a computer that runs as root, holds a capability or may gain one", () => {
    expect(
      edited((p) => {
        p.spec.containers[0]!.securityContext.runAsUser = 0;
      }),
    ).toMatch(/an open computer runs as its user 2510:2511, non-root, holding no capability/);
    expect(
      edited((p) => {
        p.spec.containers[0]!.securityContext.capabilities = { drop: ["ALL"], add: ["NET_ADMIN"] };
      }),
    ).toMatch(/"add":\["NET_ADMIN"\].*holding no capability/);
    expect(
      edited((p) => {
        p.spec.containers[0]!.securityContext.allowPrivilegeEscalation = true;
      }),
    ).toMatch(/no privilege escalation/);
    expect(
      edited((p) => {
        p.spec.containers[0]!.securityContext.runAsNonRoot = false;
      }),
    ).toMatch(/non-root/);
  });

  it("names an open Pod made the way none is (init root, holding its capabilities)", () => {
    const none = manifest("none").spec.containers[0]!;
    const drift = edited((p) => {
      p.spec.containers[0]!.securityContext = none.securityContext;
      p.spec.containers[0]!.command = none.command;
    });
    expect(drift).toMatch(/its container's securityContext is .*"runAsUser":0/);
    expect(drift).toMatch(/not init as its user/);
  });

  it("names a setup that is gone, another, or not the user's, and a daemon mounted writable", () => {
    expect(edited((p) => delete p.spec.initContainers)).toMatch(/its init containers are \[\], not \["setup"\]/);
    expect(
      edited((p) => {
        p.spec.initContainers![0]!.securityContext.runAsUser = 0;
      }),
    ).toMatch(/its setup container's securityContext/);
    expect(
      edited((p) => {
        p.spec.initContainers![0]!.image = "other:1";
      }),
    ).toMatch(/its setup container runs "other:1"/);
    expect(
      edited((p) => {
        delete p.spec.containers[0]!.volumeMounts![0]!.readOnly;
      }),
    ).toMatch(/its container mounts/);
  });
});

describe("a setup that never runs", () => {
  const waiting = (state: NonNullable<NonNullable<Pod["status"]>["initContainerStatuses"]>[number]["state"]) => {
    const pod = structuredClone(podManifest(plan("open"))) as unknown as Pod;
    pod.status = {
      phase: "Pending",
      initContainerStatuses: [{ name: SETUP_CONTAINER, state }],
      containerStatuses: [{ name: "computer", state: { waiting: { reason: "PodInitializing" } } }],
    };
    return pod;
  };

  it("is refused while the Pod starts, naming image for an image the node lacks", () => {
    const pod = waiting({ waiting: { reason: "ErrImageNeverPull", message: "not present" } });
    expect(setupProblem(pod)).toMatchObject({ field: "image", message: expect.stringMatching(/the image base@sha256:a+ cannot be had on the node/) });
    expect(waitingProblem(pod)).toMatchObject({ field: "image" });
  });

  it("is a failure when it ended but not when it finished, and no problem while it runs or waits to", () => {
    expect(setupProblem(waiting({ terminated: { reason: "Error", exitCode: 3 } }))?.message).toMatch(
      /its setup container ended before it was ready \(Error, exit code 3\)/,
    );
    expect(setupProblem(waiting({ terminated: { reason: "Completed", exitCode: 0 } }))).toBeUndefined();
    expect(setupProblem(waiting({ running: {} }))).toBeUndefined();
    expect(waitingProblem(waiting({ waiting: { reason: "PodInitializing" } }))).toBeUndefined();
  });
});
