// An allowlisted computer's egress parts as Engine API requests: the volume its proxy's socket
// lives in, and the proxy container, hardened and bounded exactly as the spec lists. The
// read-back (egress-readback.ts) holds a proxy to the same numbers.
import { DEADLINE_LABEL } from "./constants.js";
import { EGRESS_ENTRYPOINT, EGRESS_MOUNT, egressArgs } from "../egress/proxy-command.js";
import { CREDENTIALS_ENV, credentialsEnv, type EgressCredential } from "../egress/rules.js";

export { EGRESS_ENTRYPOINT, EGRESS_MOUNT, EGRESS_SOCKET, egressArgs } from "../egress/proxy-command.js";

/** Every egress part carries the computer's name under this label: release and sweep find them by it. */
export const EGRESS_LABEL = "agentrun.computer.egress";

const MIB = 1024 * 1024;
/** The proxy's bounds: 256 MiB with swap the same, 64 pids, half a CPU, 1024 open files, a bounded log. */
export const EGRESS_BOUNDS = {
  memory: 256 * MIB,
  pids: 64,
  cpuPeriod: 100_000,
  cpuQuota: 50_000,
  openFiles: 1024,
  log: { Type: "json-file", Config: { "max-size": "1m", "max-file": "2" } },
} as const;

export interface EgressPlan {
  /**
   * The parts' key: the computer's name for its own proxy, a shared proxy's own name
   * (proxy-<12 hex digits>) for one a fleet joins. The parts are named <key>-egress.
   */
  key: string;
  uid: number;
  gid: number;
  /** The computer's deadline: the proxy ends then. */
  deadline: string;
  /** The list, normalized (checkAllowlist). */
  allow: readonly string[];
  /** The Docker host's own addresses, refused as this-host. */
  hostAddresses: readonly string[];
  /** The words every refusal adds (printable ASCII). */
  hint: string;
  /** The spec's labels (a run's among them), so releaseOlder and the sweep find the parts too. */
  labels: Record<string, string>;
  /** The proxy's image: the proxy and its roots, tagged by their hash (egress-image.ts). */
  image: string;
  /** The test-only seam: the test's own Docker network and its range (checkTestNetwork). */
  testNetwork?: { name: string; range: string };
  /** Rules in their argv form (ruleArg). */
  rules?: readonly string[];
  /** Headers the proxy sets per host: in its environment alone, never its argv or a label. */
  credentials?: readonly EgressCredential[];
}

export const egressName = (key: string) => `${key}-egress`;

/** A shared proxy's own name: its parts are proxy-<12 hex digits>-egress. */
export const PROXY_PATTERN = /^proxy-[0-9a-f]{12}$/;

/** The key of an egress volume's name (<key>-egress), or undefined. */
export function egressKeyOf(volume: unknown): string | undefined {
  return typeof volume === "string" && volume.endsWith("-egress") ? volume.slice(0, -"-egress".length) : undefined;
}

export function egressLabels(plan: Pick<EgressPlan, "key" | "deadline" | "labels">): Record<string, string> {
  return { ...plan.labels, [EGRESS_LABEL]: plan.key, [DEADLINE_LABEL]: plan.deadline };
}

/** POST /volumes/create: a tmpfs of 1 MiB, mode 0700, owned by the computer's uid:gid. */
export function egressVolumeRequest(plan: EgressPlan) {
  return {
    Name: egressName(plan.key),
    Driver: "local",
    DriverOpts: { type: "tmpfs", device: "tmpfs", o: `size=1m,uid=${plan.uid},gid=${plan.gid},mode=0700` },
    Labels: egressLabels(plan),
  };
}

/** POST /containers/create: on the default bridge alone, no port published, as the computer's user, read-only and bounded. */
export function egressProxyRequest(plan: EgressPlan) {
  return {
    name: egressName(plan.key),
    body: {
      Image: plan.image,
      User: `${plan.uid}:${plan.gid}`,
      Labels: egressLabels(plan),
      Entrypoint: [EGRESS_ENTRYPOINT],
      Cmd: egressArgs(plan),
      ...(plan.credentials?.length ? { Env: [`${CREDENTIALS_ENV}=${credentialsEnv(plan.credentials)}`] } : {}),
      HostConfig: {
        NetworkMode: plan.testNetwork?.name ?? "bridge",
        ReadonlyRootfs: true,
        CapDrop: ["ALL"],
        SecurityOpt: ["no-new-privileges"],
        IpcMode: "private",
        CgroupnsMode: "private",
        Memory: EGRESS_BOUNDS.memory,
        MemorySwap: EGRESS_BOUNDS.memory,
        PidsLimit: EGRESS_BOUNDS.pids,
        CpuPeriod: EGRESS_BOUNDS.cpuPeriod,
        CpuQuota: EGRESS_BOUNDS.cpuQuota,
        Ulimits: [{ Name: "nofile", Soft: EGRESS_BOUNDS.openFiles, Hard: EGRESS_BOUNDS.openFiles }],
        LogConfig: EGRESS_BOUNDS.log,
        RestartPolicy: { Name: "no" },
        Mounts: [{ Type: "volume", Source: egressName(plan.key), Target: EGRESS_MOUNT, ReadOnly: false }],
      },
    },
  };
}
