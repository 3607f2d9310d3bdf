// Kubernetes' settings as a host takes them from its user (a stack's agentrun:kubernetes config,
// the CLI's --set): the kubeconfig's contents are a secret; inCluster, a plugin that runs in a Pod.
import { z } from "zod";
import { keySetting, secretSetting } from "../contract/setting-marks.js";

export const KUBERNETES_SETTINGS = z.strictObject({
  kubeconfig: keySetting("KUBECONFIG", secretSetting(z.string().min(1).optional())),
  inCluster: z.boolean().optional(),
  context: z.string().min(1).optional(),
  namespace: keySetting("KUBERNETES_NAMESPACE", z.string().min(1).optional()),
  runtimeClass: z.string().min(1).optional(),
  gvisorRuntimeClass: z.string().min(1).optional(),
  image: z.string().min(1).optional(),
  imagePullPolicy: z.string().optional(),
  arch: z.string().optional(),
  daemonPath: z.string().min(1).optional(),
  user: z.string().optional(),
  /**
   * An allowlist's proxy: the nodes' own public addresses, the refusals' hint, the proxy's image;
   * and the test-only seam (a private range the proxy reaches, refused unless testOnly), so a
   * stack's tests reach their own server on the test cluster.
   */
  egress: z
    .strictObject({
      hostAddresses: z.array(z.string()).optional(),
      hint: z.string().optional(),
      image: z.string().min(1).optional(),
      testNetwork: z.strictObject({ range: z.string() }).optional(),
      testOnly: z.boolean().optional(),
    })
    .optional(),
  /** Browsers: every computer is kind browser, its image "chromium" this one (the browser recipe's, in a registry the nodes pull from). */
  browser: z.strictObject({ image: z.string().min(1) }).optional(),
});

export type KubernetesSettings = z.infer<typeof KUBERNETES_SETTINGS>;
