// The Pod client. First what the create flow asks of the cluster, in its order: the reads before
// anything is made (prepare), the Pod made with its delete on the undo stack (make), waited for
// until its computer runs with the daemon in it (ready), and the first bridge (openNew). Then what
// its verify, and every read, asks of it (inspect.ts): the node's state, what an allowlisted Pod's
// sidecar must be, what hello must say, the bridge (open). Beneath them the calls the provider's other verbs share:
// one Pod read, a list by labels, a delete waited for until the API server answers 404, the wait
// until a container runs (or why it never will), the daemon's upload through exec.
import { podImageOf } from "./snapshot-image.js";
import { DaemonFile, type Daemon } from "../contract/daemon-file.js";
import { createdAt, type Adoption, type Candidate } from "../contract/adopt.js";
import type { AttachBy, ReadBack, SpecDefaults } from "../contract/provider.js";
import { fail, notTheComputer, ok, type Result } from "../daemon/result.js";
import type { Undo } from "../contract/undo.js";
import { waitUntil } from "../contract/wait.js";
import type { CallOptions } from "../daemon/client.js";
import { KubeApi } from "./api.js";
import { uploadArgv } from "./commands.js";
import { idOf, CONTAINER, DEADLINE_ANNOTATION, FIELD_MANAGER, NAME_PATTERN, POOL_ANNOTATION, POOL_CLAIMED, podOfId } from "./constants.js";
import { openBridge, type ExecRunner } from "./connect.js";
import { EGRESS_CONTAINER, type SidecarWant } from "./egress.js";
import { openExec } from "./exec.js";
import type { Connection } from "../contract/provider.js";
import { settle, type KubernetesProviderOptions, type Settled } from "./options.js";
import { selectorOf } from "./labels.js";
import { nodeAddresses, type NodeAddresses } from "./node-addresses.js";
import { type NodeState, NodeStates } from "./node-lost.js";
import { Preflight } from "./preflight.js";
import { computerState, endedWords, type Pod, type PodProblem, sidecarProblem, stateOf, waitingProblem } from "./readback.js";
import type { RecordedSpec } from "./pod.js";
import { parseUser } from "../contract/user.js";
import { SETUP_CONTAINER } from "./unprivileged.js";
import { uploadDaemon } from "./upload.js";
import { proxyBinaryBeside } from "../egress/proxy-command.js";
import { proxyImageTagOf } from "../kits/image/egress-proxy.js";

export type { Daemon };
export const GROUPS = ["exec", "files", "processes"] as const;

/** What prepare reads of the cluster before anything is made: the daemon, and an allowlist's proxy image and the addresses it refuses as the nodes' own. */
export interface PodInputs {
  daemon: Daemon;
  egressImage?: string;
  hostAddresses?: string[];
  /** The nodes lost now, which the Pod is kept off. */
  avoidNodes?: string[];
}

/** The Pod made: its name, and its uid, by which its delete touches no Pod of the same name made since. */
export interface KubeMade {
  name: string;
  uid: string | undefined;
}

export class KubePods {
  readonly o: Settled;
  readonly api: KubeApi;
  readonly version: string;
  readonly #daemon: DaemonFile;
  readonly #proxy: DaemonFile;
  /** What the API server can refuse before anything is made (preflight.ts). */
  readonly preflight: Preflight;
  readonly #nodes: NodeStates;

  constructor(options: KubernetesProviderOptions, packageVersion: () => string) {
    this.o = settle(options);
    this.api = new KubeApi(this.o.creds);
    this.version = options.version ?? packageVersion();
    this.#daemon = new DaemonFile(this.o.daemonPath);
    this.#proxy = new DaemonFile(proxyBinaryBeside(this.o.daemonPath));
    this.preflight = new Preflight(this.api, this.o);
    this.#nodes = new NodeStates(this.api, this.o.t.callMs);
  }

  /** The cluster's checks of the image and the credentials, the daemon's bytes, and an allowlist's proxy image and the nodes' addresses. */
  async prepare(image: string, allow: boolean, signal?: AbortSignal): Promise<Result<PodInputs>> {
    // The lost nodes listed beside the checks, not after them: no create waits for it alone.
    const listing = this.#nodes.lost(signal);
    const cluster = await this.preflight.check(podImageOf(image), signal);
    if (!cluster.ok) return fail(cluster.error.code, `${cluster.error.message}; nothing was made`, cluster.error.field ? { field: cluster.error.field } : {});
    const daemon = await this.daemonBytes();
    if (!daemon.ok) return daemon;
    // Best effort: a listing that fails leaves the scheduler its own choice, as before.
    const lost = await listing;
    const avoid = lost.ok && lost.value.length > 0 ? { avoidNodes: lost.value } : {};
    if (!allow) return ok({ daemon: daemon.value, ...avoid });
    const egressImage = await this.egressImage();
    if (!egressImage.ok) return egressImage;
    const nodes = await this.nodeAddresses(signal);
    return nodes.ok ? ok({ daemon: daemon.value, egressImage: egressImage.value, hostAddresses: nodes.value.addresses, ...avoid }) : nodes;
  }

  /** Makes the Pod of the manifest, with the owner's labels in the request; its delete, waited for, goes on the undo stack at once. */
  async make(name: string, manifest: Record<string, unknown>, undo: Undo, signal?: AbortSignal): Promise<Result<KubeMade>> {
    const made = await this.api.call<Pod>(`${this.path()}?fieldManager=${FIELD_MANAGER}`, "creating the Pod", {
      method: "POST",
      body: manifest,
      ms: this.o.t.callMs,
      signal,
    });
    if (!made.ok) {
      const field = /RuntimeClass/i.test(made.error.message) ? { field: "runtimeClass" } : {};
      return fail(made.error.code, `${made.error.message}; nothing was made`, field);
    }
    const uid = made.value.metadata.uid;
    const remove = (s: AbortSignal | undefined) => this.deleteAndWait(name, uid, s);
    undo.push({ what: `the Pod ${name}`, run: remove, ms: this.o.t.releaseMs + this.o.t.callMs });
    return ok({ name, uid });
  }

  /**
   * Waits until the computer runs with the daemon in it. An open Pod's daemon goes to its setup
   * container, which hands it on read-only (unprivileged.ts), before the computer runs; any other
   * Pod's into the computer's container once it runs. An allowlist's proxy must run too: init
   * serves nothing before it answers, so a proxy that never does means no program ran.
   */
  async ready(name: string, daemon: Daemon, network: { open: boolean; allow: boolean }, signal?: AbortSignal): Promise<Result<undefined>> {
    const { open, allow } = network;
    if (open) {
      const setup = await this.untilRunning(name, SETUP_CONTAINER, waitingProblem, `the Pod ${name}'s setup container to run`, signal);
      if (!setup.ok) return setup;
      if (setup.value.problem) return refusedStart(name, setup.value.problem);
    }
    const early = open ? await this.upload(name, daemon, SETUP_CONTAINER, signal) : ok();
    if (!early.ok) return early;
    const running = await this.waitRunning(name, signal);
    if (!running.ok) return running;
    const late = open ? ok() : await this.upload(name, daemon, CONTAINER, signal);
    if (!late.ok) return late;
    if (!allow) return ok();
    const proxy = await this.untilRunning(name, EGRESS_CONTAINER, sidecarProblem, `the egress proxy of ${name} to run`, signal);
    if (!proxy.ok) return proxy;
    return proxy.value.problem ? refusedStart(name, proxy.value.problem) : ok();
  }

  /** Create's first bridge to the Pod's daemon: it tries again while init comes up, until the Pod has ended. */
  openNew(name: string, signal?: AbortSignal): Promise<Result<Connection>> {
    const ended = async (s: AbortSignal | undefined) => endedWords(name, await this.get(name, s));
    const run = this.runner(name);
    return openBridge(run, { target: name, helloMs: this.o.t.helloMs, callMs: this.o.t.callMs, signal, retry: { ended } });
  }

  /** A Pod's node as its read takes it: whether it is lost, and its kernel (node-lost.ts). */
  nodeState(node: string, signal?: AbortSignal): Promise<Result<NodeState>> {
    return this.#nodes.read(node, signal);
  }

  /** What an allowlisted Pod's sidecar must be, from what create recorded and the provider now (the nodes' addresses among it, and why they were not read). */
  async sidecarWant(
    pod: Pod,
    recorded: RecordedSpec | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Result<{ want: SidecarWant | undefined; note?: string | undefined }>> {
    const user = parseUser(recorded?.user ?? "");
    const deadline = pod.metadata.annotations?.[DEADLINE_ANNOTATION];
    if (!user.ok || !deadline) return ok({ want: undefined });
    const image = await this.egressImage();
    if (!image.ok) return image;
    const nodes = await this.nodeAddresses(signal);
    if (!nodes.ok) return nodes;
    const want: SidecarWant = {
      ...(recorded?.egress === undefined ? {} : { proxy: recorded.egress }),
      image: image.value,
      pullPolicy: this.o.pullPolicy,
      uid: user.value.uid,
      gid: user.value.gid,
      deadline,
      hostAddresses: nodes.value.addresses,
      testRange: this.o.egress.testRange,
      testNames: this.o.egress.testNames,
      testRoot: this.o.egress.testRoot,
    };
    return ok({ want, note: nodes.value.note });
  }

  /** What hello must say: the provider's daemon. */
  want() {
    return {
      version: this.version,
      arch: this.o.arch,
      kind: this.o.browserImage === undefined ? "linux" : "browser",
      groups: GROUPS,
      user: this.o.user,
      sha256: "",
    };
  }

  /** The bridge to the Pod's daemon, hello said. */
  open(name: string, signal?: AbortSignal): Promise<Result<Connection>> {
    const run = this.runner(name);
    return openBridge(run, { target: name, helloMs: this.o.t.helloMs, callMs: this.o.t.callMs, signal });
  }

  path(name?: string): string {
    return `/api/v1/namespaces/${encodeURIComponent(this.o.namespace)}/pods${name === undefined ? "" : `/${encodeURIComponent(name)}`}`;
  }

  daemonBytes(): Promise<Result<Daemon>> {
    return this.#daemon.bytes();
  }

  /** The proxy image the provider runs: the option's, else the recipe's tag for the proxy built beside its daemon (with the roots, as Docker's). */
  async egressImage(): Promise<Result<string>> {
    if (this.o.egress.image) return ok(this.o.egress.image);
    const proxy = await this.#proxy.bytes();
    return proxy.ok ? ok(proxyImageTagOf(proxy.value.sha256)) : proxy;
  }

  /** What an allowlist's proxy refuses as the nodes' own: the Node list's and egress.hostAddresses (node-addresses.ts). */
  nodeAddresses(signal?: AbortSignal): Promise<Result<NodeAddresses>> {
    return nodeAddresses(this.api, this.o.egress.hostAddresses, { ms: this.o.t.callMs, signal, testRange: this.o.egress.testRange });
  }

  get(name: string, signal?: AbortSignal): Promise<Result<Pod>> {
    return this.api.call<Pod>(this.path(name), `reading the Pod ${name}`, { ms: this.o.t.callMs, signal });
  }

  /** Every Pod of this provider carrying the labels, in one list call. */
  async list(labels: Record<string, string>, signal?: AbortSignal): Promise<Result<Pod[]>> {
    const listed = await this.api.call<{ items?: Pod[] }>(
      `${this.path()}?labelSelector=${encodeURIComponent(selectorOf(labels))}`,
      "listing the computers' Pods",
      {
        ms: this.o.t.callMs,
        signal,
      },
    );
    return listed.ok ? ok((listed.value?.items ?? []).filter((p) => NAME_PATTERN.test(p.metadata.name))) : listed;
  }

  /** The Pod of a ref or of labels: not_found when there is none, or more than one carries the labels. */
  async find(by: AttachBy, signal?: AbortSignal): Promise<Result<Pod>> {
    if (by && "id" in by) {
      const pod = podOfId(by.id);
      if (!pod) return fail("not_found", `${String(by.id).slice(0, 60)} is not the id of a computer of this provider`);
      const got = await this.get(pod.name, signal);
      // A Pod of the same name made since is not the computer the id names.
      if (got.ok && pod.uid && got.value.metadata.uid !== pod.uid)
        return fail("not_found", `${pod.name} is a Pod made since the computer ${String(by.id)} was deleted`, notTheComputer(String(by.id)));
      return got;
    }
    // No label would match every computer in the namespace: one of them is no answer.
    if (Object.keys(by?.labels ?? {}).length === 0)
      return fail("invalid", "attach and read take { id } or { labels } with at least one label", { field: "by" });
    const found = await this.list(by!.labels, signal);
    if (!found.ok) return found;
    if (found.value.length !== 1) return fail("not_found", `${found.value.length} computers carry those labels, not one`);
    return ok(found.value[0]!);
  }

  /** Deletes the Pod (by its uid, when known, so a Pod of the same name made since is never touched) and waits until the API server answers 404. */
  async deleteAndWait(name: string, uid: string | undefined, signal?: AbortSignal): Promise<Result<undefined>> {
    // The Pod's delete, by its uid when known; graceSeconds 0 where no kubelet is left to end it.
    const remove = (what: string, graceSeconds?: number) =>
      this.api.call<Pod | undefined>(this.path(name), what, {
        method: "DELETE",
        body: {
          apiVersion: "v1",
          kind: "DeleteOptions",
          ...(graceSeconds === undefined ? {} : { gracePeriodSeconds: graceSeconds }),
          ...(uid ? { preconditions: { uid } } : {}),
        },
        ms: this.o.t.callMs,
        signal,
      });
    const asked = await remove(`deleting the Pod ${name}`);
    if (!asked.ok && asked.error.code === "not_found") return ok();
    if (!asked.ok && asked.error.code !== "exists") return asked;
    // No kubelet ends a Pod on a lost node: it is deleted at once, as the API allows for a node that is gone.
    const node = asked.ok ? asked.value?.spec?.nodeName : undefined;
    if (node && asked.ok && asked.value?.metadata?.deletionTimestamp) {
      const read = await this.nodeState(node, signal);
      if (read.ok && read.value.lost) {
        const forced = await remove(`deleting the Pod ${name} on its lost node ${node}`, 0);
        if (!forced.ok && forced.error.code !== "not_found" && forced.error.code !== "exists") return forced;
      }
    }
    const gone = await waitUntil(
      async (s) => {
        const read = await this.get(name, s);
        if (!read.ok) return read.error.code === "not_found" ? "gone" : read.error.message;
        return uid && read.value.metadata.uid !== uid ? "gone" : `there (${stateOf(read.value)})`;
      },
      (state) => state === "gone",
      { boundMs: this.o.t.releaseMs, signal, minMs: this.o.t.pollMs, what: `the Pod ${name} to be gone`, describe: (s) => s },
    );
    return gone.ok ? ok() : gone;
  }

  /** Waits until the container runs; refuses at once what will never run (an image not there, a Pod that ended), naming the setting. */
  async waitRunning(name: string, signal?: AbortSignal): Promise<Result<Pod>> {
    const read = await this.untilRunning(name, CONTAINER, waitingProblem, `the Pod ${name}'s container to run`, signal);
    if (!read.ok) return read;
    const { pod, problem } = read.value;
    if (problem) return fail("invalid", `${name}: ${problem.message}`, problem.field ? { field: problem.field } : {});
    return ok(pod);
  }

  /** Waits (a watch, else polling) until the Pod's container (or init container) runs, or problemOf says why it never will (the caller says what that is). */
  async untilRunning(
    name: string,
    container: string,
    problemOf: (pod: Pod) => PodProblem | undefined,
    what: string,
    signal: AbortSignal | undefined,
  ): Promise<Result<{ pod: Pod; problem: PodProblem | undefined }>> {
    let problem: PodProblem | undefined;
    const done = (pod: Pod) => {
      problem = problemOf(pod);
      return (
        problem !== undefined ||
        [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])].some(
          (c) => c.name === container && c.state?.running !== undefined,
        )
      );
    };
    // A watch from the Pod as first read sees the container run as soon as the kubelet reports it
    // (polling, which backs off to 1 s, saw an open Pod's setup 0.7 s late); polling is the way when
    // the watch cannot be had or ends first.
    const deadline = Date.now() + this.o.t.startMs;
    const first = await this.get(name, signal);
    if (first.ok && done(first.value)) return ok({ pod: first.value, problem });
    const rv = first.ok ? first.value.metadata.resourceVersion : undefined;
    if (rv) {
      const selector = encodeURIComponent(`metadata.name=${name}`);
      const watched = await this.api.watch<Pod>(
        `${this.path()}?watch=1&fieldSelector=${selector}&resourceVersion=${encodeURIComponent(rv)}&timeoutSeconds=${Math.ceil(this.o.t.startMs / 1000)}`,
        `watching the Pod ${name}`,
        done,
        { ms: this.o.t.startMs, signal },
      );
      if (watched.ok) return ok({ pod: watched.value, problem });
      if (watched.error.code === "aborted") return watched;
    }
    // The watch took the whole wait: one last read says where the Pod stands.
    if (Date.now() >= deadline) {
      const last = await this.get(name, signal);
      return fail("timeout", `${what} did not come within ${Math.round(this.o.t.startMs / 1000)} s${last.ok ? `: ${stateOf(last.value)}` : ""}`);
    }
    const read = await waitUntil(
      async (s) => {
        const pod = await this.get(name, s);
        if (!pod.ok) throw new Error(pod.error.message);
        problem = problemOf(pod.value);
        return pod.value;
      },
      done,
      { boundMs: Math.max(1, deadline - Date.now()), signal, minMs: this.o.t.pollMs, maxMs: 1000, what, describe: (p) => stateOf(p) },
    );
    return read.ok ? ok({ pod: read.value, problem }) : read;
  }

  runner(name: string, container = CONTAINER): ExecRunner {
    return (argv, options) => openExec(this.api, { namespace: this.o.namespace, pod: name, container }, argv, options);
  }

  /** The daemon's upload into the computer's container, or the container named (an open Pod's setup). */
  upload(name: string, daemon: Daemon, container: string, signal?: AbortSignal): Promise<Result<undefined>> {
    const run = this.runner(name, container);
    return uploadDaemon(run, {
      argv: uploadArgv(daemon.sha256),
      bytes: daemon.bytes,
      sha256: daemon.sha256,
      uploadMs: this.o.t.uploadMs,
      callMs: this.o.t.callMs,
      signal,
      what: `the daemon's upload into ${name}`,
    });
  }

  /** Adoption's lookups: the Pods of a declaration with their creation times; read is the provider's, remove a delete waited for. */
  adoption(read: (by: { id: string }, options: CallOptions) => Promise<Result<ReadBack>>, defaults: SpecDefaults | undefined): Adoption {
    return {
      list: async (labels, options) => {
        const found = await this.list(labels, options.signal);
        if (!found.ok) return found;
        // A claimed pool Pod is its run's now: never adopted back into its slot by a refill.
        return ok(
          found.value
            .filter((pod) => pod.metadata.annotations?.[POOL_ANNOTATION] !== POOL_CLAIMED)
            .map((pod): Candidate => ({
              ref: { id: idOf(pod.metadata.name, pod.metadata.uid), name: pod.metadata.name, provider: "kubernetes" },
              state: computerState(pod),
              created: createdAt(pod.metadata.creationTimestamp),
            })),
        );
      },
      read,
      remove: (ref) => this.deleteAndWait(ref.name, podOfId(ref.id)?.uid),
      defaults,
    };
  }
}

/** A part that will never run: the caller's to fix when it names a setting (invalid), else a failure. */
const refusedStart = (name: string, problem: PodProblem): Result<never> =>
  fail(problem.field ? "invalid" : "failed", `${name}: ${problem.message}`, problem.field ? { field: problem.field } : {});
