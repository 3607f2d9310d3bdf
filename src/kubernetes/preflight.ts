// Before anything is made, what the API server can say in a few bounded reads, each refusal naming
// its setting and never a value from the kubeconfig: its server answers and takes its credentials,
// the namespace is there and they may make, exec into, delete and list Pods in it, the RuntimeClass
// is the cluster's, and some node holds the image or, where a node would pull it, its registry does.
// A check the credentials may not read (403) is left to the create, which refuses the same in the
// API server's words. What passed is kept: the cluster's checks once per provider, an image once.
import { fail, ok, type Result } from "../daemon/result.js";
import type { KubeApi } from "./api.js";
import type { Settled } from "./options.js";
import { DOCKER_HUB, imageAt, inRegistry } from "./registry.js";

/** The kubelet lists at most this many of a node's images in its status (nodeStatusMaxImages' default): a longer store may hold one not listed. */
const NODE_IMAGES_LISTED = 50;

/** The access a computer's life needs in its namespace: made, reached through exec, deleted, listed by labels. */
const ACCESS = [
  ["pods", "", "create"],
  ["pods", "exec", "create"],
  ["pods", "", "delete"],
  ["pods", "", "list"],
] as const;

interface NodeList {
  items?: { status?: { images?: { names?: string[] }[] } }[];
}

/** An image reference as the node's store names it: docker.io's defaults filled in, by digest when it has one, else by tag (latest when none). */
export function storeName(ref: string): string {
  const at = imageAt(ref);
  if (!at) return ref;
  // A tag has no colon; a digest (sha256:…) has one.
  return `${at.host === DOCKER_HUB ? "docker.io" : at.host}/${at.repository}${at.reference.includes(":") ? "@" : ":"}${at.reference}`;
}

export class Preflight {
  readonly #api: KubeApi;
  readonly #o: Settled;
  #cluster = false;
  readonly #images = new Set<string>();

  constructor(api: KubeApi, o: Settled) {
    this.#api = api;
    this.#o = o;
  }

  /** The cluster's checks, then the image's when one is given: ok, or the first refusal naming its setting. */
  async check(image: string | undefined, signal?: AbortSignal): Promise<Result<undefined>> {
    if (!this.#cluster) {
      const cluster = await this.#clusterChecks(signal);
      if (!cluster.ok) return cluster;
      this.#cluster = true;
    }
    if (image === undefined || this.#images.has(image)) return ok();
    const held = await this.#imageHeld(image, signal);
    if (held.ok) this.#images.add(image);
    return held;
  }

  #get<T>(path: string, what: string, signal: AbortSignal | undefined): Promise<Result<T>> {
    return this.#api.call<T>(path, what, { ms: this.#o.t.callMs, signal });
  }

  /** One GET of the namespace, the four access reviews side by side, one GET of each RuntimeClass named. */
  async #clusterChecks(signal: AbortSignal | undefined): Promise<Result<undefined>> {
    const ns = this.#o.namespace;
    const read = await this.#get(`/api/v1/namespaces/${encodeURIComponent(ns)}`, `reading the namespace ${ns}`, signal);
    if (!read.ok) {
      const { code, message } = read.error;
      if (code === "not_found")
        return fail("invalid", `the namespace ${ns} does not exist in the cluster; give namespace one that does`, { field: "namespace" });
      if (code === "unreachable" || code === "timeout")
        return fail(code, `the cluster's API server could not be reached (${message}); check kubeconfig`, { field: "kubeconfig" });
      if (code === "unauthorized") return fail("unauthorized", "the cluster's API server refused the credentials; check kubeconfig", { field: "kubeconfig" });
      // Credentials that may not read namespaces: the access reviews still say what they may do.
      if (code !== "refused") return read;
    }
    const reviews = await Promise.all(
      ACCESS.map(([resource, subresource, verb]) =>
        this.#api.call<{ status?: { allowed?: boolean } }>("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "an access review", {
          method: "POST",
          body: {
            apiVersion: "authorization.k8s.io/v1",
            kind: "SelfSubjectAccessReview",
            spec: { resourceAttributes: { namespace: ns, resource, subresource, verb } },
          },
          ms: this.#o.t.callMs,
          signal,
        }),
      ),
    );
    for (const [i, review] of reviews.entries()) {
      if (!review.ok && review.error.code === "refused") continue;
      if (!review.ok) return review;
      if (review.value?.status?.allowed === true) continue;
      const [resource, subresource, verb] = ACCESS[i]!;
      return fail(
        "refused",
        `the credentials may not ${verb} ${subresource ? `${resource}/${subresource}` : resource} in the namespace ${ns}; give namespace one they may write, or other credentials`,
        { field: "namespace" },
      );
    }
    for (const field of ["runtimeClass", "gvisorRuntimeClass"] as const) {
      const rc = this.#o[field];
      if (!rc) continue;
      const read = await this.#get(`/apis/node.k8s.io/v1/runtimeclasses/${encodeURIComponent(rc)}`, `reading the RuntimeClass ${rc}`, signal);
      if (!read.ok && read.error.code === "not_found")
        return fail("invalid", `the cluster has no RuntimeClass ${rc}; give ${field} one it has (kubectl get runtimeclass), or none`, { field });
      if (!read.ok && read.error.code !== "refused") return read;
    }
    return ok();
  }

  /**
   * One list of the nodes: some node's store holds the image, or none could and none lists so many
   * that one may be left out; then, where a node would pull it, its registry is asked (registry.ts).
   */
  async #imageHeld(image: string, signal: AbortSignal | undefined): Promise<Result<undefined>> {
    const nodes = await this.#get<NodeList>("/api/v1/nodes", "listing the nodes' images", signal);
    if (!nodes.ok) return nodes.error.code === "refused" ? ok() : nodes;
    const want = storeName(image);
    const stores = (nodes.value?.items ?? []).map((n) => n.status?.images ?? []);
    if (stores.some((images) => images.some((i) => (i.names ?? []).some((n) => storeName(n) === want)))) return ok();
    if (stores.length === 0 || stores.some((images) => images.length >= NODE_IMAGES_LISTED)) return ok();
    const shown = image.slice(0, 200);
    if (this.#o.pullPolicy === "Never")
      return fail(
        "invalid",
        `no node of the cluster holds the image ${shown}, and imagePullPolicy is Never, so nothing would pull it: load it onto the nodes, or give imagePullPolicy IfNotPresent and a registry the nodes pull from`,
        { field: "image" },
      );
    const at = imageAt(image);
    if (!at || (await inRegistry(at, { ca: this.#o.creds.ca, ms: this.#o.t.callMs, signal })) !== "missing") return ok();
    return fail(
      "invalid",
      `no node of the cluster holds the image ${shown}, and its registry ${at.host} has no ${at.repository}:${at.reference.slice(0, 80)} (it answered 404 for its manifest): push the image there, or name one a node or the registry holds`,
      { field: "image" },
    );
  }
}
