// Kubernetes' hooks of the one create flow (src/contract/create.ts): the cluster's checks and the
// daemon's bytes before anything is made; the Pod made with the owner's labels in the request
// (its delete, waited for, pushed on the undo stack at once); the wait until its container runs
// (an image not on the node refused, naming image); the daemon's upload (into an open Pod's setup
// container before its computer runs, unprivileged.ts); an allowlist's proxy
// running (init serves nothing before it answers, so a proxy that never does means no program
// ran); the bridge; and the Pod read back whole (inspect.ts) held to what was declared. A shared
// proxy joined (proxies.ts) is read and held to the computer before the Pod is made.
import type { Adoption } from "../contract/adopt.js";
import { abortedWords, type CreateHooks, failedThen } from "../contract/create.js";
import type { CheckedSpec, ComputerRef, ComputerSpec, Connection, CreateOptions } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { parseUser, userText } from "../contract/user.js";
import { uploadArgv } from "./commands.js";
import { CONTAINER, HOME } from "./constants.js";
import { EGRESS_CONTAINER, type SidecarPlan } from "./egress.js";
import { egressImageOf, inspectPod } from "./inspect.js";
import { podManifest, type RecordedSpec } from "./pod.js";
import type { Daemon, KubePods } from "./pods.js";
import { type PodProblem, sidecarProblem, waitingProblem } from "./readback.js";
import { SETUP_CONTAINER } from "./unprivileged.js";
import type { KubeEgressProxies } from "./proxies.js";

export interface KubeChecked extends CheckedSpec {
  daemon?: Daemon;
  /** An allowlist's proxy image. */
  egressImage?: string;
  /** An allowlist's: the addresses its proxy refuses as the nodes' own (node-addresses.ts). */
  hostAddresses?: string[];
}

export interface KubeMade {
  name: string;
  uid: string | undefined;
}

export function kubeHooks(
  sb: KubePods,
  provider: { check(spec: ComputerSpec): Result<CheckedSpec>; adoption(): Adoption; proxies: KubeEgressProxies },
  options: CreateOptions,
): CreateHooks<KubeChecked, KubeMade, Connection> {
  const { signal } = options;
  const { t } = sb.o;
  return {
    check: (spec) => provider.check(spec),
    prepare: async (checked) => {
      const cluster = await sb.preflight.check(checked.spec.image, signal);
      if (!cluster.ok) return fail(cluster.error.code, `${cluster.error.message}; nothing was made`, cluster.error.field ? { field: cluster.error.field } : {});
      const daemon = await sb.daemonBytes();
      if (!daemon.ok) return daemon;
      if (checked.allow === undefined) return ok({ ...checked, daemon: daemon.value });
      const image = await egressImageOf(sb);
      if (!image.ok) return image;
      const nodes = await sb.nodeAddresses(signal);
      return nodes.ok ? ok({ ...checked, daemon: daemon.value, egressImage: image.value, hostAddresses: nodes.value.addresses }) : nodes;
    },
    adoption: provider.adoption(),
    make: async (c) => {
      const user = parseUser(c.spec.user ?? sb.o.user);
      if (!user.ok) return user;
      const allow = c.checked.allow;
      const proxy = c.spec.egress;
      // A shared proxy joined: its ConfigMap read and held to the computer before anything is made.
      if (proxy !== undefined) {
        const joined = await provider.proxies.joinable(proxy, { user: userText(user.value), deadline: c.deadline, allow: allow ?? [] }, signal);
        if (!joined.ok) return joined;
      }
      const recorded: RecordedSpec = {
        image: c.spec.image,
        user: userText(user.value),
        workdir: c.spec.workdir ?? HOME,
        network: proxy !== undefined ? { allow: [] } : allow ? { allow } : c.spec.network === "open" ? "open" : "none",
        ...(proxy === undefined ? {} : { egress: proxy }),
        ...(c.spec.cpus === undefined ? {} : { cpus: c.spec.cpus }),
        ...(c.spec.memoryMb === undefined ? {} : { memoryMb: c.spec.memoryMb }),
      };
      const manifest = podManifest({
        name: c.name,
        namespace: sb.o.namespace,
        deadline: c.deadline,
        lifetimeMs: c.spec.lifetimeMs,
        recorded,
        labels: c.labels,
        arch: sb.o.arch,
        runtimeClass: sb.o.runtimeClass,
        pullPolicy: sb.o.pullPolicy,
        waitSeconds: (t.uploadMs + t.callMs) / 1000,
        sidecar: allow ? sidecarPlan(sb, c.checked, user.value, c.deadline, allow, proxy) : undefined,
      });
      const made = await sb.create(manifest, signal);
      if (!made.ok) {
        const field = /RuntimeClass/i.test(made.error.message) ? { field: "runtimeClass" } : {};
        return fail(made.error.code, `${made.error.message}; nothing was made`, field);
      }
      const uid = made.value.metadata.uid;
      c.undo.push({ what: `the Pod ${c.name}`, run: (s) => sb.deleteAndWait(c.name, uid, s), ms: t.releaseMs + t.callMs });
      return ok({ name: c.name, uid });
    },
    ready: async (c, made) => {
      // An open Pod's daemon goes to its setup container, which hands it on read-only (unprivileged.ts).
      const open = c.spec.network === "open";
      if (open) {
        const setup = await sb.untilRunning(made.name, SETUP_CONTAINER, waitingProblem, `the Pod ${made.name}'s setup container to run`, signal);
        if (!setup.ok) return setup;
        if (setup.value.problem) return refusedStart(made.name, setup.value.problem);
      }
      const daemon = c.checked.daemon!;
      const upload = (container: string) => sb.upload(made.name, daemon, uploadArgv(daemon.sha256), signal, container);
      const early = open ? await upload(SETUP_CONTAINER) : ok();
      if (!early.ok) return early;
      const running = await sb.waitRunning(made.name, signal);
      if (!running.ok) return running;
      const late = open ? ok() : await upload(CONTAINER);
      if (!late.ok) return late;
      if (c.checked.allow === undefined) return ok(made);
      const proxy = await sidecarRunning(sb, made.name, signal);
      return proxy.ok ? ok(made) : proxy;
    },
    connect: (_c, made) => sb.open(made.name, signal, true),
    verify: async (c, made, connection): Promise<Result<ComputerRef>> => {
      const pod = await sb.get(made.name, signal);
      if (!pod.ok) return pod;
      const read = await inspectPod(sb, pod.value, { connection, signal, proxies: provider.proxies });
      if (!read.ok) return read;
      return read.value.drift.length > 0
        ? fail("refused", `${c.name} is not what was declared, so it was not kept: ${read.value.drift.join("; ")}`)
        : ok(read.value.ref);
    },
    close: (connection) => connection.close(),
    failed: failedThen((name) => `the Pod ${name} was deleted`),
    aborted: (step, name) =>
      step === "make"
        ? "create was aborted before the API server was asked; nothing was made"
        : step === "verify"
          ? `create of ${name} was aborted after its checks`
          : abortedWords(step),
  };
}

function sidecarPlan(
  sb: KubePods,
  checked: KubeChecked,
  user: { uid: number; gid: number },
  deadline: string,
  allow: string[],
  proxy: string | undefined,
): SidecarPlan {
  return {
    ...(proxy === undefined ? {} : { proxy }),
    image: checked.egressImage!,
    pullPolicy: sb.o.pullPolicy,
    uid: user.uid,
    gid: user.gid,
    deadline,
    allow,
    hostAddresses: checked.hostAddresses!,
    hint: sb.o.egress.hint,
    testRange: sb.o.egress.testRange,
  };
}

/** Waits until the egress proxy's container runs; refuses at once one that never will, naming its setting. */
async function sidecarRunning(sb: KubePods, name: string, signal: AbortSignal | undefined): Promise<Result<undefined>> {
  const read = await sb.untilRunning(name, EGRESS_CONTAINER, sidecarProblem, `the egress proxy of ${name} to run`, signal);
  if (!read.ok) return read;
  const { problem } = read.value;
  return problem ? refusedStart(name, problem) : ok();
}

/** A part that will never run: the caller's to fix when it names a setting (invalid), else a failure. */
const refusedStart = (name: string, problem: PodProblem): Result<never> =>
  fail(problem.field ? "invalid" : "failed", `${name}: ${problem.message}`, problem.field ? { field: problem.field } : {});
