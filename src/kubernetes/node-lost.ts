// A computer whose node is lost (its kubelet stopped, its machine gone) has ended, whatever its Pod
// still says: the Pod reads Running until the node controller and eviction act, minutes later. The
// node's Lease in kube-node-lease, which a live kubelet renews every few seconds, tells it within
// the lease's duration (40 s by default); the Node's Ready condition and the Node gone tell it too.
// Credentials that may read neither leave the Pod's own word.
import { untilAborted } from "../daemon/bound.js";
import { fail, ok, type Result } from "../daemon/result.js";
import type { KubeApi } from "./api.js";

export interface NodeRead {
  /** undefined: no Node of that name. */
  node?: { status?: { conditions?: Array<{ type?: string; status?: string; reason?: string }>; nodeInfo?: { kernelVersion?: string } } };
  /** undefined: no lease, or none the credentials may read. */
  lease?: { spec?: { renewTime?: string; leaseDurationSeconds?: number } };
}

/** Why the node is lost, in words naming it; undefined while it lives. */
export function nodeLoss(name: string, read: NodeRead, now: number): string | undefined {
  if (!read.node) return `its node ${name} is gone (the API server has no Node ${name})`;
  const renewed = Date.parse(read.lease?.spec?.renewTime ?? "");
  const holds = read.lease?.spec?.leaseDurationSeconds ?? 40;
  if (!Number.isNaN(renewed) && now - renewed > holds * 1000)
    return `its node ${name} is lost: its kubelet last renewed its lease ${Math.round((now - renewed) / 1000)} s ago (a live one renews it within ${holds} s)`;
  const ready = read.node.status?.conditions?.find((c) => c.type === "Ready");
  if (ready && ready.status !== "True")
    return `its node ${name} is lost: it is not Ready (${ready.status ?? "no status"}${ready.reason ? `, ${ready.reason}` : ""})`;
  return undefined;
}

/** The Node and its lease as the API server answers; a read refused (403) is left out, any other failure is the caller's. */
async function readNode(api: KubeApi, name: string, options: { ms: number; signal?: AbortSignal | undefined }): Promise<Result<NodeRead | "unknown">> {
  const [node, lease] = await Promise.all([
    api.call<NonNullable<NodeRead["node"]>>(`/api/v1/nodes/${encodeURIComponent(name)}`, `reading the Node ${name}`, options),
    api.call<NonNullable<NodeRead["lease"]>>(
      `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${encodeURIComponent(name)}`,
      `reading the Node ${name}'s lease`,
      options,
    ),
  ]);
  if (!node.ok && node.error.code === "refused") return ok("unknown");
  if (!node.ok && node.error.code !== "not_found") return node;
  if (!lease.ok && lease.error.code !== "refused" && lease.error.code !== "not_found") return lease;
  return ok({ ...(node.ok ? { node: node.value } : {}), ...(lease.ok ? { lease: lease.value } : {}) });
}

/** What a Pod's read takes of its node; each undefined when the credentials may not read the Node. */
export interface NodeState {
  /** Why the node is lost, in words naming it; undefined while it lives. */
  lost: string | undefined;
  /** The node's kernel release, as its kubelet reports it (a gVisor computer's must differ). */
  kernel: string | undefined;
}

/** The node's state read from the API server. */
export async function nodeState(api: KubeApi, name: string, options: { ms: number; signal?: AbortSignal | undefined }): Promise<Result<NodeState>> {
  const read = await readNode(api, name, options);
  if (!read.ok) return read;
  if (read.value === "unknown") return ok({ lost: undefined, kernel: undefined });
  return ok({ lost: nodeLoss(name, read.value, Date.now()), kernel: read.value.node?.status?.nodeInfo?.kernelVersion });
}

/** How long a node's read serves every Pod on it: a refresh reads many Pods on few nodes, and a lease is renewed every 10 s. */
export const NODE_READ_MS = 2_000;

/**
 * The nodes lost now, read from the Nodes and their leases in two listings: the names a new Pod
 * must not be placed on (the scheduler places Pods on a lost node until the node controller taints
 * it, up to a minute later, and they never start). Credentials that may not list Nodes see none.
 */
export async function lostNodes(api: KubeApi, options: { ms: number; signal?: AbortSignal | undefined }): Promise<Result<string[]>> {
  type Listed<T> = { items?: Array<T & { metadata?: { name?: string } }> };
  const [nodes, leases] = await Promise.all([
    api.call<Listed<NonNullable<NodeRead["node"]>>>("/api/v1/nodes", "listing the Nodes", options),
    api.call<Listed<NonNullable<NodeRead["lease"]>>>("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", "listing the Nodes' leases", options),
  ]);
  if (!nodes.ok) return nodes.error.code === "refused" ? ok([]) : nodes;
  if (!leases.ok && leases.error.code !== "refused") return leases;
  const leaseOf = new Map((leases.ok ? (leases.value.items ?? []) : []).map((l) => [l.metadata?.name, l]));
  const now = Date.now();
  return ok(
    (nodes.value.items ?? []).flatMap((node) => {
      const name = node.metadata?.name;
      return name !== undefined && nodeLoss(name, { node, lease: leaseOf.get(name) }, now) !== undefined ? [name] : [];
    }),
  );
}

/**
 * A node's state read once and shared by the reads of its Pods for NODE_READ_MS (a failed read is
 * not kept); each caller's abort ends its own wait, never the shared read. The nodes lost now,
 * shared the same way by a fleet's creates.
 */
export class NodeStates {
  readonly #reads = new Map<string, { at: number; read: Promise<Result<NodeState>> }>();
  #lost: { at: number; read: Promise<Result<string[]>> } | undefined;
  readonly #api: KubeApi;
  readonly #ms: number;
  readonly #now: () => number;

  constructor(api: KubeApi, ms: number, now: () => number = Date.now) {
    this.#api = api;
    this.#ms = ms;
    this.#now = now;
  }

  read(node: string, signal?: AbortSignal): Promise<Result<NodeState>> {
    const held = this.#reads.get(node);
    let read = held && this.#now() - held.at < NODE_READ_MS ? held.read : undefined;
    if (!read) {
      const mine = nodeState(this.#api, node, { ms: this.#ms });
      this.#reads.set(node, { at: this.#now(), read: mine });
      void mine.then((r) => {
        if (!r.ok && this.#reads.get(node)?.read === mine) this.#reads.delete(node);
      });
      read = mine;
    }
    return untilAborted(read, signal, () => fail("aborted", `reading the Node ${node} was aborted`));
  }

  lost(signal?: AbortSignal): Promise<Result<string[]>> {
    if (!this.#lost || this.#now() - this.#lost.at >= NODE_READ_MS) {
      const mine = lostNodes(this.#api, { ms: this.#ms });
      this.#lost = { at: this.#now(), read: mine };
      void mine.then((r) => {
        if (!r.ok && this.#lost?.read === mine) this.#lost = undefined;
      });
    }
    return untilAborted(this.#lost.read, signal, () => fail("aborted", "listing the Nodes was aborted"));
  }
}
