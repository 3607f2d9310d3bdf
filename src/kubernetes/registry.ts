// An image's registry by the distribution API: one call, bounded and anonymous, over TLS trusting
// the system's roots and the cluster's CA (a registry of the cluster's own is signed by it), which
// a snapshot's calls are made with (snapshot-registry.ts); and whether the registry has an image,
// one HEAD of its manifest. Only a registry's 404 says an image is missing; anything else (a registry that
// asks for credentials, one not reachable from here, an answer of another kind) is not known here,
// and the create's pull says it. No credential of the kubeconfig is ever sent to a registry.
import type { IncomingHttpHeaders } from "node:http";
import https from "node:https";
import tls from "node:tls";
import { boundedBy } from "../daemon/bound.js";
import { fail, ok, type Result } from "../daemon/result.js";

/** Where an image reference points: the registry's host, the repository in it, and a tag or digest. */
export interface ImageAt {
  host: string;
  repository: string;
  reference: string;
}

/** Docker Hub by the name a registry client asks it: docker.io is not its API's host. */
export const DOCKER_HUB = "registry-1.docker.io";

/** An image reference as a registry address, as the container runtime reads it (docker.io's defaults filled in); undefined when it is no reference. */
export function imageAt(ref: string): ImageAt | undefined {
  const at = ref.indexOf("@");
  const digest = at >= 0 ? ref.slice(at + 1) : undefined;
  let name = at >= 0 ? ref.slice(0, at) : ref;
  let tag: string | undefined;
  const colon = name.lastIndexOf(":");
  if (colon > name.lastIndexOf("/")) {
    tag = name.slice(colon + 1);
    name = name.slice(0, colon);
  }
  const slash = name.indexOf("/");
  const first = slash >= 0 ? name.slice(0, slash) : "";
  const onHost = slash >= 0 && (first.includes(".") || first.includes(":") || first === "localhost");
  const host = onHost ? first : DOCKER_HUB;
  let repository = onHost ? name.slice(slash + 1) : name;
  if (!onHost && !repository.includes("/")) repository = `library/${repository}`;
  if (!repository || !/^[a-z0-9]+(?:[._/-][a-z0-9]+)*$/.test(repository)) return undefined;
  return { host: host === "docker.io" ? DOCKER_HUB : host, repository, reference: digest ?? tag ?? "latest" };
}

/** What a manifest read asks for: any image, single or many-platformed, OCI's or Docker's. */
export const MANIFEST_TYPES = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.docker.distribution.manifest.v2+json",
].join(", ");

/** "there", "missing" (the registry said so), or "unknown" (it said nothing this can read). */
export type RegistryAnswer = "there" | "missing" | "unknown";

/** How a registry call is made: the cluster's CA beside the system's roots, a bound, the caller's signal. */
export interface RegistryReach {
  ca?: string | Buffer | undefined;
  ms: number;
  signal?: AbortSignal | undefined;
}

/** A registry's answer: its status, headers and body (at most MAX_BODY). */
export interface RegistryReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A manifest or a config is small: a body past this is cut off (a blob of files is never read here). */
const MAX_BODY = 4 * 1024 * 1024;

/**
 * One distribution API call, anonymous: a reply whatever its status, else why none came (aborted
 * by the caller, past its bound, or the registry not reached), in words naming the host.
 */
export async function registryCall(
  host: string,
  path: string,
  reach: RegistryReach,
  call: { method?: "GET" | "HEAD" | "POST" | "PUT" | "DELETE"; headers?: Record<string, string>; body?: Buffer } = {},
): Promise<Result<RegistryReply>> {
  const ca = [...tls.rootCertificates, ...(reach.ca ? [reach.ca.toString()] : [])];
  const url = new URL(path, `https://${host}`);
  const { bound, signal } = boundedBy(reach.ms, reach.signal);
  const method = call.method ?? "GET";
  const headers = { ...call.headers, ...(call.body ? { "content-length": String(call.body.length) } : {}) };
  return new Promise((resolve) => {
    const request = https.request(url, { method, ca, headers, signal, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY) chunks.push(chunk);
      });
      response.on("end", () => resolve(ok({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) })));
      response.on("error", (error) => resolve(unreached(error)));
    });
    const unreached = (error: Error): Result<RegistryReply> =>
      reach.signal?.aborted
        ? fail("aborted", `the call to the registry ${host} was aborted`)
        : bound.aborted
          ? fail("timeout", `the registry ${host} did not answer ${method} ${url.pathname.slice(0, 200)} within ${reach.ms / 1000} s`)
          : fail("unreachable", `the registry ${host} could not be reached (${error.message.slice(0, 200)})`);
    request.on("error", (error) => resolve(unreached(error)));
    request.end(call.body);
  });
}

export async function inRegistry(at: ImageAt, reach: RegistryReach): Promise<RegistryAnswer> {
  // An abort, a refused connection, a certificate not trusted: nothing said of the image.
  const answer = await registryCall(at.host, manifestPath(at.repository, at.reference), reach, { method: "HEAD", headers: { accept: MANIFEST_TYPES } });
  const status = answer.ok ? answer.value.status : undefined;
  if (status !== undefined && status >= 200 && status < 300) return "there";
  return status === 404 ? "missing" : "unknown";
}

/** A manifest's path in the distribution API. */
export const manifestPath = (repository: string, reference: string) => `/v2/${repository}/manifests/${encodeURIComponent(reference)}`;
