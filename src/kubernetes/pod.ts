// The Pod a computer is: no controller (restartPolicy Never), labelled, its deadline both init's
// and activeDeadlineSeconds, no service account token, no service links, no host namespace,
// seccomp RuntimeDefault, and one container whose init holds only what entering a network of its
// own and dropping to the user take; every program the agent runs holds nothing (init drops all).
// An open computer needs neither, so its Pod runs nothing as root (unprivileged.ts).
// An allowlist adds the egress proxy beside it (egress.ts), sharing only its socket's folder; a
// shared proxy joined adds that proxy's ConfigMap, mounted in the sidecar alone.
import type { Creation } from "../contract/create.js";
import type { CheckedSpec, NetworkPolicy } from "../contract/provider.js";
import { type User, userText } from "../contract/user.js";
import { COMPUTER_LABEL, CONTAINER, DEADLINE_ANNOTATION, DEADLINE_GRACE_S, HOME, INIT_CAPABILITIES, LAST_WORDS, SPEC_ANNOTATION } from "./constants.js";
import { entrypoint } from "./commands.js";
import { computerEgressMount, egressVolume, initNetworkArgs, listVolume, type SidecarPlan, sidecarContainer } from "./egress.js";
import { encodeLabels, labelsAnnotation } from "./labels.js";
import type { Settled } from "./options.js";
import { agentrunVolume, openCommand, openMounts, setupContainer, userSecurity } from "./unprivileged.js";
import { runtimeClassOf } from "./runtime.js";
import { podImageOf } from "./snapshot-image.js";
import { kindArgs } from "./browser.js";

/** What create records of the spec (the annotation), which read-back holds the Pod to. */
export interface RecordedSpec {
  /** As declared: a snapshot's image as snapshot://kubernetes/…, which the Pod runs by digest (podImageOf). */
  image: string;
  /** uid:gid. */
  user: string;
  workdir: string;
  /** none, open or the allowlist normalized ({ allow: [] } behind a shared proxy); absent on a Pod made before networks beyond none (none). */
  network?: NetworkPolicy;
  /** The shared proxy joined: its ConfigMap's name. */
  egress?: string;
  cpus?: number;
  memoryMb?: number;
  /** The activeDeadlineSeconds create wrote (a person may shorten it); absent on a Pod made before it was recorded. */
  deadlineSeconds?: number;
  /** gvisor when the spec asked it; absent for runc. */
  runtime?: "gvisor";
  /** browser for a browser (its image the provider's browser option's); absent for linux. */
  kind?: "browser";
}

export interface PodPlan {
  name: string;
  namespace: string;
  deadline: string;
  lifetimeMs: number;
  recorded: RecordedSpec;
  labels: Record<string, string>;
  arch: string;
  runtimeClass?: string | undefined;
  pullPolicy: "Always" | "IfNotPresent" | "Never";
  /** How long the command waits for the daemon's upload, in seconds. */
  waitSeconds: number;
  /** An allowlist's proxy beside the computer. */
  sidecar?: SidecarPlan | undefined;
  /** Nodes the Pod must not be placed on (lost now). */
  avoidNodes?: string[] | undefined;
}

/**
 * The Pod of one create: what it records of the spec (the network an allowlist behind a shared
 * proxy's { allow: [] }), the provider's settings, and an allowlist's proxy beside it with the
 * image and the nodes' addresses prepare read.
 */
export function computerPod(
  c: Creation<CheckedSpec & { egressImage?: string; hostAddresses?: string[]; avoidNodes?: string[] }>,
  o: Settled,
  user: User,
): Record<string, unknown> {
  const { spec, checked, deadline } = c;
  const allow = checked.allow;
  const proxy = spec.egress;
  const recorded: RecordedSpec = {
    // A browser's "chromium" is the browser option's image.
    image: o.browserImage ?? spec.image,
    user: userText(user),
    workdir: spec.workdir ?? HOME,
    network: proxy !== undefined ? { allow: [] } : allow ? { allow } : spec.network === "open" ? "open" : "none",
    ...(proxy === undefined ? {} : { egress: proxy }),
    ...(spec.cpus === undefined ? {} : { cpus: spec.cpus }),
    ...(spec.memoryMb === undefined ? {} : { memoryMb: spec.memoryMb }),
    deadlineSeconds: activeDeadlineSeconds(spec.lifetimeMs),
    ...(spec.runtime === "gvisor" ? { runtime: "gvisor" as const } : {}),
    ...(o.browserImage === undefined ? {} : { kind: "browser" as const }),
  };
  const sidecar: SidecarPlan | undefined =
    allow === undefined
      ? undefined
      : {
          ...(proxy === undefined ? {} : { proxy }),
          image: checked.egressImage!,
          pullPolicy: o.pullPolicy,
          uid: user.uid,
          gid: user.gid,
          deadline,
          allow,
          hostAddresses: checked.hostAddresses!,
          hint: o.egress.hint,
          testRange: o.egress.testRange,
          testNames: o.egress.testNames,
          testRoot: o.egress.testRoot,
        };
  return podManifest({
    name: c.name,
    namespace: o.namespace,
    deadline,
    lifetimeMs: spec.lifetimeMs,
    recorded,
    labels: c.labels,
    arch: o.arch,
    runtimeClass: runtimeClassOf(spec.runtime, o),
    pullPolicy: o.pullPolicy,
    waitSeconds: (o.t.uploadMs + o.t.callMs) / 1000,
    sidecar,
    avoidNodes: c.checked.avoidNodes,
  });
}

/** init ends the computer at its deadline; the kubelet ends the Pod a little later if init did not. */
const activeDeadlineSeconds = (lifetimeMs: number) => Math.ceil(lifetimeMs / 1000) + DEADLINE_GRACE_S;

/**
 * CPUs and MiB as Kubernetes quantities, in the canonical form the API server writes back (whole
 * cores without the m, 1024 MiB as 1Gi), so the read-back compares like with like.
 */
export const cpuQuantity = (cpus: number) => {
  const m = Math.round(cpus * 1000);
  return m % 1000 === 0 ? `${m / 1000}` : `${m}m`;
};
export const memoryQuantity = (mb: number) => (mb % 1_048_576 === 0 ? `${mb / 1_048_576}Ti` : mb % 1024 === 0 ? `${mb / 1024}Gi` : `${mb}Mi`);

export function podManifest(plan: PodPlan): Record<string, unknown> {
  const { recorded } = plan;
  const network = recorded.network ?? "none";
  const open = network === "open";
  const [uid, gid] = recorded.user.split(":").map(Number) as [number, number];
  const sizes: Record<string, string> = {
    ...(recorded.cpus === undefined ? {} : { cpu: cpuQuantity(recorded.cpus) }),
    ...(recorded.memoryMb === undefined ? {} : { memory: memoryQuantity(recorded.memoryMb) }),
  };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: plan.name,
      namespace: plan.namespace,
      labels: { [COMPUTER_LABEL]: "1", ...encodeLabels(plan.labels) },
      annotations: { [DEADLINE_ANNOTATION]: plan.deadline, [SPEC_ANNOTATION]: JSON.stringify(recorded), ...labelsAnnotation(plan.labels) },
    },
    spec: {
      restartPolicy: "Never",
      activeDeadlineSeconds: activeDeadlineSeconds(plan.lifetimeMs),
      terminationGracePeriodSeconds: 2,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      nodeSelector: { "kubernetes.io/os": "linux", "kubernetes.io/arch": plan.arch },
      ...(plan.avoidNodes?.length
        ? {
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "NotIn", values: plan.avoidNodes }] }],
                },
              },
            },
          }
        : {}),
      ...(plan.runtimeClass ? { runtimeClassName: plan.runtimeClass } : {}),
      securityContext: { seccompProfile: { type: "RuntimeDefault" } },
      ...(open
        ? {
            initContainers: [
              setupContainer({
                image: podImageOf(recorded.image),
                pullPolicy: plan.pullPolicy,
                uid,
                gid,
                deadline: plan.deadline,
                user: recorded.user,
                waitSeconds: plan.waitSeconds,
                sizes,
              }),
            ],
          }
        : {}),
      containers: [
        {
          name: CONTAINER,
          image: podImageOf(recorded.image),
          imagePullPolicy: plan.pullPolicy,
          ...LAST_WORDS,
          command: open
            ? openCommand(plan.deadline, recorded.kind)
            : entrypoint(plan.deadline, recorded.user, plan.waitSeconds, [...initNetworkArgs(network, recorded.runtime), ...kindArgs(recorded.kind)]),
          workingDir: recorded.workdir,
          env: [{ name: "HOME", value: HOME }],
          // open: the user from the start, holding nothing (unprivileged.ts). Else root for init alone:
          // it enters a network namespace of its own (SYS_ADMIN, NET_ADMIN), makes HOME the user's
          // (CHOWN, FOWNER), then drops every capability, sets no_new_privs and becomes the user
          // (SETPCAP, SETUID, SETGID); exec's programs run as this root too, and the bridge reaches
          // init's socket in the user's own 0700 folder (DAC_OVERRIDE). Kubernetes refuses
          // allowPrivilegeEscalation false beside SYS_ADMIN; init sets no_new_privs itself.
          securityContext: open
            ? userSecurity(uid, gid)
            : {
                runAsUser: 0,
                runAsGroup: 0,
                runAsNonRoot: false,
                privileged: false,
                capabilities: { drop: ["ALL"], add: [...INIT_CAPABILITIES] },
              },
          resources: { requests: sizes, limits: sizes },
          ...(open ? { volumeMounts: openMounts() } : plan.sidecar ? { volumeMounts: [computerEgressMount()] } : {}),
        },
        ...(plan.sidecar ? [sidecarContainer(plan.sidecar)] : []),
      ],
      ...(open
        ? { volumes: [agentrunVolume()] }
        : plan.sidecar
          ? { volumes: [egressVolume(), ...(plan.sidecar.proxy ? [listVolume(plan.sidecar.proxy)] : [])] }
          : {}),
    },
  };
}
