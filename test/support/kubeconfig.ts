// A kubeconfig with a token and a CA inline, for unit tests that build a Kubernetes provider and
// never reach its server (127.0.0.1:6443).
import { stringify } from "yaml";

export const tokenKubeconfig = stringify({
  apiVersion: "v1",
  kind: "Config",
  clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": Buffer.from("CA").toString("base64") } }],
  users: [{ name: "u", user: { token: "t" } }],
  contexts: [{ name: "ctx", context: { cluster: "c", user: "u" } }],
  "current-context": "ctx",
});
