// Kubernetes' conformance module: the cluster from COMPUTER_KUBERNETES_KUBECONFIG (a kubeconfig's
// path), else the one npm run kube:up started for this work tree (dist/kube.json names its
// kubeconfig, the base image by digest in the cluster's registry, which every node pulls from, and
// the RuntimeClass its gVisor Pods take).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "../../package.js";
import { create, driftedProvider, type KubernetesOptions } from "../create.js";
import type { KubernetesProvider } from "../provider.js";

/** Every name this module reads. */
export const ENV = [
  "COMPUTER_KUBERNETES_KUBECONFIG",
  "COMPUTER_KUBERNETES_NAMESPACE",
  "COMPUTER_KUBERNETES_IMAGE",
  "COMPUTER_KUBERNETES_RUNTIME_CLASS",
  "COMPUTER_KUBERNETES_GVISOR_RUNTIME_CLASS",
] as const;

interface KubeJson {
  kubeconfig: string;
  image: string;
  gvisorRuntimeClass?: string;
}

/** dist/kube.json, which npm run kube:up writes; undefined when the cluster was not started here. */
export function testCluster(): KubeJson | undefined {
  const file = path.join(packageRoot(), "dist", "kube.json");
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, "utf8")) as KubeJson;
}

export function optionsFromEnv(env: Record<string, string | undefined>): KubernetesOptions {
  const cluster = testCluster();
  const file = env.COMPUTER_KUBERNETES_KUBECONFIG || cluster?.kubeconfig;
  // The test cluster's gVisor class, unless another cluster was named.
  const gvisorRuntimeClass = env.COMPUTER_KUBERNETES_GVISOR_RUNTIME_CLASS || (env.COMPUTER_KUBERNETES_KUBECONFIG ? undefined : cluster?.gvisorRuntimeClass);
  if (!file)
    throw new TypeError(
      "Kubernetes' conformance run needs a cluster: run npm run kube:up (as root), or give COMPUTER_KUBERNETES_KUBECONFIG (a kubeconfig's path)",
    );
  return {
    kubeconfig: readFileSync(file, "utf8"),
    ...(env.COMPUTER_KUBERNETES_NAMESPACE ? { namespace: env.COMPUTER_KUBERNETES_NAMESPACE } : {}),
    ...(env.COMPUTER_KUBERNETES_RUNTIME_CLASS ? { runtimeClass: env.COMPUTER_KUBERNETES_RUNTIME_CLASS } : {}),
    ...(gvisorRuntimeClass ? { gvisorRuntimeClass } : {}),
  };
}

export function createProvider(): KubernetesProvider {
  return create(optionsFromEnv(process.env));
}

export function createDriftedProvider(): KubernetesProvider {
  const options = optionsFromEnv(process.env);
  return driftedProvider(options, `${create(options).version}-drift`);
}

/** COMPUTER_KUBERNETES_IMAGE, else the test cluster's base image by digest. */
export function conformanceImage(): string | undefined {
  return process.env.COMPUTER_KUBERNETES_IMAGE || testCluster()?.image;
}

export const conformanceNotes: string[] = [
  "Kubernetes: a computer is a Pod; release is delete alone (a Pod has no stopped state), so provider.stop holds it to refusing a stop, and provider.janitor is skipped",
];
