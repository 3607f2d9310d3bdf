// An open computer's Pod runs nothing as root. Init needs root for two things alone: entering a
// network namespace of its own (none, an allowlist) and giving HOME and the socket's folder to the
// user before it drops to them. Open needs neither namespace, and the folders are made by a setup
// container that already runs as the user: it takes the daemon's upload into an emptyDir and makes
// home/ and run/ there (0700, the user's), then exits; the computer's container then runs init as
// the user with nothing held, the daemon mounted read-only (the user cannot replace what each
// connection's bridge runs), and home/ and run/ mounted by subPath at HOME and the socket's folder.
// Read back: every container of it non-root as the user, no capability, no escalation.
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { SETUP_SCRIPT } from "./commands.js";
import { HOME, LAST_WORDS } from "./constants.js";
import { show } from "./shown.js";
import { kindArgs } from "./browser.js";

/** The setup init container, and the emptyDir it fills. */
export const SETUP_CONTAINER = "setup";
export const AGENTRUN_VOLUME = "agentrun";
/** Where the emptyDir is in the setup container: the daemon's own folder, so the upload is the one every Pod gets. */
export const SETUP_MOUNT = DAEMON_IN_COMPUTER.slice(0, DAEMON_IN_COMPUTER.lastIndexOf("/"));
/** init's socket folder (initd.DefaultSocket's). */
export const RUN_DIR = "/run/agentrun";
const DAEMON_FILE = DAEMON_IN_COMPUTER.slice(SETUP_MOUNT.length + 1);

/** A container that runs as the user, holds nothing and gains nothing (the egress proxy's and the setup's with a read-only root). */
export function userSecurity(uid: number, gid: number, readOnlyRoot = false) {
  return {
    runAsUser: uid,
    runAsGroup: gid,
    runAsNonRoot: true,
    privileged: false,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ["ALL"] },
    seccompProfile: { type: "RuntimeDefault" },
    ...(readOnlyRoot ? { readOnlyRootFilesystem: true } : {}),
  };
}

/** The setup container's: the user's, its root read-only (it writes in the emptyDir alone). */
export const setupSecurity = (uid: number, gid: number) => userSecurity(uid, gid, true);

export interface SetupPlan {
  image: string;
  pullPolicy: string;
  uid: number;
  gid: number;
  deadline: string;
  user: string;
  waitSeconds: number;
  /** The computer's sizes: the setup's too, so the Pod asks for no more than its computer. */
  sizes: Record<string, string>;
}

/** The setup init container: waits for the daemon's upload, makes home/ and run/ the user's, exits. */
export function setupContainer(plan: SetupPlan): Record<string, unknown> {
  return {
    name: SETUP_CONTAINER,
    image: plan.image,
    imagePullPolicy: plan.pullPolicy,
    ...LAST_WORDS,
    command: setupCommand(plan.deadline, plan.user, plan.waitSeconds),
    securityContext: setupSecurity(plan.uid, plan.gid),
    resources: { requests: plan.sizes, limits: plan.sizes },
    volumeMounts: [{ name: AGENTRUN_VOLUME, mountPath: SETUP_MOUNT }],
  };
}

export function setupCommand(deadline: string, user: string, waitSeconds: number): string[] {
  return ["sh", "-c", SETUP_SCRIPT, "sh", deadline, user, String(Math.ceil(waitSeconds))];
}

/** The computer's command: init itself, already the user, in the Pod's network. */
export const openCommand = (deadline: string, kind: "browser" | undefined) => [DAEMON_IN_COMPUTER, "init", "--deadline", deadline, ...kindArgs(kind)];

/** The computer's mounts: the daemon read-only, HOME and the socket's folder the user's. */
export const openMounts = () => [
  { name: AGENTRUN_VOLUME, mountPath: DAEMON_IN_COMPUTER, subPath: DAEMON_FILE, readOnly: true },
  { name: AGENTRUN_VOLUME, mountPath: HOME, subPath: "home" },
  { name: AGENTRUN_VOLUME, mountPath: RUN_DIR, subPath: "run" },
];

export const agentrunVolume = () => ({ name: AGENTRUN_VOLUME, emptyDir: {} });

interface Mount {
  name?: string;
  mountPath?: string;
  subPath?: string;
  readOnly?: boolean;
}
interface Container {
  name: string;
  image?: string;
  command?: string[];
  securityContext?: object;
  volumeMounts?: Mount[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/** Each field it was made with holds (the API server may add defaults beside them). */
const holds = (have: object | undefined, want: object) => Object.entries(want).every(([k, v]) => same((have as Record<string, unknown> | undefined)?.[k], v));
const mountsOf = (c: Container | undefined) =>
  (c?.volumeMounts ?? []).map((m) => ({
    name: m.name,
    mountPath: m.mountPath,
    ...(m.subPath ? { subPath: m.subPath } : {}),
    ...(m.readOnly ? { readOnly: true } : {}),
  }));

/** What an open Pod is held to: its computer as the user with nothing held, the setup the same, the daemon read-only. */
export function openDrift(
  pod: { spec?: { initContainers?: Container[]; volumes?: Array<{ name?: string; emptyDir?: object }> } },
  computer: Container,
  want: { image: string; uid: number; gid: number; deadline: string | undefined; kind: "browser" | undefined },
): string[] {
  const out: string[] = [];
  if (!holds(computer.securityContext, userSecurity(want.uid, want.gid)))
    out.push(
      `its container's securityContext is ${show(computer.securityContext)}: an open computer runs as its user ${want.uid}:${want.gid}, non-root, holding no capability, no privilege escalation, seccomp RuntimeDefault`,
    );
  if (want.deadline && !same(computer.command, openCommand(want.deadline, want.kind)))
    out.push(`its container runs ${show(computer.command)}, not init as its user`);
  if (!same(mountsOf(computer), openMounts())) out.push(`its container mounts ${show(mountsOf(computer))}, not ${show(openMounts())}`);
  const inits = pod.spec?.initContainers ?? [];
  const setup = inits.find((c) => c.name === SETUP_CONTAINER);
  if (inits.length !== 1 || !setup) out.push(`its init containers are ${show(inits.map((c) => c.name))}, not [${show(SETUP_CONTAINER)}]`);
  else {
    if (setup.image !== want.image) out.push(`its setup container runs ${show(setup.image)}, not ${show(want.image)}`);
    if (!holds(setup.securityContext, setupSecurity(want.uid, want.gid)))
      out.push(`its setup container's securityContext is ${show(setup.securityContext)}, not the user's with nothing held and a read-only root`);
    if (!same(mountsOf(setup), [{ name: AGENTRUN_VOLUME, mountPath: SETUP_MOUNT }])) out.push(`its setup container mounts ${show(mountsOf(setup))}`);
  }
  const volumes = pod.spec?.volumes ?? [];
  if (volumes.length !== 1 || volumes[0]?.name !== AGENTRUN_VOLUME || !volumes[0].emptyDir)
    out.push(`its volumes are ${show(volumes.map((v) => v.name))}, not the emptyDir ${show(AGENTRUN_VOLUME)} alone`);
  return out;
}
