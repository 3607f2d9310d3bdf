// A Kubernetes bench's namespace on the test cluster (dist/kube.json): kubectl (the one built with
// the cluster) against it, the load, the namespace made when missing, and the cleanup that deletes
// the anchor's Pods not yet deleted, then the namespace when this run made it, after the
// provider's computers (stop.mjs: at the end, and when stopped half-way too).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { releaseOnStop } from "./stop.mjs";

export const kube = JSON.parse(readFileSync(new URL("../dist/kube.json", import.meta.url), "utf8"));
export const kubeconfigText = () => readFileSync(kube.kubeconfig, "utf8");
export const kubectl = (input, ...args) =>
  execFileSync(kube.kubectl, ["--kubeconfig", kube.kubeconfig, ...args], { encoding: "utf8", input, stdio: ["pipe", "pipe", "pipe"] });
export const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();

/** The namespace made when missing; mine, the anchor's Pods not yet deleted; cleanup, as above. */
export function benchNamespace(namespace, provider) {
  const made = kubectl(undefined, "get", "namespace", namespace, "--ignore-not-found", "-o", "name").trim() === "";
  if (made) kubectl(undefined, "create", "namespace", namespace);
  const mine = [];
  const cleanup = releaseOnStop(provider, () => {
    for (const name of mine) kubectl(undefined, "delete", "pod", name, "-n", namespace, "--ignore-not-found", "--wait=true");
    if (made) kubectl(undefined, "delete", "namespace", namespace, "--wait=true", "--timeout=120s");
  });
  return { mine, cleanup };
}
