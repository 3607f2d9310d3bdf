// A kubeconfig with a token and a CA inline, for unit tests that build a Kubernetes provider and
// never reach its server (127.0.0.1:6443, or the server given).
import { stringify } from "yaml";

/** The kubeconfig with its cluster's server at server. */
export function tokenKubeconfigAt(server: string): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server, "certificate-authority-data": Buffer.from("CA").toString("base64") } }],
    users: [{ name: "u", user: { token: "t" } }],
    contexts: [{ name: "ctx", context: { cluster: "c", user: "u" } }],
    "current-context": "ctx",
  });
}

export const tokenKubeconfig = tokenKubeconfigAt("https://127.0.0.1:6443");
