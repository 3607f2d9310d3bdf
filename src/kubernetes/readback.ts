// A Pod read back: the slice of it the provider reads, its state, why a container that waits will
// never run (and why its computer never will answer), the spec it records, and the drift check
// closed over all of it (spec, status, container state, labels, node) against what create made.
import { podImageOf } from "./snapshot-image.js";
import type { ComputerState, NetworkPolicy, SpecReadBack } from "../contract/provider.js";
import { ENTRYPOINT_FIXED } from "./commands.js";
import { CONTAINER, DEADLINE_ANNOTATION, INIT_CAPABILITIES, SPEC_ANNOTATION } from "./constants.js";
import { computerEgressMount, EGRESS_CONTAINER, EGRESS_VOLUME, initNetworkArgs, LIST_VOLUME, type SidecarReadBack } from "./egress.js";
import { cpuQuantity, memoryQuantity, type RecordedSpec } from "./pod.js";
import { labelDrift } from "./labels.js";
import { parseUser } from "../contract/user.js";
import type { Result } from "../daemon/result.js";
import { openDrift, SETUP_CONTAINER } from "./unprivileged.js";
import { handChanges } from "./hand-changes.js";
import { show } from "./shown.js";
import { kindArgs } from "./browser.js";
import { BROWSER_IMAGE } from "../kits/browser/labels.js";

interface SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type?: string };
}

interface Container {
  name: string;
  image?: string;
  imagePullPolicy?: string;
  command?: string[];
  args?: string[];
  securityContext?: SecurityContext;
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
  volumeMounts?: Array<{ name?: string; mountPath?: string; readOnly?: boolean }>;
}

interface ContainerStatus {
  name: string;
  image?: string;
  /** The image the runtime pulled, by digest (host/repository@sha256:…). */
  imageID?: string;
  state?: {
    running?: { startedAt?: string };
    waiting?: { reason?: string; message?: string };
    terminated?: { reason?: string; exitCode?: number; message?: string };
  };
}

/** The slice of a Pod the provider reads. */
export interface Pod {
  metadata: {
    name: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: string;
    resourceVersion?: string;
    deletionTimestamp?: string;
    finalizers?: string[];
    ownerReferences?: Array<{ kind?: string; name?: string }>;
  };
  spec?: {
    nodeName?: string;
    restartPolicy?: string;
    activeDeadlineSeconds?: number;
    tolerations?: Array<{ key?: string; operator?: string; effect?: string; value?: string; tolerationSeconds?: number }>;
    automountServiceAccountToken?: boolean;
    enableServiceLinks?: boolean;
    hostNetwork?: boolean;
    hostPID?: boolean;
    hostIPC?: boolean;
    runtimeClassName?: string;
    securityContext?: SecurityContext;
    containers?: Container[];
    initContainers?: Container[];
    ephemeralContainers?: Array<{ name: string }>;
    shareProcessNamespace?: boolean;
    volumes?: Array<{
      name?: string;
      emptyDir?: { medium?: string; sizeLimit?: string };
      projected?: { sources?: Array<{ configMap?: { name?: string } }> };
    }>;
  };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: Array<{ type?: string; status?: string; reason?: string; message?: string }>;
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

const container = (pod: Pod, name = CONTAINER) => pod.spec?.containers?.find((c) => c.name === name);
const containerStatus = (pod: Pod, name = CONTAINER) => pod.status?.containerStatuses?.find((c) => c.name === name);

/** The image the computer's container runs, by the digest its node pulled; undefined before it has. */
export const runningImageOf = (pod: Pod): string | undefined => containerStatus(pod)?.imageID?.replace(/^docker-pullable:\/\//, "") || undefined;

/** A container's state in words. */
function containerState(pod: Pod, name: string): string {
  const s = containerStatus(pod, name)?.state;
  return s?.running
    ? "running"
    : s?.waiting
      ? `waiting (${s.waiting.reason ?? "no reason"})`
      : s?.terminated
        ? `terminated (${s.terminated.reason ?? "no reason"}, exit code ${s.terminated.exitCode ?? "?"})`
        : "not started";
}

/** The Pod's egress sidecar as read back (egress.ts holds it to what it must be). */
export function sidecarOf(pod: Pod): SidecarReadBack {
  return {
    container: container(pod, EGRESS_CONTAINER),
    running: containerStatus(pod, EGRESS_CONTAINER)?.state?.running !== undefined && !pod.metadata.deletionTimestamp,
    state: containerState(pod, EGRESS_CONTAINER),
    volume: pod.spec?.volumes?.find((v) => v.name === EGRESS_VOLUME),
    listVolume: pod.spec?.volumes?.find((v) => v.name === LIST_VOLUME),
  };
}

/** The Pod's state in words: its phase, and its container's state; a Pod no node takes says why (the scheduler's words). */
export function stateOf(pod: Pod): string {
  const unscheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
  return `${pod.metadata.deletionTimestamp ? "being deleted, " : ""}phase ${pod.status?.phase ?? "unknown"}${pod.status?.reason ? ` (${pod.status.reason})` : ""}, its container ${containerState(pod, CONTAINER)}${unscheduled ? `, not scheduled (${(unscheduled.message ?? unscheduled.reason ?? "no reason").slice(0, 300)})` : ""}`;
}

/** Why the Pod's computer will never answer, in words (its state, its last words), from its read; undefined while it may, or the Pod cannot be read. */
export function endedWords(name: string, pod: Result<Pod>): string | undefined {
  if (!pod.ok) return pod.error.code === "not_found" ? `the Pod ${name} is gone` : undefined;
  return waitingProblem(pod.value)?.message ?? (pod.value.metadata.deletionTimestamp ? stateOf(pod.value) : undefined);
}

/** running only while the Pod runs, its container runs and no delete is under way. */
export function computerState(pod: Pod): ComputerState {
  return pod.status?.phase === "Running" && containerStatus(pod)?.state?.running !== undefined && !pod.metadata.deletionTimestamp ? "running" : "stopped";
}

const NEVER_PULLS = new Set(["ErrImageNeverPull", "ErrImagePull", "ImagePullBackOff", "InvalidImageName"]);

/** Why a container will never run: its words, and the setting when the caller can fix it. */
export type PodProblem = { message: string; field?: string };

/** Why a Pod that has not started never will, naming the setting; undefined while it may still start. */
export function waitingProblem(pod: Pod): PodProblem | undefined {
  const waiting = containerStatus(pod)?.state?.waiting;
  const image = container(pod)?.image ?? "its image";
  if (waiting?.reason && NEVER_PULLS.has(waiting.reason))
    return {
      field: "image",
      message: `the image ${image} cannot be had on the node (${waiting.reason}${waiting.message ? `: ${waiting.message.slice(0, 300)}` : ""})`,
    };
  if (waiting?.reason === "CreateContainerError" || waiting?.reason === "CreateContainerConfigError" || waiting?.reason === "RunContainerError")
    return { message: `its container could not be made (${waiting.reason}${waiting.message ? `: ${waiting.message.slice(0, 300)}` : ""})` };
  const terminated = containerStatus(pod)?.state?.terminated;
  if (terminated || pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded")
    return { message: `it ended before it was ready: ${stateOf(pod)}${terminated?.message ? `: ${terminated.message.slice(0, 300)}` : ""}` };
  return setupProblem(pod) ?? sidecarProblem(pod);
}

/** Why a container of the Pod (the egress proxy, an open Pod's setup) will never do its part, naming the setting; undefined while it may. */
function partProblem(
  state: ContainerStatus["state"],
  image: string,
  part: { who: string; image: string; field: string; then: string; ended: (exitCode: number | undefined) => boolean; words: string },
): PodProblem | undefined {
  const words = (w?: string) => (w ? `: ${w.slice(0, 300)}` : "");
  if (state?.waiting?.reason && NEVER_PULLS.has(state.waiting.reason))
    return {
      field: part.field,
      message: `${part.image} ${image} cannot be had on the node (${state.waiting.reason}${words(state.waiting.message)}), so ${part.then}`,
    };
  if (
    state?.waiting?.reason === "CreateContainerError" ||
    state?.waiting?.reason === "CreateContainerConfigError" ||
    state?.waiting?.reason === "RunContainerError"
  )
    return { message: `${part.who} could not be made (${state.waiting.reason}${words(state.waiting.message)}), so ${part.then}` };
  if (state?.terminated && part.ended(state.terminated.exitCode))
    return { message: `${part.who} ended before it was ready (${part.words}${words(state.terminated.message)}), so ${part.then}` };
  return undefined;
}

/** Why an allowlisted Pod's egress proxy will never serve (its image not there, it ended), naming the setting; undefined while it may. */
export function sidecarProblem(pod: Pod): PodProblem | undefined {
  if (!container(pod, EGRESS_CONTAINER)) return undefined;
  return partProblem(containerStatus(pod, EGRESS_CONTAINER)?.state, container(pod, EGRESS_CONTAINER)?.image ?? "its image", {
    who: "its egress proxy",
    image: "the egress proxy's image",
    field: "egress.image",
    then: "no program of the computer ran",
    ended: () => true,
    words: containerState(pod, EGRESS_CONTAINER),
  });
}

/** Why an open Pod's setup (unprivileged.ts) will never hand the computer its daemon and folders: its image not there, it failed. */
export function setupProblem(pod: Pod): PodProblem | undefined {
  const setup = pod.spec?.initContainers?.find((c) => c.name === SETUP_CONTAINER);
  if (!setup) return undefined;
  const state = pod.status?.initContainerStatuses?.find((c) => c.name === SETUP_CONTAINER)?.state;
  const t = state?.terminated;
  return partProblem(state, setup.image ?? "its image", {
    who: "its setup container",
    image: "the image",
    field: "image",
    then: "no program of the computer ran",
    ended: (code) => code !== 0,
    words: `${t?.reason ?? "no reason"}, exit code ${t?.exitCode ?? "?"}`,
  });
}

/** The network create recorded: none on a Pod made before networks beyond none. */
export const recordedNetwork = (recorded: RecordedSpec | undefined): NetworkPolicy => recorded?.network ?? "none";

/** What create recorded, from the annotation; undefined when it is missing or not one. */
export function recordedSpec(pod: Pod): RecordedSpec | undefined {
  try {
    const r = JSON.parse(pod.metadata.annotations?.[SPEC_ANNOTATION] ?? "") as RecordedSpec;
    return typeof r?.image === "string" && typeof r.user === "string" && typeof r.workdir === "string" ? r : undefined;
  } catch {
    return undefined;
  }
}

/** The deadline as create wrote it, when it is an ISO time. */
export function deadlineOf(pod: Pod): Date | undefined {
  const text = pod.metadata.annotations?.[DEADLINE_ANNOTATION];
  const t = text ? Date.parse(text) : Number.NaN;
  return Number.isNaN(t) || new Date(t).toISOString() !== text ? undefined : new Date(t);
}

/** The spec read back from the Pod itself (the image its container runs, its sizes), the user and workdir as recorded. */
export function specOf(pod: Pod, recorded: RecordedSpec | undefined): SpecReadBack {
  const c = container(pod);
  const limits = c?.resources?.limits ?? {};
  const cpu = limits.cpu === undefined ? undefined : /^(\d+)m$/.test(limits.cpu) ? Number(limits.cpu.slice(0, -1)) / 1000 : Number(limits.cpu);
  const mem = limits.memory === undefined ? undefined : /^(\d+)Mi$/.test(limits.memory) ? Number(limits.memory.slice(0, -2)) : undefined;
  // A browser's image is "chromium" while its container runs the image create gave it (podDrift says another); it has no workdir.
  const browser = recorded?.kind === "browser";
  return {
    // A fork's Pod runs its snapshot by digest: read back as the snapshot it was declared; a
    // browser's runs the image create gave it, read back as "chromium".
    image: browser && c?.image === recorded.image ? BROWSER_IMAGE : recorded && c?.image === podImageOf(recorded.image) ? recorded.image : (c?.image ?? ""),
    user: recorded?.user ?? "",
    network: recordedNetwork(recorded),
    ...(browser ? {} : { workdir: recorded?.workdir ?? "" }),
    kind: browser ? "browser" : "linux",
    ...(cpu === undefined ? {} : { cpus: cpu }),
    ...(mem === undefined ? {} : { memoryMb: mem }),
    ...(pod.metadata.annotations?.[DEADLINE_ANNOTATION] ? { deadline: pod.metadata.annotations[DEADLINE_ANNOTATION] } : {}),
  };
}

export interface PodWant {
  runtimeClass: string | undefined;
  pullPolicy: string;
}

const same = (a: readonly string[] | undefined, b: readonly string[]) => JSON.stringify([...(a ?? [])].sort()) === JSON.stringify([...b].sort());

/** One sentence per way the Pod is not what create made; none when it is. */
export function podDrift(pod: Pod, want: PodWant): string[] {
  const out: string[] = [];
  const name = pod.metadata.name;
  if (pod.metadata.deletionTimestamp) out.push(`${name} is being deleted`);
  const phase = pod.status?.phase;
  if (phase !== "Running") out.push(`${name} is ${stateOf(pod)}${pod.status?.message ? `: ${pod.status.message.slice(0, 200)}` : ""}, not running`);
  else if (containerStatus(pod)?.state?.running === undefined) out.push(`${name}'s container is not running (${stateOf(pod)})`);
  if (!pod.spec?.nodeName) out.push(`${name} is on no node`);
  const recorded = recordedSpec(pod);
  if (!recorded) out.push(`${name}'s ${SPEC_ANNOTATION} annotation is missing or not what create writes`);
  if (!deadlineOf(pod)) out.push(`${name}'s ${DEADLINE_ANNOTATION} annotation is missing or not the ISO time create writes`);
  const c = container(pod);
  if (!c) return [...out, `${name} has no container ${CONTAINER}`];
  if (recorded && c.image !== podImageOf(recorded.image)) out.push(`its image is ${show(c.image)}, not ${show(podImageOf(recorded.image))}`);
  if (c.imagePullPolicy !== want.pullPolicy) out.push(`its imagePullPolicy is ${show(c.imagePullPolicy)}, not ${show(want.pullPolicy)}`);
  const s = pod.spec!;
  if (s.restartPolicy !== "Never") out.push(`its restartPolicy is ${show(s.restartPolicy)}, not "Never"`);
  if (!(typeof s.activeDeadlineSeconds === "number" && s.activeDeadlineSeconds > 0)) out.push("it has no activeDeadlineSeconds");
  if (s.automountServiceAccountToken !== false) out.push("it mounts a service account token");
  if (s.enableServiceLinks !== false) out.push("it has service links in its environment");
  for (const host of ["hostNetwork", "hostPID", "hostIPC"] as const) if (s[host] === true) out.push(`it shares the node's namespace (${host})`);
  if ((s.runtimeClassName ?? undefined) !== want.runtimeClass)
    out.push(`${recorded?.runtime === "gvisor" ? "runtime: " : ""}its runtimeClassName is ${show(s.runtimeClassName)}, not ${show(want.runtimeClass)}`);
  if (s.securityContext?.seccompProfile?.type !== "RuntimeDefault")
    out.push(`its seccomp profile is ${show(s.securityContext?.seccompProfile?.type)}, not "RuntimeDefault"`);
  const sc = c.securityContext ?? {};
  if (sc.privileged === true) out.push("its container is privileged");
  if (!same(sc.capabilities?.drop, ["ALL"])) out.push(`its container drops ${show(sc.capabilities?.drop)}, not ["ALL"]`);
  const network = recordedNetwork(recorded);
  const parts = networkPartsDrift(pod, network);
  if (network === "open") {
    const user = parseUser(recorded?.user ?? "");
    if (user.ok)
      out.push(
        ...openDrift(pod, c, {
          image: podImageOf(recorded!.image),
          uid: user.value.uid,
          gid: user.value.gid,
          deadline: pod.metadata.annotations?.[DEADLINE_ANNOTATION],
          kind: recorded!.kind,
        }),
      );
    else out.push(`its recorded user cannot be read (${user.error.message}), so its container cannot be held to run as it`);
  } else if (!same(sc.capabilities?.add, INIT_CAPABILITIES)) out.push(`its container adds ${show(sc.capabilities?.add)}, not ${show(INIT_CAPABILITIES)}`);
  out.push(...parts);
  if (recorded) {
    const limits = c.resources?.limits ?? {};
    const wantCpu = recorded.cpus === undefined ? undefined : cpuQuantity(recorded.cpus);
    const wantMem = recorded.memoryMb === undefined ? undefined : memoryQuantity(recorded.memoryMb);
    if (limits.cpu !== wantCpu) out.push(`its cpu limit is ${show(limits.cpu)}, not ${show(wantCpu)}`);
    if (limits.memory !== wantMem) out.push(`its memory limit is ${show(limits.memory)}, not ${show(wantMem)}`);
  }
  out.push(...labelDrift(pod), ...handChanges(pod, recorded?.deadlineSeconds));
  return out;
}

/**
 * The Pod's own side of its network: init's network flags as recorded, the containers it was made
 * with and no other (a debug container would share the Pod's network), and for an allowlist the
 * computer's read-only mount of the socket's folder alone. The sidecar itself is the network's
 * read-back (egress.ts), which inspect.ts adds.
 */
export function networkPartsDrift(pod: Pod, network: NetworkPolicy): string[] {
  const out: string[] = [];
  const c = container(pod);
  const allow = typeof network === "object";
  const names = (pod.spec?.containers ?? []).map((x) => x.name);
  const expected = allow ? [CONTAINER, EGRESS_CONTAINER] : [CONTAINER];
  if (show([...names].sort()) !== show([...expected].sort())) out.push(`its containers are ${show(names)}, not ${show(expected)}`);
  if ((pod.spec?.ephemeralContainers ?? []).length > 0)
    out.push(`it has ephemeral containers (${pod.spec!.ephemeralContainers!.map((e) => e.name).join(", ")}), which share its network`);
  if (pod.spec?.shareProcessNamespace === true) out.push("its containers share one process namespace");
  // open's command, init container and mounts are its own (openDrift).
  if (network === "open") return out;
  const flags = c?.command?.slice(ENTRYPOINT_FIXED);
  const recorded = recordedSpec(pod);
  const want = [...initNetworkArgs(network, recorded?.runtime), ...kindArgs(recorded?.kind)];
  if (flags && show(flags) !== show(want)) out.push(`its init runs with the network flags ${show(flags)}, not ${show(want)}`);
  if ((pod.spec?.initContainers ?? []).length > 0) out.push("it has init containers the computer was not made with");
  const mounts = (c?.volumeMounts ?? []).map((m) => ({ name: m.name, mountPath: m.mountPath, readOnly: m.readOnly === true }));
  const wantMounts = allow ? [computerEgressMount()] : [];
  if (show(mounts) !== show(wantMounts)) out.push(`its container mounts ${show(mounts)}, not ${show(wantMounts)}`);
  return out;
}
