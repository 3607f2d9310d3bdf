// A kubeconfig's contents, parsed to what the provider talks to the API server with: the server,
// its CA, and a client certificate or a bearer token. Every refusal names the setting and never
// holds a value read from it (a kubeconfig holds keys).
import { parse } from "yaml";
import { keyUrlProblem } from "../contract/base-url.js";
import { OptionError } from "../daemon/result.js";

export interface Credentials {
  /** https://host:port, with no trailing slash. */
  server: string;
  /** PEM, when the kubeconfig names a CA (else the system's roots). */
  ca?: string;
  /** The name the server's certificate is checked against, when not the server's host. */
  serverName?: string;
  cert?: string;
  key?: string;
  /** A bearer token, or where to read it each time (in-cluster: the kubelet rotates it). */
  token?: string | (() => string);
  /** The context's namespace, when it names one. */
  namespace?: string;
}

const SETTING = "kubeconfig";
const refuse = (problem: string) => new OptionError(SETTING, "the Kubernetes provider's kubeconfig", ` ${problem}`);

type Named = { name?: unknown; [key: string]: unknown };

function pick(list: unknown, name: string, what: string): Record<string, unknown> {
  const found = Array.isArray(list) ? (list as Named[]).find((e) => e && typeof e === "object" && e.name === name) : undefined;
  const body = found?.[what];
  if (!body || typeof body !== "object") throw refuse(`names ${what} ${JSON.stringify(name.slice(0, 60))} in its context, and holds no such ${what}`);
  return body as Record<string, unknown>;
}

function base64Text(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^[A-Za-z0-9+/=\s]+$/.test(value)) throw refuse(`has a ${field} that is not base64`);
  return Buffer.from(value, "base64").toString("utf8");
}

function noFiles(body: Record<string, unknown>, fields: string[], where: string): void {
  const named = fields.filter((f) => body[f] !== undefined);
  if (named.length > 0) {
    throw refuse(
      `names files (${named.join(", ")}) in its ${where}: the provider takes the kubeconfig's contents alone, so give the ${named.map((f) => `${f}-data`).join(", ")} inline (kubectl config view --raw --flatten --minify)`,
    );
  }
}

/** The credentials of the kubeconfig's current context (or the one named). Throws an OptionError naming kubeconfig. */
export function parseKubeconfig(text: unknown, context?: string): Credentials {
  if (typeof text !== "string" || text.trim() === "") throw refuse("is the kubeconfig's contents (YAML), and it is empty or not a string");
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    throw refuse("does not parse as YAML");
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw refuse("is not a kubeconfig: its YAML is not a mapping");
  const config = doc as Record<string, unknown>;
  const current = context ?? config["current-context"];
  if (typeof current !== "string" || current === "") throw refuse("names no current-context");
  const ctx = pick(config.contexts, current, "context");
  if (typeof ctx.cluster !== "string" || typeof ctx.user !== "string")
    throw refuse(`has a context ${JSON.stringify(current.slice(0, 60))} that names no cluster or no user`);
  const cluster = pick(config.clusters, ctx.cluster, "cluster");
  const user = pick(config.users, ctx.user, "user");
  noFiles(cluster, ["certificate-authority"], "cluster");
  noFiles(user, ["client-certificate", "client-key", "tokenFile"], "user");
  if (user.exec !== undefined || user["auth-provider"] !== undefined) {
    throw refuse("authenticates through an exec plugin or an auth provider, which the provider does not run: give a client certificate or a token");
  }
  // The one rule for where a key goes, with no plaintext at all: the API client speaks TLS alone.
  const problem = keyUrlProblem(cluster.server, { loopback: false });
  if (problem) throw refuse(`has a cluster server that ${problem}`);
  const server = new URL(cluster.server as string);
  if (cluster["insecure-skip-tls-verify"] === true)
    throw refuse("skips TLS verification (insecure-skip-tls-verify), which the provider refuses: give the cluster's certificate-authority-data");
  const creds: Credentials = { server: server.origin + server.pathname.replace(/\/+$/, "") };
  const ca = base64Text(cluster["certificate-authority-data"], "certificate-authority-data");
  if (ca) creds.ca = ca;
  if (typeof cluster["tls-server-name"] === "string") creds.serverName = cluster["tls-server-name"];
  const cert = base64Text(user["client-certificate-data"], "client-certificate-data");
  const key = base64Text(user["client-key-data"], "client-key-data");
  if ((cert === undefined) !== (key === undefined)) throw refuse("has a client certificate without its key, or a key without its certificate");
  if (cert && key) Object.assign(creds, { cert, key });
  if (typeof user.token === "string" && user.token !== "") creds.token = user.token;
  if (!creds.cert && !creds.token) throw refuse("has a user with no client certificate and no token");
  if (typeof ctx.namespace === "string" && ctx.namespace !== "") creds.namespace = ctx.namespace;
  return creds;
}
