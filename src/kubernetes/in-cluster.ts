// In-cluster credentials: a process in a Pod reaches its cluster's API server as the Pod's service
// account, from the files Kubernetes mounts (token, ca.crt, namespace) and the address it puts in
// KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT. The one place the provider reads them; each
// refusal names inCluster and never holds the token.
import { readFileSync } from "node:fs";
import path from "node:path";
import { OptionError } from "../daemon/result.js";
import type { Credentials } from "./kubeconfig.js";

/** Where Kubernetes mounts a Pod's service account. */
export const SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";
/** How long a token read is used before the file is read again: the kubelet rotates it in place (client-go waits a minute too). */
const TOKEN_REREAD_MS = 60_000;

const refuse = (problem: string) => new OptionError("inCluster", "the Kubernetes provider's inCluster", ` ${problem}`);

function read(folder: string, file: string): string {
  try {
    return readFileSync(path.join(folder, file), "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw refuse(
      `reads the Pod's service account, and ${path.join(folder, file)} could not be read (${code}): this process runs in no Pod, or its Pod mounts no token (automountServiceAccountToken false)`,
    );
  }
}

/** The token file's contents, read again once a minute: the kubelet replaces the token before it expires. */
export function rotatingToken(file: string, first: string, now: () => number = Date.now): () => string {
  let token = first;
  let at = now();
  return () => {
    if (now() - at < TOKEN_REREAD_MS) return token;
    at = now();
    try {
      const next = readFileSync(file, "utf8").trim();
      if (next) token = next;
    } catch {
      // A failed re-read keeps the token read last; the API server says when it has expired.
    }
    return token;
  };
}

export interface ServiceAddress {
  host: string | undefined;
  port: string | undefined;
}

/** The API server's address as Kubernetes sets it in a Pod: the provider's one read of the environment (scripts/check-env.mjs allows these two here alone). */
function serviceAddress(): ServiceAddress {
  return { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
}

/** The Pod's service account as credentials: its API server's address, its token, CA and namespace from folder. */
export function inClusterCredentials(folder: string = SERVICE_ACCOUNT, { host, port }: ServiceAddress = serviceAddress()): Credentials {
  if (!host || !port)
    throw refuse("reads the API server's address from KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, which Kubernetes sets in a Pod, and one is not set");
  if (!/^\d{1,5}$/.test(port)) throw refuse("reads the API server's port from KUBERNETES_SERVICE_PORT, and it is not a port number");
  let server: URL;
  try {
    // An IPv6 address is bracketed, as client-go does.
    server = new URL(`https://${host.includes(":") ? `[${host}]` : host}:${port}`);
  } catch {
    throw refuse("reads the API server's address from KUBERNETES_SERVICE_HOST, and it is not a host name or address");
  }
  const tokenFile = path.join(folder, "token");
  const token = read(folder, "token").trim();
  if (!token) throw refuse(`reads the Pod's service account token from ${tokenFile}, and it is empty`);
  const ca = read(folder, "ca.crt");
  const namespace = read(folder, "namespace").trim();
  return { server: server.origin, ca, token: rotatingToken(tokenFile, token), ...(namespace ? { namespace } : {}) };
}
