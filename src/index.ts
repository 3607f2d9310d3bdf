// The library's public surface. Every registered provider's class is exported as the spec's
// examples import it (new ModalProvider({...})); a vendor's SDK is loaded only when a provider
// of it makes its first call (modal, e2b), so importing this loads none. The registry
// (providers.ts) builds any of them by id.
export * from "./daemon/protocol.js";
export * from "./daemon/frames.js";
export * from "./daemon/client.js";
export * from "./daemon/result.js";
export * from "./contract/provider.js";
export * from "./contract/mount.js";
export * from "./contract/user.js";
export * from "./daemon/files.js";
export * from "./daemon/processes.js";
export * from "./contract/labels.js";
export * from "./contract/lifetime.js";
export * from "./contract/kinds.js";
export * from "./registry/offers.js";
export * from "./registry/connection.js";
export * from "./daemon/actions.js";
export * from "./contract/wait.js";
export * from "./daemon/redact.js";
export * from "./fleet/janitor.js";
export * from "./daemon/desktop.js";
export * from "./contract/screen.js";
export * from "./daemon/screen-watch.js";
export * from "./fleet/pool.js";
export {
  checkAllowlist,
  checkTestNetwork,
  DEFAULT_HINT,
  EGRESS_PORTS,
  hintProblem,
  MAX_HINT,
  MAX_EACH as ALLOWLIST_MAX_EACH,
  ALLOW_REFUSAL_KINDS,
  type AllowRefusal,
  type AllowRefusalKind,
  type AllowlistCheck,
} from "./egress/list.js";
export { judgeTarget, type TargetVerdict } from "./egress/target.js";
export * from "./contract/probe.js";
// A browser vendor call's failure keeps the host transport's thrown error hidden: read it here.
export { causeOf } from "./kits/browser/vendor.js";
export { BROWSER_IMAGE } from "./kits/browser/labels.js";
export { PHONE_IMAGE } from "./phone-harness/constants.js";
export * from "./providers.js";
export { DockerProvider, type DockerProviderOptions, type EgressOptions, ensureImage, type ImageSource } from "./docker/index.js";
export { ModalProvider, type ModalProviderOptions } from "./modal/index.js";
export { DaytonaProvider, type DaytonaProviderOptions } from "./daytona/index.js";
export { E2BProvider, type E2BProviderOptions } from "./e2b/index.js";
export { BrowserbaseProvider, type BrowserbaseProviderOptions } from "./browserbase/index.js";
export { KernelProvider, type KernelProviderOptions } from "./kernel/index.js";
export { PhoneHarnessProvider, type PhoneHarnessOptions } from "./phone-harness/index.js";
export { KubernetesProvider, type KubernetesProviderOptions } from "./kubernetes/index.js";
