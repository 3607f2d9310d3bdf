// Whether an image's registry has it: one HEAD of its manifest by the distribution API, anonymous,
// over TLS trusting the system's roots and the cluster's CA (a registry of the cluster's own is
// signed by it). Only a registry's 404 says an image is missing; anything else (a registry that
// asks for credentials, one not reachable from here, an answer of another kind) is not known here,
// and the create's pull says it. No credential of the kubeconfig is ever sent to a registry.
import https from "node:https";
import tls from "node:tls";
import { boundedBy } from "../daemon/bound.js";

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
const ACCEPT = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.docker.distribution.manifest.v2+json",
].join(", ");

/** "there", "missing" (the registry said so), or "unknown" (it said nothing this can read). */
export type RegistryAnswer = "there" | "missing" | "unknown";

export async function inRegistry(
  at: ImageAt,
  options: { ca?: string | Buffer | undefined; ms: number; signal?: AbortSignal | undefined },
): Promise<RegistryAnswer> {
  const ca = [...tls.rootCertificates, ...(options.ca ? [options.ca.toString()] : [])];
  const url = new URL(`https://${at.host}/v2/${at.repository}/manifests/${encodeURIComponent(at.reference)}`);
  const { signal } = boundedBy(options.ms, options.signal);
  const status = await new Promise<number | undefined>((resolve) => {
    // An abort, a refused connection, a certificate not trusted: nothing said of the image.
    const request = https.request(url, { method: "HEAD", ca, headers: { accept: ACCEPT }, signal, agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on("error", () => resolve(undefined));
    request.end();
  });
  if (status !== undefined && status >= 200 && status < 300) return "there";
  return status === 404 ? "missing" : "unknown";
}
