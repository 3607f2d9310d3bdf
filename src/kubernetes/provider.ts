// KubernetesProvider: the ComputerProvider interface on Pods through the API server. create is
// the one flow with Kubernetes' hooks (make.ts); the Pod's manifest, its read-back and drift, the
// exec bridge and the upload live in their own files, the API calls in pods.ts; this one wires
// them into create, read, attach, list, network, connect and release.
import { createdAt, removeEarlier, type Adoption } from "../contract/adopt.js";
import { helloDrift } from "../kits/agent-child/drift.js";
import { attachedIf } from "../contract/attach.js";
import { checkedSpec } from "../contract/checked.js";
import { createWith } from "../contract/create.js";
import type {
  AttachBy,
  Capabilities,
  CheckedSpec,
  CheckInput,
  ComputerInfo,
  ComputerProvider,
  ComputerRef,
  ComputerSpec,
  Connection,
  CreateOptions,
  NetworkPolicy,
  PoolHooks,
  SnapshotHooks,
  NetworkReadBack,
  ReadBack,
  ReleaseHow,
} from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { sameNetwork } from "../egress/list.js";
import type { CallOptions } from "../daemon/client.js";
import { packageVersion } from "../package.js";
import { checkSpec } from "./check.js";
import { COMPUTER_LABEL, idOf, DEFAULT_USER, HOME, MAX_LIFETIME_MS, podOfId } from "./constants.js";
import { inspectPod } from "./inspect.js";
import { decodeLabels, recordedLabels } from "./labels.js";
import { kubeHooks } from "./make.js";
import { KubeEgressProxies } from "./proxies.js";
import { kubePool } from "./pool.js";
import type { KubernetesProviderOptions, Settled } from "./options.js";
import { GROUPS, KubePods } from "./pods.js";
import { computerState, deadlineOf, recordedNetwork, recordedSpec } from "./readback.js";
import { GVISOR_HOLDS } from "./runtime.js";
import { KubeSnapshots } from "./snapshots.js";
import { podImageOf } from "./snapshot-image.js";
import { BROWSER_IMAGE } from "../kits/browser/labels.js";
import { withCdp } from "../kits/browser/computer.js";
import { cdpLiveView } from "../kits/browser/screencast.js";
import type { LiveView } from "../contract/watch.js";

export type { KubernetesProviderOptions } from "./options.js";

export function capabilitiesOf(o: Pick<Settled, "maxLifetimeMs" | "user" | "image" | "runtimeClass" | "gvisorRuntimeClass" | "browserImage">): Capabilities {
  const linux = linuxCapabilities(o);
  if (o.browserImage === undefined) return linux;
  // A browser: computerd its init with a linux computer's methods, Chromium as its user, its CDP
  // the provider's group (connect serves it); no gVisor, no workdir.
  const { runtimes: _runtimes, ...rest } = linux;
  return { ...rest, kind: "browser", groups: [...linux.groups, "cdp"], defaults: { image: BROWSER_IMAGE, user: o.user } };
}

function linuxCapabilities(o: Pick<Settled, "maxLifetimeMs" | "user" | "image" | "runtimeClass" | "gvisorRuntimeClass">): Capabilities {
  return {
    kind: "linux",
    os: "linux",
    daemon: "pid1",
    groups: [...GROUPS],
    lifetime: "vendor",
    maxLifetimeMs: o.maxLifetimeMs,
    network: ["none", "open", "allow"],
    networkReadBack: false,
    release: ["delete"],
    user: ["uid"],
    mount: [],
    snapshot: true,
    vendorAgentPorts: [],
    isolation: o.runtimeClass ? `container (RuntimeClass ${o.runtimeClass})` : "container",
    ...(o.gvisorRuntimeClass ? { runtimes: { gvisor: GVISOR_HOLDS } } : {}),
    defaults: { ...(o.image ? { image: o.image } : {}), workdir: HOME, user: o.user },
  };
}

/** The capabilities with the options unset. */
export const CAPABILITIES: Capabilities = capabilitiesOf({
  maxLifetimeMs: MAX_LIFETIME_MS,
  user: DEFAULT_USER,
  image: undefined,
  runtimeClass: undefined,
  gvisorRuntimeClass: undefined,
  browserImage: undefined,
});

export class KubernetesProvider implements ComputerProvider {
  readonly id = "kubernetes";
  readonly version: string;
  readonly #sb: KubePods;
  /** Shared egress proxies: a ConfigMap each, which the sidecars of the computers that join it read (ComputerSpec.egress). */
  readonly proxies: KubeEgressProxies;
  /** A warm pool's hooks: a claim is one patch under the Pod's resourceVersion (pool.ts). */
  readonly pool: PoolHooks;
  /** Snapshots: images in the cluster's registry, made by the distribution API (snapshots.ts). */
  readonly snapshots: SnapshotHooks;
  /** A browser's live view: CDP's screencast of its page through its connection's CDP; a linux computer has none. */
  readonly watch?: LiveView;

  constructor(options: KubernetesProviderOptions) {
    this.#sb = new KubePods(options, packageVersion);
    this.version = this.#sb.version;
    this.proxies = new KubeEgressProxies(this.#sb);
    this.pool = kubePool(this.#sb, this.id);
    this.snapshots = new KubeSnapshots(this.#sb, (ref, options) => this.connect(ref, options));
    if (this.#sb.o.browserImage !== undefined) this.watch = cdpLiveView(this);
  }

  capabilities(): Capabilities {
    return capabilitiesOf(this.#sb.o);
  }

  check(spec: CheckInput): Result<CheckedSpec> {
    return checkedSpec(spec, checkSpec(spec, this.capabilities(), this.#sb.o.egress.testRange));
  }

  #adoption(): Adoption {
    return this.#sb.adoption((by, options) => this.read(by, options), this.capabilities().defaults);
  }

  /** The one create flow with Kubernetes' hooks; a Pod an interrupted create of the same owner and spec left is adopted when whole, else deleted. */
  create(spec: ComputerSpec, options: CreateOptions = {}): Promise<Result<ComputerRef>> {
    return createWith(kubeHooks(this.#sb, { check: (s) => this.check(s), adoption: () => this.#adoption(), proxies: this.proxies }, options), spec, options);
  }

  async read(by: AttachBy, options: CallOptions = {}): Promise<Result<ReadBack>> {
    const found = await this.#sb.find(by, options.signal);
    if (!found.ok) return found;
    return inspectPod(this.#sb, found.value, { signal: options.signal, proxies: this.proxies });
  }

  async attach(by: AttachBy, options: CallOptions = {}): Promise<Result<ComputerRef>> {
    return attachedIf(await this.read(by, options));
  }

  async list(labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
    if (typeof labels !== "object" || labels === null || Object.entries(labels).some(([k, v]) => !k || typeof v !== "string")) {
      return fail("invalid", "list takes labels: an object of strings", { field: "labels" });
    }
    const found = await this.#sb.list(labels, options.signal);
    if (!found.ok) return found;
    return ok(
      found.value
        .filter((pod) => !pod.metadata.deletionTimestamp)
        .map((pod) => {
          const given = recordedLabels(pod.metadata.annotations);
          const decoded = decodeLabels(pod.metadata.labels ?? {}, given);
          return { pod, decoded };
        })
        // The selector matched the encoded labels; the decoded ones are held to those asked for exactly.
        .filter(({ decoded }) => Object.entries(labels).every(([k, v]) => decoded[k] === v))
        .map(({ pod, decoded }) => ({
          ref: { id: idOf(pod.metadata.name, pod.metadata.uid), name: pod.metadata.name, provider: this.id },
          labels: decoded,
          deadline: deadlineOf(pod),
          state: computerState(pod),
          network: recordedNetwork(recordedSpec(pod)),
        })),
    );
  }

  async connect(ref: ComputerRef, options: CallOptions = {}): Promise<Result<Connection>> {
    const found = await this.#sb.find({ id: ref?.id ?? ref?.name }, options.signal);
    if (!found.ok) return found.error.code === "not_found" ? fail("gone", found.error.message) : found;
    if (computerState(found.value) !== "running") return fail("gone", `${found.value.metadata.name} is not running, so it cannot be connected to`);
    const connection = await this.#sb.open(found.value.metadata.name, options.signal);
    if (!connection.ok) return connection;
    const wrong = helloDrift(connection.value.hello, this.#sb.want());
    if (wrong.length > 0) {
      await connection.value.close();
      return fail("refused", `the daemon in ${found.value.metadata.name} is not the provider's: ${wrong.join("; ")}; make a new computer with this provider`);
    }
    // A browser's CDP, served on this machine's loopback through this connection for as long as it lives.
    return this.#sb.o.browserImage === undefined ? connection : withCdp(connection.value);
  }

  async network(ref: ComputerRef, policy?: NetworkPolicy, options: CallOptions = {}): Promise<Result<NetworkReadBack>> {
    const read = await this.read({ id: ref?.id ?? ref?.name }, options);
    if (!read.ok) return read;
    const now = read.value.ref.spec?.network ?? { other: "its network could not be read" };
    if (policy !== undefined && !sameNetwork(now, policy))
      return fail(
        "unsupported",
        "a Kubernetes computer's network is fixed at create (a Pod's containers and init's namespace cannot change): make a new computer with the network you want",
        { field: "network" },
      );
    return ok(now);
  }

  async release(ref: ComputerRef, how: ReleaseHow, options: CallOptions = {}): Promise<Result<undefined>> {
    if (how === "stop")
      return fail(
        "unsupported",
        `a Pod has no stopped state (restartPolicy Never; delete is its end), so stop is refused and ${ref?.name ?? "the computer"} runs on: release it with delete`,
        {
          field: "how",
        },
      );
    if (how !== "delete") return fail("invalid", 'release takes "stop" or "delete"', { field: "how" });
    const pod = podOfId(ref?.id ?? ref?.name);
    if (!pod) return fail("invalid", "a Kubernetes computer's ref has its Pod's name (computer-<12 hex digits>), and its uid after a slash", { field: "id" });
    const { name } = pod;
    if (options.signal?.aborted) return fail("aborted", `release of ${name} was aborted before the API server was asked`);
    const read = await this.#sb.get(name, options.signal);
    if (!read.ok) return read.error.code === "not_found" ? ok() : read;
    // The uid the ref carries proves the Pod is the one made (its labels may have been changed by
    // hand); a Pod of that name made since is not it, and is gone as far as this ref goes.
    if (pod.uid !== undefined && read.value.metadata.uid !== pod.uid) return ok();
    if (pod.uid === undefined && read.value.metadata.labels?.[COMPUTER_LABEL] !== "1")
      return fail("not_found", `${name} is not a computer (no ${COMPUTER_LABEL}=1 label), so it was not released`);
    const gone = await this.#sb.deleteAndWait(name, read.value.metadata.uid, options.signal);
    if (!gone.ok) return fail(gone.error.code, `release of ${name}: ${gone.error.message}`);
    const earlier = await removeEarlier(this.#adoption(), {
      id: idOf(name, read.value.metadata.uid),
      labels: read.value.metadata.labels ?? {},
      created: createdAt(read.value.metadata.creationTimestamp),
    });
    return earlier.ok ? ok() : earlier;
  }

  target(): string {
    return `the API server at ${this.#sb.api.server}, namespace ${this.#sb.o.namespace}`;
  }

  /** A node's store holds the image, or the registry a node would pull it from does (preflight.ts); asked at a preview. */
  imageHeld(image: string, options: CallOptions = {}): Promise<Result<undefined>> {
    return this.#sb.preflight.check(podImageOf(image), options.signal);
  }

  /** One read that makes nothing: the server answers the credentials and they may write Pods in the namespace. */
  async testConnection(options: CallOptions = {}): Promise<Result<{ detail: string }>> {
    const checked = await this.#sb.preflight.check(undefined, options.signal);
    if (!checked.ok) return checked;
    return ok({ detail: `the API server at ${this.#sb.api.server} answers; the credentials may make Pods in ${this.#sb.o.namespace}` });
  }
}
