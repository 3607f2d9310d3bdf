// Kubernetes' conformance module: the cluster from COMPUTER_KUBERNETES_KUBECONFIG (a kubeconfig's
// path), else the one npm run kube:up started for this work tree (dist/kube.json names its
// kubeconfig, the base image by digest in the cluster's registry, which every node pulls from, and
// the RuntimeClass its gVisor Pods take). A run of --kind browser gives the provider its browser
// option: COMPUTER_KUBERNETES_BROWSER_IMAGE, else the image scripts/kube-browser-image.sh pushed
// (dist/kube-browser.json).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "../../package.js";
import { create, driftedProvider, type KubernetesOptions } from "../create.js";
import type { KubernetesProvider } from "../provider.js";
import { BROWSER_IMAGE } from "../../kits/browser/labels.js";
import { type RunShape, settingKindOf } from "../../kits/conformance/module.js";

/** Every name this module reads. */
export const ENV = [
  "COMPUTER_KUBERNETES_KUBECONFIG",
  "COMPUTER_KUBERNETES_NAMESPACE",
  "COMPUTER_KUBERNETES_IMAGE",
  "COMPUTER_KUBERNETES_RUNTIME_CLASS",
  "COMPUTER_KUBERNETES_GVISOR_RUNTIME_CLASS",
  "COMPUTER_KUBERNETES_BROWSER_IMAGE",
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

/** A run of --kind browser: the provider's computers are browsers. */
const isBrowser = (run: RunShape) => run.kind !== undefined && settingKindOf(run.kind) === "browser";

/** The browser's image: the environment's, else the one scripts/kube-browser-image.sh pushed to the test cluster. */
export function browserImage(env: Record<string, string | undefined>): string {
  if (env.COMPUTER_KUBERNETES_BROWSER_IMAGE) return env.COMPUTER_KUBERNETES_BROWSER_IMAGE;
  const file = path.join(packageRoot(), "dist", "kube-browser.json");
  if (!existsSync(file))
    throw new TypeError(
      "Kubernetes' browser run needs the browser's image in the cluster's registry: run bash scripts/kube-browser-image.sh, or give COMPUTER_KUBERNETES_BROWSER_IMAGE",
    );
  return (JSON.parse(readFileSync(file, "utf8")) as { image: string }).image;
}

export function optionsFromEnv(env: Record<string, string | undefined>, run: RunShape = {}): KubernetesOptions {
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
    ...(isBrowser(run) ? { browser: { image: browserImage(env) } } : {}),
  };
}

export function createProvider(_settings?: undefined, run: RunShape = {}): KubernetesProvider {
  return create(optionsFromEnv(process.env, run));
}

export function createDriftedProvider(_settings?: undefined, run: RunShape = {}): KubernetesProvider {
  const options = optionsFromEnv(process.env, run);
  return driftedProvider(options, `${create(options).version}-drift`);
}

/** A browser's "chromium"; else COMPUTER_KUBERNETES_IMAGE, else the test cluster's base image by digest. */
export function conformanceImage(run: RunShape = {}): string | undefined {
  return isBrowser(run) ? BROWSER_IMAGE : process.env.COMPUTER_KUBERNETES_IMAGE || testCluster()?.image;
}

export const conformanceNotes: string[] = [
  "Kubernetes: a computer is a Pod; release is delete alone (a Pod has no stopped state), so provider.stop holds it to refusing a stop, and provider.janitor is skipped",
];
