// A computer's create request for the Engine API (POST /containers/create), exactly as the spec's
// Docker section gives its docker run flags: one place turns a plan into the container asked for.
import { WORKSPACE } from "../contract/mount.js";
import { COMPUTER_LABEL, CPU_PERIOD, DEADLINE_LABEL, HOME, KIND_LABEL, RUN_DIR } from "./constants.js";
import { EGRESS_MOUNT, EGRESS_SOCKET, egressName } from "./egress-request.js";
import { cpuQuota, type Plan, workSizeMb } from "./plan.js";
import { engineImageOf } from "./snapshot-image.js";
import { dockerRuntime } from "./runtime.js";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { DAEMON_DIR, isVolumeDaemon, subpathOf, volumeMount } from "./volume.js";

const MIB = 1024 * 1024;

/** The tmpfs options create gives /run/agentrun and /work, which the drift check holds it to. */
export function tmpfsOptions(plan: Pick<Plan, "uid" | "gid" | "memoryMb">): Record<string, string[]> {
  const owner = [`uid=${plan.uid}`, `gid=${plan.gid}`, "mode=0700"];
  return {
    [RUN_DIR]: [...owner, "noexec", "nosuid", "nodev", "size=1m"],
    [HOME]: [...owner, "exec", "nosuid", "nodev", `size=${workSizeMb(plan.memoryMb)}m`],
  };
}

/** The container's name (the create call's query) and its body: a computer as the plan says. */
export interface CreateRequest {
  name: string;
  body: {
    Image: string;
    /** The computer's name: its shell prompt and `hostname` say which computer it is. */
    Hostname: string;
    User: string;
    Labels: Record<string, string>;
    Env: string[];
    WorkingDir: string;
    Entrypoint: string[];
    Cmd: string[];
    /** A pool's computer: its stdin open for the one attach that takes it, closed when that attach ends. */
    OpenStdin?: true;
    StdinOnce?: true;
    HostConfig: Record<string, unknown>;
  };
}

/** Init's command: its deadline, for an allowlist its relay to the egress proxy, for a pool's computer its stdio served, for a browser its kind. */
export function initCommand(deadline: string, allow: boolean, stdio: boolean, browser = false): string[] {
  return [
    "init",
    "--deadline",
    deadline,
    ...(allow ? ["--egress", EGRESS_SOCKET] : []),
    ...(stdio ? [STDIO_FLAG] : []),
    ...(browser ? ["--kind", "browser"] : []),
  ];
}

const STDIO_FLAG = "--stdio";

/** Whether a computer's command, as the engine's list reports it (argv joined by spaces), has init serve its stdio. */
export function commandServesStdio(command: string | undefined): boolean {
  return (command ?? "").split(" ").includes(STDIO_FLAG);
}

export function createRequest(plan: Plan): CreateRequest {
  // On a remote engine the daemon is put in by archive before start (remote.ts), not bound; with
  // the volume option its tree and the run folder are the volume's subpaths (volume.ts).
  const mounts: Array<Record<string, unknown>> = [];
  if (isVolumeDaemon(plan.daemon)) mounts.push(volumeMount(plan.daemon.volume, plan.daemon.subpath, DAEMON_DIR, true));
  else if (plan.daemon !== undefined)
    mounts.push({ Type: "bind", Source: plan.daemon, Target: DAEMON_IN_COMPUTER, ReadOnly: true, BindOptions: { Propagation: "rprivate" } });
  if (plan.mount && plan.volume) {
    const subpath = subpathOf(plan.volume.root, plan.mount.path);
    // check refuses a run folder that is not below the volume's root before any plan is made.
    if (subpath === undefined) throw new Error(`the run folder ${plan.mount.path} is not below the volume's root ${plan.volume.root}`);
    mounts.push(volumeMount(plan.volume.name, subpath, WORKSPACE, false));
  } else if (plan.mount) mounts.push({ Type: "bind", Source: plan.mount.path, Target: WORKSPACE, ReadOnly: false, BindOptions: { Propagation: "rprivate" } });
  // An allowlist: the egress volume read-only, and init relays port 3128 to the proxy's socket.
  if (plan.allow) mounts.push({ Type: "volume", Source: egressName(plan.egress ?? plan.name), Target: EGRESS_MOUNT, ReadOnly: true });
  return {
    name: plan.name,
    body: {
      Image: engineImageOf(plan.image),
      Hostname: plan.name,
      User: `${plan.uid}:${plan.gid}`,
      Labels: {
        [COMPUTER_LABEL]: "1",
        [DEADLINE_LABEL]: plan.deadline,
        ...plan.labels,
        ...(plan.display !== undefined ? { [KIND_LABEL]: "desktop" } : plan.browser ? { [KIND_LABEL]: "browser" } : {}),
      },
      // A desktop's init reads DISPLAY; the programs it starts never get it from init.
      Env: [`HOME=${HOME}`, ...(plan.display !== undefined ? [`DISPLAY=${plan.display}`] : [])],
      WorkingDir: plan.workdir,
      Entrypoint: [DAEMON_IN_COMPUTER],
      Cmd: initCommand(plan.deadline, plan.allow !== undefined, plan.stdio, plan.browser === true),
      ...(plan.stdio ? { OpenStdin: true, StdinOnce: true } : {}),
      HostConfig: {
        // A pool's computer speaks the protocol on its stdout: no log driver keeps what it says
        // (a file's bytes, a program's output). Its init's words at start come on create's attach.
        ...(plan.stdio ? { LogConfig: { Type: "none", Config: {} } } : {}),
        ...(plan.runtime ? { Runtime: dockerRuntime(plan.runtime) } : {}),
        CapDrop: ["ALL"],
        SecurityOpt: ["no-new-privileges"],
        IpcMode: "private",
        CgroupnsMode: "private",
        NetworkMode: plan.network === "open" ? "bridge" : "none",
        CpuPeriod: CPU_PERIOD,
        CpuQuota: cpuQuota(plan.cpus),
        Memory: plan.memoryMb * MIB,
        MemorySwap: plan.memoryMb * MIB,
        PidsLimit: plan.pids,
        RestartPolicy: { Name: "no" },
        Tmpfs: Object.fromEntries(Object.entries(tmpfsOptions(plan)).map(([target, options]) => [target, options.join(",")])),
        Mounts: mounts,
      },
    },
  };
}
